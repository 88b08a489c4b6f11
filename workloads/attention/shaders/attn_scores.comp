#version 450
#extension GL_GOOGLE_include_directive : require
// Attention scores QK^T / sqrt(head_dim), one workgroup per (query head, token): the token at
// position p = pos0 + t scores cache positions 0..p (causal). Grouped-query attention: query
// head h reads KV head h / (heads / kv_heads). Scores are [T][heads][ctx]. Arguments:
// ATTENTION_ATTN_SCORES_ARGS (attention_args.h).
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_ATTN_SCORES_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint q0 = pc.args.q, k0 = pc.args.k_cache, s0 = pc.args.scores, heads = pc.args.heads, kv_heads = pc.args.kv_heads;
  const uint hd = pc.args.head_dim, ctx = pc.args.ctx, state = pc.args.state;
  const float scale = pc.args.scale;
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
