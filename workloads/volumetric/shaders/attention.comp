#version 450
#extension GL_GOOGLE_include_directive : require
// Multi-head attention core (no mask) between the packed projections, one invocation per
// (token t, head h): o[t, h] = sum_s softmax_s(q[t, h] . k[s, h] / sqrt(dh)) v[s, h].
// q, k, v, o are seq x d row-major, head h owns columns [h * dh, (h + 1) * dh).
// Arguments: VOLUMETRIC_ATTENTION_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_ATTENTION_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint q = pc.args.q, k = pc.args.k, v = pc.args.v, o = pc.args.o, seq = pc.args.seq, d = pc.args.d;
  const uint heads = pc.args.heads, dh = d / heads;
  const float inv = inversesqrt(float(dh));
  for (uint id = gl_GlobalInvocationID.x; id < seq * heads; id += gl_NumWorkGroups.x * 64u) {
    const uint t = id / heads, h = id - t * heads, qo = q + t * d + h * dh;
    float mx = -3.4e38;
    for (uint s = 0u; s < seq; ++s) {
      float a = 0.0;
      for (uint i = 0u; i < dh; ++i) a += globals_f[qo + i] * globals_f[k + s * d + h * dh + i];
      mx = max(mx, a * inv);
    }
    float sum = 0.0;
    for (uint s = 0u; s < seq; ++s) {
      float a = 0.0;
      for (uint i = 0u; i < dh; ++i) a += globals_f[qo + i] * globals_f[k + s * d + h * dh + i];
      sum += exp(a * inv - mx);
    }
    for (uint i = 0u; i < dh; ++i) globals_f[o + t * d + h * dh + i] = 0.0;
    for (uint s = 0u; s < seq; ++s) {
      float a = 0.0;
      for (uint i = 0u; i < dh; ++i) a += globals_f[qo + i] * globals_f[k + s * d + h * dh + i];
      const float p = exp(a * inv - mx) / sum;
      for (uint i = 0u; i < dh; ++i) globals_f[o + t * d + h * dh + i] += p * globals_f[v + s * d + h * dh + i];
    }
  }
  weft_require_loops_whole();
}
