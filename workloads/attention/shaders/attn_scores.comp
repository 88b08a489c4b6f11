#version 450
#extension GL_GOOGLE_include_directive : require
// Attention scores QK^T / sqrt(head_dim), one workgroup per (query head, token): the token at
// position p = pos0 + t scores cache positions 0..p (causal). Grouped-query attention: query
// head h reads KV head h / (heads / kv_heads).
// user: [0] q (Globals word), [1] k cache (Globals word), [2] scores (Globals word,
//       [T][heads][ctx]), [3] heads, [4] kv_heads, [5] head_dim, [6] ctx, [7] state, [8] scale (f32).
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint q0 = pc.user[0], k0 = pc.user[1], s0 = pc.user[2], heads = pc.user[3], kv_heads = pc.user[4];
  const uint hd = pc.user[5], ctx = pc.user[6], state = pc.user[7];
  const float scale = weft_user_f(8);
  const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y, p = globals_u[state] + t;
  const uint kvh = h / (heads / kv_heads);
  const uint q = q0 + t * heads * hd + h * hd, s = s0 + (t * heads + h) * ctx;
  for (uint j = gl_LocalInvocationIndex; j <= p; j += 64u) {
    const uint k = k0 + j * kv_heads * hd + kvh * hd;
    float d = 0.0;
    for (uint i = 0u; i < hd; ++i) d += globals_f[q + i] * globals_f[k + i];
    globals_f[s + j] = d * scale;
  }
}
