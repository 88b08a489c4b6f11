#version 450
#extension GL_GOOGLE_include_directive : require
// A filter that sizes the next dispatch from data. One workgroup. Items: user[1] floats at
// Globals word user[0]; threshold: f32 bits in user[2]. Writes the indices of the items above the
// threshold to the list at Globals word user[3] (list[0] = count, list[1..] = indices, in no
// particular order), ceil(count / 64) into the x of the indirect slot at Control word user[4],
// and the count to this instance's Metrics counter 0 (u32).
#include "weft.glsl"

layout(local_size_x = 64) in;
shared uint count;

void main() {
  const uint t = gl_LocalInvocationIndex;
  const uint items = pc.user[0], n = pc.user[1], list = pc.user[3];
  const float threshold = weft_user_f(2);
  if (t == 0u) count = 0u;
  barrier();
  for (uint i = t; i < n; i += 64u)
    if (globals_f[items + i] > threshold) globals_u[list + 1u + atomicAdd(count, 1u)] = i;
  barrier();
  if (t == 0u) {
    globals_u[list] = count;
    weft_set_control_word(pc.user[4], (count + 63u) / 64u);
    metrics[pc.header.instance].counters[0] = count;
  }
}
