/* Arguments of the attention kernels (the .comp files beside it), shared by C++ (ops.cpp) and GLSL.
 * Globals arrays are f32/u32 words; Heap arrays (weights, tables) are GGUF data the kernels read
 * from their first word on (a tensor starts on a 4-byte boundary, model.cpp checks it), or a far
 * segment holding one weight tensor (attention.h: WeightPlacement).
 * `state` is the batch's state words in Globals: pos0, T. */
#ifndef ATTENTION_ARGS_H
#define ATTENTION_ARGS_H
#include "weft_args.h"

/* embed_<type> (embed.glsl): x[t] = row tokens[t] of the `vocab` x `dim` embedding table
 * (dequantized; a token past the vocabulary gives a zero row), one workgroup per token. The table
 * is a range of the window or a Heap far segment holding it alone (then the far variant runs). */
#define ATTENTION_EMBED_ARGS(X) \
  X(WEFT_REF_IN(Heap), table) X(WEFT_U32, dim) X(WEFT_U32, vocab) X(WEFT_IN(Globals), tokens) X(WEFT_OUT(Globals), x)
/* matvec_<type> (matvec.glsl): y[t][n] (+)= sum_k W[n][k] x[t][k] for `rows` rows of `cols`
 * weights; x and y rows are x_stride / y_stride words apart; flags: 1 add to y (the residual
 * connection; the stage then also declares y read), 2 token t writes row pos0 + t (a KV-cache
 * row), 4 one token whatever the batch (the output head on the last token). W is a range of
 * the window or a Heap far segment holding it alone (then the far variant runs). */
#define ATTENTION_MATVEC_ARGS(X)                                                                     \
  X(WEFT_REF_IN(Heap), w) X(WEFT_U32, cols) X(WEFT_U32, rows) X(WEFT_IN(Globals), x) X(WEFT_U32, x_stride) \
  X(WEFT_OUT(Globals), y) X(WEFT_U32, y_stride) X(WEFT_U32, flags) X(WEFT_IN(Globals), state)
/* rmsnorm: normed[t] = x[t] / sqrt(mean(x[t]^2) + eps) * weight, one workgroup per token (mode 0)
 * or only the batch's last token into normed row 0 (mode 1). With a `scale` control word (f32;
 * absent: none) the x row is first multiplied by it in place (the stage then also declares x
 * written; without one it declares the Control header read). */
#define ATTENTION_RMSNORM_ARGS(X)                                                                    \
  X(WEFT_IN(Globals), x) X(WEFT_U32, x_stride) X(WEFT_OUT(Globals), normed) X(WEFT_U32, normed_stride) \
  X(WEFT_IN(Heap), weight) X(WEFT_U32, dim) X(WEFT_F32, eps) X(WEFT_IN(Control), scale) X(WEFT_U32, mode) \
  X(WEFT_IN(Globals), state)
/* rope: rotates each head's pairs of the token's query row and of the key row it wrote to the
 * cache at pos0 + t, by the (cos, sin) `table` [position][head_dim / 2]; one workgroup per token.
 * neox 0: pairs (2i, 2i + 1) (llama); 1: pairs (i, i + head_dim / 2) (qwen2, qwen3). */
#define ATTENTION_ROPE_ARGS(X)                                                                       \
  X(WEFT_INOUT(Globals), q) X(WEFT_U32, heads) X(WEFT_INOUT(Globals), k_cache) X(WEFT_U32, kv_heads)  \
  X(WEFT_U32, head_dim) X(WEFT_IN(Heap), table) X(WEFT_IN(Globals), state) X(WEFT_U32, neox)
/* add_bias: y[row][n] += bias[n] for n < `n`, the batch's rows t (flags 0) or the KV-cache rows
 * pos0 + t (flags 2, as matvec's); rows are y_stride words apart. One workgroup per token. */
#define ATTENTION_ADD_BIAS_ARGS(X)                                                                  \
  X(WEFT_INOUT(Globals), y) X(WEFT_U32, y_stride) X(WEFT_U32, n) X(WEFT_IN(Heap), bias) X(WEFT_U32, flags) \
  X(WEFT_IN(Globals), state)
/* head_norm: RMSNorm of each of `heads` head rows of `head_dim` words in place, times `weight`
 * (head_dim F32 words): the batch's rows t (flags 0) or the KV-cache rows pos0 + t (flags 2),
 * each heads * head_dim words. One workgroup per token. */
