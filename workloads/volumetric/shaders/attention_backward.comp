#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of the attention core (attention.comp), in two phases with one writer per word:
//   phase 0, per (token t, head h): recompute p = softmax_s(q_t . k_s / sqrt(dh)); with
//     dp_s = do_t . v_s and da_s = p_s (dp_s - sum_s' p_s' dp_s') / sqrt(dh):
//     dq_t = sum_s da_s k_s; keep p and da (heads x seq x seq) for phase 1
//   phase 1, per (token s, head h): dk_s = sum_t da_ts q_t;  dv_s = sum_t p_ts do_t
// p and da (heads x seq x seq) are the probs and dscores arguments.
// Arguments: VOLUMETRIC_ATTENTION_BACKWARD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_ATTENTION_BACKWARD_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint phase = pc.args.phase, q = pc.args.q, k = pc.args.k, v = pc.args.v, dO = pc.args.dout, dq = pc.args.dq;
  const uint dk = pc.args.dk, dv = pc.args.dv, P = pc.args.probs, DA = pc.args.dscores, T = pc.args.seq, d = pc.args.d;
  const uint heads = pc.args.heads, dh = d / heads;
  const float sc = inversesqrt(float(dh));
  for (uint id = gl_GlobalInvocationID.x; id < T * heads; id += gl_NumWorkGroups.x * 64u) {
    const uint t = id / heads, h = id - t * heads, base = (h * T + t) * T;
    if (phase == 0u) {
      float mx = -3.4e38;
      for (uint s = 0u; s < T; ++s) {
        float a = 0.0;
        for (uint i = 0u; i < dh; ++i) a += globals_f[q + t * d + h * dh + i] * globals_f[k + s * d + h * dh + i];
        globals_f[P + base + s] = a * sc;
        mx = max(mx, a * sc);
      }
      float sum = 0.0;
      for (uint s = 0u; s < T; ++s) sum += exp(globals_f[P + base + s] - mx);
      float pdp = 0.0;
      for (uint s = 0u; s < T; ++s) {
        const float p = exp(globals_f[P + base + s] - mx) / sum;
        globals_f[P + base + s] = p;
        float dp = 0.0;
        for (uint i = 0u; i < dh; ++i) dp += globals_f[dO + t * d + h * dh + i] * globals_f[v + s * d + h * dh + i];
        globals_f[DA + base + s] = dp;
        pdp += p * dp;
      }
      for (uint i = 0u; i < dh; ++i) globals_f[dq + t * d + h * dh + i] = 0.0;
      for (uint s = 0u; s < T; ++s) {
        const float da = globals_f[P + base + s] * (globals_f[DA + base + s] - pdp) * sc;
        globals_f[DA + base + s] = da;
        for (uint i = 0u; i < dh; ++i) globals_f[dq + t * d + h * dh + i] += da * globals_f[k + s * d + h * dh + i];
      }
    } else {
      const uint s = t;  // this invocation's key / value token
      for (uint i = 0u; i < dh; ++i) {
        float gk = 0.0, gv = 0.0;
        for (uint tt = 0u; tt < T; ++tt) {
          gk += globals_f[DA + (h * T + tt) * T + s] * globals_f[q + tt * d + h * dh + i];
          gv += globals_f[P + (h * T + tt) * T + s] * globals_f[dO + tt * d + h * dh + i];
        }
        globals_f[dk + s * d + h * dh + i] = gk;
        globals_f[dv + s * d + h * dh + i] = gv;
      }
    }
  }
  weft_require_loops_whole();
}
