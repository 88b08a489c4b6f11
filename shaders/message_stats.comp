#version 450
#extension GL_GOOGLE_include_directive : require
// Fills an instance's message metadata from its outbox payload: L2 norm, largest magnitude,
// status ANOMALY when any value is not finite (else OK). One workgroup; a plain shared-memory
// tree reduction, so it is correct for any subgroup size.
#include "weft.glsl"

layout(local_size_x = 256) in;
shared float partial_sq[256];
shared float partial_max[256];
shared uint partial_bad[256];

void main() {
  const uvec2 start = weft_clock();
  const uint t = gl_LocalInvocationID.x;
  float sq = 0.0, mx = 0.0;
  uint bad = 0u;
  for (uint j = t; j < pc.header.width; j += 256u) {
    const float v = regs_f[pc.header.outbox + j];
    if (isnan(v) || isinf(v)) bad = 1u;
    else {
      sq += v * v;
      mx = max(mx, abs(v));
    }
  }
  partial_sq[t] = sq;
  partial_max[t] = mx;
  partial_bad[t] = bad;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (t < s) {
      partial_sq[t] += partial_sq[t + s];
      partial_max[t] = max(partial_max[t], partial_max[t + s]);
      partial_bad[t] |= partial_bad[t + s];
    }
    barrier();
  }
  if (t == 0u)
    weft_message_write(sqrt(partial_sq[0]), partial_max[0], partial_bad[0] != 0u ? WEFT_STATUS_ANOMALY : WEFT_STATUS_OK,
                       weft_ticks_since(start));
}
