#version 450
#extension GL_GOOGLE_include_directive : require
// RoPE: in every head pair i — (2i, 2i+1) in ggml's "normal" mode (llama), (i, i + head_dim/2)
// in its NeoX mode (qwen2, qwen3) — is rotated by pos * base^(-2i / head_dim). One workgroup per token; it rotates
// the token's query row and the key row it wrote to the cache at pos0 + t. cos/sin come from a
// table the host computed in double (Heap, [position][i] as (cos, sin)), so every device gets
// the same rounding instead of its own sin/cos precision. q rows are heads*hd words apart, k
// cache rows kv_heads*hd. Arguments: ATTENTION_ROPE_ARGS (attention_args.h).
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_ROPE_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint q = pc.args.q, heads = pc.args.heads, k = pc.args.k_cache, kv_heads = pc.args.kv_heads, hd = pc.args.head_dim;
  const uint table = pc.args.table, state = pc.args.state;
  const uint t = gl_WorkGroupID.x, pos = globals_u[state] + t, half_hd = hd / 2u;
  const uint q_pairs = heads * half_hd, pairs = (heads + kv_heads) * half_hd;
  for (uint p = gl_LocalInvocationIndex; p < pairs; p += 64u) {
    const bool is_q = p < q_pairs;
    const uint pp = is_q ? p : p - q_pairs;
    const uint head = pp / half_hd, i = pp - head * half_hd;
    const uint base = is_q ? q + t * heads * hd : k + pos * kv_heads * hd;
    const uint a = base + head * hd + (pc.args.neox != 0u ? i : 2u * i), b = a + (pc.args.neox != 0u ? half_hd : 1u);
    const float c = heap_f[table + 2u * (pos * half_hd + i)], s = heap_f[table + 2u * (pos * half_hd + i) + 1u];
    const float x0 = globals_f[a], x1 = globals_f[b];
    globals_f[a] = x0 * c - x1 * s;
    globals_f[b] = x0 * s + x1 * c;
  }
}
