#version 450
#extension GL_GOOGLE_include_directive : require
// Globals copy or accumulate: to = from (accumulate 0) or to += from (accumulate 1).
// The mesh moves back buffers to the front after an odd number of steps with it, so every
// submission starts from the same buffer; training sums the input gradients of a cell's
// consumers with it.
// Arguments: VOLUMETRIC_COPY_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_COPY_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint from = pc.args.src, to = pc.args.dst, count = pc.args.count;
  const bool acc = pc.args.accumulate != 0u;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u)
    globals_f[to + k] = (acc ? globals_f[to + k] : 0.0) + globals_f[from + k];
  weft_require_loops_whole();
}
