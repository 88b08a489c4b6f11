#version 450
#extension GL_GOOGLE_include_directive : require
// One iteration of a decay loop: x[j] *= factor for the Globals segment x, then the L2 norm of
// the new x into this instance's Metrics (a rule reads it). sequence counts the iterations
// that ran. One workgroup.
#define WEFT_ARGS(X) X(WEFT_INOUT(Globals), x) X(WEFT_U32, n) X(WEFT_F32, factor)
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float part_sq[64];
shared float part_max[64];

void main() {
  const uvec2 start = weft_clock();
  const uint t = gl_LocalInvocationID.x, x = pc.args.x, n = pc.args.n;
  const float factor = pc.args.factor;
  float sq = 0.0, mx = 0.0;
  for (uint j = t; j < n; j += 64u) {
    const float v = globals_f[x + j] * factor;
    globals_f[x + j] = v;
    sq += v * v;
    mx = max(mx, abs(v));
  }
  part_sq[t] = sq;
  part_max[t] = mx;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (t < k) {
      part_sq[t] += part_sq[t + k];
      part_max[t] = max(part_max[t], part_max[t + k]);
    }
    barrier();
  }
  if (t == 0u) weft_message_write(sqrt(part_sq[0]), part_max[0], WEFT_STATUS_OK, weft_ticks_since(start));
}
