#version 450
#extension GL_GOOGLE_include_directive : require
// Grid rebuild, step 4 of 6 (prefix sum, pass 2 of 3): one workgroup turns the block totals into
// their exclusive prefix sums, in place. Each of 128 threads takes a contiguous run of blocks,
// the run totals are scanned in shared memory, then each thread rewrites its run.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

layout(local_size_x = 128) in;
shared uint sums[2][128];

void main() {
  const uint blocks = par_u(PHYS_SCAN_BLOCKS), at = par_u(PHYS_OFF_BLOCKS);
  const uint t = gl_LocalInvocationIndex;
  const uint per = (blocks + 127u) / 128u;
  const uint first = t * per, last = min(first + per, blocks);
  uint total = 0u;
  for (uint k = first; k < last; ++k) total += globals_u[at + k];
  sums[0][t] = total;
  barrier();
  uint src = 0u;
  for (uint d = 1u; d < 128u; d <<= 1) {
    const uint v = sums[src][t] + (t >= d ? sums[src][t - d] : 0u);
    sums[1u - src][t] = v;
    src = 1u - src;
    barrier();
  }
  uint run = sums[src][t] - total;
  for (uint k = first; k < last; ++k) {
    const uint c = globals_u[at + k];
    globals_u[at + k] = run;
    run += c;
  }
  weft_require_loops_whole();
}
