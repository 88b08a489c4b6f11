#version 450
#extension GL_GOOGLE_include_directive : require
// Attention output: the probabilities times V, one workgroup per (query head, token):
// att[t][h*hd + i] = sum_{j <= p} P[t][h][j] * V[j][kvh*hd + i], with kvh = h / (heads / kv_heads).
// Arguments: ATTENTION_ATTN_VALUES_ARGS (attention_args.h).
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_ATTN_VALUES_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint s0 = pc.args.scores, v0 = pc.args.v_cache, o0 = pc.args.att, heads = pc.args.heads, kv_heads = pc.args.kv_heads;
  const uint hd = pc.args.head_dim, ctx = pc.args.ctx, state = pc.args.state;
  const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y, p = globals_u[state] + t;
  const uint kvh = h / (heads / kv_heads), s = s0 + (t * heads + h) * ctx;
  for (uint i = gl_LocalInvocationIndex; i < hd; i += 64u) {
    float acc = 0.0;
    for (uint j = 0u; j <= p; ++j) acc += globals_f[s + j] * globals_f[v0 + j * kv_heads * hd + kvh * hd + i];
    globals_f[o0 + t * heads * hd + h * hd + i] = acc;
  }
}
