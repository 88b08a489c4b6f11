#version 450
#extension GL_GOOGLE_include_directive : require
// One message hop: outbox[j] = inbox[j] * mul + add, then the message
// metadata (norm, max_abs) of the new payload. One workgroup of 64.
#include "test_args.h"
#define WEFT_ARGS TEST_CHAIN_STEP_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float sq[64];
shared float mx[64];

void main() {
  const uvec2 start = weft_clock();
  const uint t = gl_LocalInvocationID.x;
  const float mul = pc.args.mul, add = pc.args.add;
  float s = 0.0, m = 0.0;
  for (uint j = t; j < pc.header.width; j += 64u) {
    const float v = weft_inbox_f(j) * mul + add;
    weft_outbox_f(j, v);
    s += v * v;
    m = max(m, abs(v));
  }
  sq[t] = s;
  mx[t] = m;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (t < k) {
      sq[t] += sq[t + k];
      mx[t] = max(mx[t], mx[t + k]);
    }
    barrier();
  }
  if (t == 0u) weft_message_write(sqrt(sq[0]), mx[0], WEFT_STATUS_OK, weft_ticks_since(start));
}
