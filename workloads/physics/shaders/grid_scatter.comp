#version 450
#extension GL_GOOGLE_include_directive : require
// Grid rebuild, step 6a (counting sort: scatter): particle i goes to slot start[cell] + rank.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

WEFT_STREAMING_KERNEL;

void main() {
  const uint cell_at = par_u(PHYS_OFF_CELL), rank_at = par_u(PHYS_OFF_RANK), start_at = par_u(PHYS_OFF_START);
  const uint sorted_at = par_u(PHYS_OFF_SORTED);
  FOR_EACH_PARTICLE(i) {
    globals_u[sorted_at + globals_u[start_at + globals_u[cell_at + i]] + globals_u[rank_at + i]] = i;
  }
}
