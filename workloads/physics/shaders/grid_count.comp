#version 450
#extension GL_GOOGLE_include_directive : require
// Grid rebuild, step 2 of 6 (counting sort: count): each particle finds its cell and takes the
// next rank in it with an atomic add. The ranks come in whatever order the device runs the
// particles; cell_sort restores index order afterwards, so nothing downstream depends on it.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

WEFT_STREAMING_KERNEL;

void main() {
  const uint cell_at = par_u(PHYS_OFF_CELL), rank_at = par_u(PHYS_OFF_RANK), count_at = par_u(PHYS_OFF_COUNT);
  FOR_EACH_PARTICLE(i) {
    const uint c = cell_index(cell_coords(load_vec(PHYS_OFF_POS, i)));
    globals_u[cell_at + i] = c;
    globals_u[rank_at + i] = atomicAdd(globals_u[count_at + c], 1u);
  }
}
