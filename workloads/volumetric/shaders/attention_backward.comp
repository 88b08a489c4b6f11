#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of the attention core (attention.comp), in two phases with one writer per word:
//   phase 0, per (token t, head h): recompute p = softmax_s(q_t . k_s / sqrt(dh)); with
//     dp_s = do_t . v_s and da_s = p_s (dp_s - sum_s' p_s' dp_s') / sqrt(dh):
//     dq_t = sum_s da_s k_s; keep p and da (heads x seq x seq) for phase 1
//   phase 1, per (token s, head h): dk_s = sum_t da_ts q_t;  dv_s = sum_t p_ts do_t
// user: [0] phase, [1] q, [2] k, [3] v, [4] do, [5] dq, [6] dk, [7] dv, [8] p, [9] da (Globals
//       words), [10] seq, [11] d, [12] heads.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint phase = pc.user[0], q = pc.user[1], k = pc.user[2], v = pc.user[3], dO = pc.user[4], dq = pc.user[5];
  const uint dk = pc.user[6], dv = pc.user[7], P = pc.user[8], DA = pc.user[9], T = pc.user[10], d = pc.user[11];
  const uint heads = pc.user[12], dh = d / heads;
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
}
