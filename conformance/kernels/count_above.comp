#version 450
#extension GL_GOOGLE_include_directive : require
// A filter that sizes the next dispatch from data. One workgroup. Writes the indices of the n
// items above the threshold to the list (list[0] = count, list[1..] = indices, in no particular
// order), ceil(count / 64) into the x of the indirect slot, and the count to this instance's
// Metrics counter 0 (u32).
#include "test_args.h"
#define WEFT_ARGS TEST_COUNT_ABOVE_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared uint count;

void main() {
  const uint t = gl_LocalInvocationIndex;
  const uint items = pc.args.items, n = pc.args.n, list = pc.args.list;
  const float threshold = pc.args.threshold;
  if (t == 0u) count = 0u;
  barrier();
  for (uint i = t; i < n; i += 64u)
    if (globals_f[items + i] > threshold) globals_u[list + 1u + atomicAdd(count, 1u)] = i;
  barrier();
  if (t == 0u) {
    globals_u[list] = count;
    weft_set_control_word(pc.args.slot, (count + 63u) / 64u);
    metrics[pc.header.instance].counters[0] = count;
  }
}
