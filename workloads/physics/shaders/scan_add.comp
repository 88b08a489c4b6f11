#version 450
#extension GL_GOOGLE_include_directive : require
// Grid rebuild, step 5 of 6 (prefix sum, pass 3 of 3): add each block's offset to its cells, so
// start[c] = number of particles in cells before c.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint cells = par_u(PHYS_CELLS), start_at = par_u(PHYS_OFF_START), blocks_at = par_u(PHYS_OFF_BLOCKS);
  for (uint c = gl_GlobalInvocationID.x; c < cells; c += gl_NumWorkGroups.x * 64u)
    globals_u[start_at + c] += globals_u[blocks_at + c / PHYS_SCAN_BLOCK];
}
