#version 450
#extension GL_GOOGLE_include_directive : require
// Grid rebuild, step 6b: sort each cell's particles by index (insertion sort; a cell holds a
// few dozen at most). The atomic ranks of grid_count depend on scheduling; after this the
// neighbour lists, and so the order in which forces are summed, depend only on the positions,
// which is what lets the CPU reference sum in the same order.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint cells = par_u(PHYS_CELLS), count_at = par_u(PHYS_OFF_COUNT), start_at = par_u(PHYS_OFF_START);
  const uint sorted_at = par_u(PHYS_OFF_SORTED);
  for (uint c = gl_GlobalInvocationID.x; c < cells; c += gl_NumWorkGroups.x * 64u) {
    const uint s = sorted_at + globals_u[start_at + c], n = globals_u[count_at + c];
    for (uint a = 1u; a < n; ++a) {
      const uint key = globals_u[s + a];
      uint b = a;
      for (; b > 0u && globals_u[s + b - 1u] > key; --b) globals_u[s + b] = globals_u[s + b - 1u];
      globals_u[s + b] = key;
    }
  }
  weft_require_loops_whole();
}
