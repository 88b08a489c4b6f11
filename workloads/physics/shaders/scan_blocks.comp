#version 450
#extension GL_GOOGLE_include_directive : require
// Grid rebuild, step 3 of 6 (exclusive prefix sum of the cell counts, pass 1 of 3): workgroup b
// scans cells [b*1024, (b+1)*1024): each of 128 threads sums 8 consecutive cells, the 128
// totals are scanned in shared memory (Hillis-Steele, no subgroup operations), and every cell
// gets its offset inside the block. The block's total goes to blocks[b].
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

layout(local_size_x = 128) in;
shared uint sums[2][128];

void main() {
  const uint cells = par_u(PHYS_CELLS), count_at = par_u(PHYS_OFF_COUNT), start_at = par_u(PHYS_OFF_START);
  const uint t = gl_LocalInvocationIndex, b = gl_WorkGroupID.x;
  const uint first = b * PHYS_SCAN_BLOCK + t * PHYS_SCAN_PER_THREAD;
  uint total = 0u;
  for (uint k = 0u; k < PHYS_SCAN_PER_THREAD; ++k)
    if (first + k < cells) total += globals_u[count_at + first + k];
  sums[0][t] = total;
  barrier();
  uint src = 0u;
  for (uint d = 1u; d < 128u; d <<= 1) {
    const uint v = sums[src][t] + (t >= d ? sums[src][t - d] : 0u);
    sums[1u - src][t] = v;
    src = 1u - src;
    barrier();
  }
  uint run = sums[src][t] - total;  // exclusive: what the threads before this one hold
  for (uint k = 0u; k < PHYS_SCAN_PER_THREAD; ++k)
    if (first + k < cells) {
      globals_u[start_at + first + k] = run;
      run += globals_u[count_at + first + k];
    }
  if (t == 127u) globals_u[par_u(PHYS_OFF_BLOCKS) + b] = sums[src][127];
}