#define ATTENTION_HEAD_NORM_ARGS(X)                                                                 \
  X(WEFT_INOUT(Globals), x) X(WEFT_U32, heads) X(WEFT_U32, head_dim) X(WEFT_IN(Heap), weight) X(WEFT_F32, eps) \
  X(WEFT_U32, flags) X(WEFT_IN(Globals), state)
/* attn_scores: scores[t][h][j] = q[t][h] . k_cache[j][h / (heads / kv_heads)] * scale for the
 * causal positions j <= pos0 + t (scores rows are ctx words); one workgroup per (head, token). */
#define ATTENTION_ATTN_SCORES_ARGS(X)                                                                \
  X(WEFT_IN(Globals), q) X(WEFT_IN(Globals), k_cache) X(WEFT_OUT(Globals), scores) X(WEFT_U32, heads) \
  X(WEFT_U32, kv_heads) X(WEFT_U32, head_dim) X(WEFT_U32, ctx) X(WEFT_IN(Globals), state) X(WEFT_F32, scale)
/* softmax: each causal score row in place (max-subtracted); one workgroup per (head, token). */
#define ATTENTION_SOFTMAX_ARGS(X) \
  X(WEFT_INOUT(Globals), scores) X(WEFT_U32, heads) X(WEFT_U32, ctx) X(WEFT_IN(Globals), state)
/* attn_values: att[t][h] = sum_{j <= pos0 + t} P[t][h][j] v_cache[j][h / (heads / kv_heads)];
 * one workgroup per (head, token). */
#define ATTENTION_ATTN_VALUES_ARGS(X)                                                                 \
  X(WEFT_IN(Globals), scores) X(WEFT_IN(Globals), v_cache) X(WEFT_OUT(Globals), att) X(WEFT_U32, heads) \
  X(WEFT_U32, kv_heads) X(WEFT_U32, head_dim) X(WEFT_U32, ctx) X(WEFT_IN(Globals), state)
/* swiglu: gate = silu(gate) * up element-wise, `ffn` words per token, over gate. */
#define ATTENTION_SWIGLU_ARGS(X) X(WEFT_INOUT(Globals), gate) X(WEFT_IN(Globals), up) X(WEFT_U32, ffn)
/* layer_stats: the layer's message (R30 = the last token's hidden state; Metrics norm, max_abs,
 * status and counters) from the batch's hidden states x (`dim` words per token). */
#define ATTENTION_LAYER_STATS_ARGS(X) \
  X(WEFT_IN(Globals), x) X(WEFT_U32, dim) X(WEFT_IN(Globals), state) X(WEFT_U32, layer)
/* sample: the next token from the last token's `vocab` logits (greedy, top-k or the whole
 * vocabulary) with the control words `params` (temperature f32, top_k u32, seed u32), into
 * `sampled` and R30[0]. */
#define ATTENTION_SAMPLE_ARGS(X)                                                                     \
  X(WEFT_IN(Globals), logits) X(WEFT_U32, vocab) X(WEFT_IN(Control), params) X(WEFT_IN(Globals), state) \
  X(WEFT_OUT(Globals), sampled)

#ifdef __cplusplus
namespace weft::attention {
WEFT_KERNEL_ARGS(EmbedArgs, ATTENTION_EMBED_ARGS)
WEFT_KERNEL_ARGS(MatvecArgs, ATTENTION_MATVEC_ARGS)
WEFT_KERNEL_ARGS(RmsnormArgs, ATTENTION_RMSNORM_ARGS)
WEFT_KERNEL_ARGS(RopeArgs, ATTENTION_ROPE_ARGS)
WEFT_KERNEL_ARGS(AddBiasArgs, ATTENTION_ADD_BIAS_ARGS)
WEFT_KERNEL_ARGS(HeadNormArgs, ATTENTION_HEAD_NORM_ARGS)
WEFT_KERNEL_ARGS(AttnScoresArgs, ATTENTION_ATTN_SCORES_ARGS)
WEFT_KERNEL_ARGS(SoftmaxArgs, ATTENTION_SOFTMAX_ARGS)
WEFT_KERNEL_ARGS(AttnValuesArgs, ATTENTION_ATTN_VALUES_ARGS)
WEFT_KERNEL_ARGS(SwigluArgs, ATTENTION_SWIGLU_ARGS)
WEFT_KERNEL_ARGS(LayerStatsArgs, ATTENTION_LAYER_STATS_ARGS)
WEFT_KERNEL_ARGS(SampleArgs, ATTENTION_SAMPLE_ARGS)
}  // namespace weft::attention
#endif
#endif /* ATTENTION_ARGS_H */
