#version 450
#extension GL_GOOGLE_include_directive : require
// Per-head RMSNorm in place (qwen3's query and key norms, before RoPE): each head row of a token
// becomes row / sqrt(mean(row^2) + eps) * weight. One workgroup per token, the heads in turn.
// Arguments: ATTENTION_HEAD_NORM_ARGS (attention_args.h).
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_HEAD_NORM_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float partial[64];

void main() {
  const uint t = gl_WorkGroupID.x, state = pc.args.state, heads = pc.args.heads, hd = pc.args.head_dim, w = pc.args.weight;
  const uint row = (pc.args.flags & 2u) != 0u ? globals_u[state] + t : t;
  const uint tid = gl_LocalInvocationIndex;
  for (uint h = 0u; h < heads; ++h) {
    const uint x = pc.args.x + (row * heads + h) * hd;
    float ss = 0.0;
    for (uint k = tid; k < hd; k += 64u) ss += globals_f[x + k] * globals_f[x + k];
    partial[tid] = ss;
    barrier();
    for (uint k = 32u; k > 0u; k >>= 1) {
      if (tid < k) partial[tid] += partial[tid + k];
      barrier();
    }
    const float inv = inversesqrt(partial[0] / float(hd) + pc.args.eps);
    barrier();  // every invocation has read partial[0] before the next head reuses it
    for (uint k = tid; k < hd; k += 64u) globals_f[x + k] = globals_f[x + k] * inv * heap_f[w + k];
  }
}
