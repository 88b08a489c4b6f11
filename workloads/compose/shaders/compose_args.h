/* The adapter kernels' arguments: declared once, read by the kernels (pc.args.<name>) and bound
 * by the compositions (<Kernel>Args{...}.bind()). See bindings_layout/weft_args.h. */
#ifndef COMPOSE_ARGS_H
#define COMPOSE_ARGS_H

#include "weft_args.h"

/* copy_words: `count` words from one Globals segment to another (a KV cache handed on). */
#define COMPOSE_COPY_WORDS_ARGS(X) X(WEFT_IN(Globals), source) X(WEFT_OUT(Globals), destination) X(WEFT_U32, count)
/* features: each DSP channel's filtered hop (its outbox, `hop_stride` Registers words apart)
 * projected to one decoder input row: rows[t] = projection (dim x hop_floats) * hop_t. */
#define COMPOSE_FEATURES_ARGS(X)                                                                                      \
  X(WEFT_IN(Registers), hops) X(WEFT_U32, hop_stride) X(WEFT_U32, hop_floats) X(WEFT_IN(Heap), projection)              \
  X(WEFT_U32, dim) X(WEFT_OUT(Globals), rows) X(WEFT_U32, tokens) X(WEFT_OUT(Globals), rows_copy)
/* mask_logits: the token VM's logit mask for the zone its stream is in (`zone_word`, the VM
 * state's pc of the stream): logits of tokens outside the zone's allowed set become -inf before
 * the sampler draws. zone_sets (Heap): per zone a set index or 0xFFFFFFFF (any token);
 * set_bits (Heap): per set `set_words` words of one bit per token. */
#define COMPOSE_MASK_LOGITS_ARGS(X)                                                                          \
  X(WEFT_OUT(Globals), logits) X(WEFT_U32, vocabulary) X(WEFT_IN(Globals), zone_word) X(WEFT_U32, zones) \
  X(WEFT_IN(Heap), zone_sets) X(WEFT_IN(Heap), set_bits) X(WEFT_U32, set_words)
/* feedback: the token the VM emitted for stream b (its trace row) becomes decoder b's next token;
 * stream_words (Control) holds decoder b's `tokens` word at [b] and its `state` word at [B + b]. */
#define COMPOSE_FEEDBACK_ARGS(X) X(WEFT_U32, streams) X(WEFT_IN(Globals), trace_row) X(WEFT_IN(Control), stream_words)
/* handoff: the token decoder b sampled becomes stream b's sampled token of this VM step (ids past
 * the tokenizer's vocabulary become the pad token); stream_words (Control) holds decoder b's
 * `sampled` word at [b]. */
#define COMPOSE_HANDOFF_ARGS(X)                                                                          \
  X(WEFT_U32, streams) X(WEFT_OUT(Globals), sampled_row) X(WEFT_U32, vocabulary) X(WEFT_U32, pad_token) \
  X(WEFT_IN(Control), stream_words)
/* launch: the search's best move for root 0 picks the disc's velocity from a per-column table. */
#define COMPOSE_LAUNCH_ARGS(X) \
  X(WEFT_IN(Globals), results) X(WEFT_IN(Heap), launch_table) X(WEFT_U32, columns) X(WEFT_OUT(Globals), velocities)
/* outcome: where the disc came to rest picks the column played on the first search's root; the
 * position after it becomes the second search's root. */
#define COMPOSE_OUTCOME_ARGS(X)                                                                                  \
  X(WEFT_IN(Globals), positions) X(WEFT_F32, columns_per_length) X(WEFT_U32, width) X(WEFT_U32, height)           \
  X(WEFT_IN(Globals), played_roots) X(WEFT_IN(Globals), played_results) X(WEFT_OUT(Globals), next_root)
/* retrieve: the DB output's rows scored against a query vector; the k best become the continuing
 * decoder's input rows. `query_result` is the DB output's outbox [perm word, first row, rows,
 * error bits]; `columns` its column table (D + 1 value words). */
#define COMPOSE_RETRIEVE_ARGS(X)                                                                                    \
  X(WEFT_IN(Registers), query_result) X(WEFT_IN(Globals), columns) X(WEFT_U32, dim) X(WEFT_IN(Globals), query_vector) \
  X(WEFT_U32, k) X(WEFT_OUT(Globals), scores) X(WEFT_OUT(Globals), rows) X(WEFT_OUT(Globals), rows_copy)              \
  X(WEFT_OUT(Globals), picks) X(WEFT_U32, capacity)
/* select: the node ids a query selected (output column 0, int64) become the GNN's node mask. */
#define COMPOSE_SELECT_ARGS(X) X(WEFT_IN(Globals), ids) X(WEFT_OUT(Globals), mask) X(WEFT_U32, nodes)

#ifdef __cplusplus
namespace weft::compose {
WEFT_KERNEL_ARGS(CopyWordsArgs, COMPOSE_COPY_WORDS_ARGS)
WEFT_KERNEL_ARGS(FeaturesArgs, COMPOSE_FEATURES_ARGS)
WEFT_KERNEL_ARGS(FeedbackArgs, COMPOSE_FEEDBACK_ARGS)
WEFT_KERNEL_ARGS(HandoffArgs, COMPOSE_HANDOFF_ARGS)
WEFT_KERNEL_ARGS(LaunchArgs, COMPOSE_LAUNCH_ARGS)
WEFT_KERNEL_ARGS(MaskLogitsArgs, COMPOSE_MASK_LOGITS_ARGS)
WEFT_KERNEL_ARGS(OutcomeArgs, COMPOSE_OUTCOME_ARGS)
WEFT_KERNEL_ARGS(RetrieveArgs, COMPOSE_RETRIEVE_ARGS)
WEFT_KERNEL_ARGS(SelectArgs, COMPOSE_SELECT_ARGS)
}  // namespace weft::compose
#endif
#endif /* COMPOSE_ARGS_H */
