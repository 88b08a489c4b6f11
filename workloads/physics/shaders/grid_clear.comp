#version 450
#extension GL_GOOGLE_include_directive : require
// Grid rebuild, step 1 of 6: zero the particle count of every cell.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint cells = par_u(PHYS_CELLS), count_at = par_u(PHYS_OFF_COUNT);
  for (uint c = gl_GlobalInvocationID.x; c < cells; c += gl_NumWorkGroups.x * 64u) globals_u[count_at + c] = 0u;
}
