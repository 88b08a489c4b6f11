#version 450
#extension GL_GOOGLE_include_directive : require
// Attention output: the probabilities times V, one workgroup per (query head, token):
// out[t][h*hd + i] = sum_{j <= p} P[t][h][j] * V[j][kvh*hd + i], with kvh = h / (heads / kv_heads).
// user: [0] scores (probabilities), [1] v cache, [2] out (Globals words), [3] heads,
//       [4] kv_heads, [5] head_dim, [6] ctx, [7] state.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint s0 = pc.user[0], v0 = pc.user[1], o0 = pc.user[2], heads = pc.user[3], kv_heads = pc.user[4];
  const uint hd = pc.user[5], ctx = pc.user[6], state = pc.user[7];
  const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y, p = globals_u[state] + t;
  const uint kvh = h / (heads / kv_heads), s = s0 + (t * heads + h) * ctx;
  for (uint i = gl_LocalInvocationIndex; i < hd; i += 64u) {
    float acc = 0.0;
    for (uint j = 0u; j <= p; ++j) acc += globals_f[s + j] * globals_f[v0 + j * kv_heads * hd + kvh * hd + i];
    globals_f[o0 + t * heads * hd + h * hd + i] = acc;
  }
}
