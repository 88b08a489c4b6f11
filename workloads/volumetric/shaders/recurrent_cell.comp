#version 450
#extension GL_GOOGLE_include_directive : require
// One time step of an RNN / GRU / LSTM after its packed projections: gx = Wx x_t (all tokens,
// one stage before the loop) and gh = Wh h_{t-1} (this step; unused at t = 0, where h = c = 0).
// One invocation per hidden unit j:
//   RNN   h = tanh(gx + gh + b)
//   GRU   z = sig(gx_z + b_z + gh_z + bh_z), r = sig(gx_r + b_r + gh_r + bh_r),
//         n = tanh(gx_n + b_n + r (gh_n + bh_n)), h = (1 - z) n + z h_prev
//   LSTM  i, f, o = sig(gx + gh + b), g = tanh(gx + gh + b), c = f c_prev + i g, h = o tanh(c)
// user: [0] gx, [1] gh, [2] y (h_t at y + t * H; h_{t-1} read from y + (t-1) * H), [3] c (LSTM
//       cell state, Globals), [4] b, [5] bh (Heap), [6] t, [7] H, [8] kind (0 RNN, 1 GRU, 2 LSTM).
#include "weft.glsl"

layout(local_size_x = 64) in;

float sig(float z) { return 1.0 / (1.0 + exp(-z)); }

void main() {
  const uint gx = pc.user[0], gh = pc.user[1], y = pc.user[2], c = pc.user[3], b = pc.user[4], bh = pc.user[5];
  const uint t = pc.user[6], H = pc.user[7], kind = pc.user[8];
  const uint G = kind == 0u ? 1u : kind == 1u ? 3u : 4u;
  const bool first = t == 0u;
  for (uint j = gl_GlobalInvocationID.x; j < H; j += gl_NumWorkGroups.x * 64u) {
    const uint gxo = gx + t * G * H;
    const float hp = first ? 0.0 : globals_f[y + (t - 1u) * H + j];
    float h;
    if (kind == 0u) {
      h = tanh(globals_f[gxo + j] + (first ? 0.0 : globals_f[gh + j]) + heap_f[b + j]);
    } else if (kind == 1u) {
      const float ghz = first ? 0.0 : globals_f[gh + j], ghr = first ? 0.0 : globals_f[gh + H + j];
      const float ghn = first ? 0.0 : globals_f[gh + 2u * H + j];
      const float z = sig(globals_f[gxo + j] + heap_f[b + j] + ghz + heap_f[bh + j]);
      const float r = sig(globals_f[gxo + H + j] + heap_f[b + H + j] + ghr + heap_f[bh + H + j]);
      const float n = tanh(globals_f[gxo + 2u * H + j] + heap_f[b + 2u * H + j] + r * (ghn + heap_f[bh + 2u * H + j]));
      h = (1.0 - z) * n + z * hp;
    } else {
      float g4[4];
      for (uint k = 0u; k < 4u; ++k) g4[k] = globals_f[gxo + k * H + j] + (first ? 0.0 : globals_f[gh + k * H + j]) + heap_f[b + k * H + j];
      const float cp = first ? 0.0 : globals_f[c + j];
      const float cn = sig(g4[1]) * cp + sig(g4[0]) * tanh(g4[2]);
      globals_f[c + j] = cn;
      h = sig(g4[3]) * tanh(cn);
    }
    globals_f[y + t * H + j] = h;
  }
}
