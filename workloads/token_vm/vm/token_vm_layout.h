/* The token VM's device layout: included by the C++ host (the vm .cpp files) and by the kernels
 * (the vm shaders), so both halves agree on every word.
 *
 * Heap (read-only to kernels) begins with a header of TVM_H_* words giving sizes and the word
 * offsets of the tables: zones (16 words each, workflow.h's Zone as it is), loops (2 words),
 * patterns (4 words), pattern_tokens, pattern_bytes (one byte per word), token_data, and for
 * MatchMode::Byte the vocabulary's bytes (vocab_offsets[V + 1] into vocab_bytes, one byte per
 * word).
 *
 * Globals holds the per-stream state as struct-of-arrays (field f of stream b at
 * state + f * B + b for the TVM_S_* scalar fields; the arrays after them are described at
 * TVM_S_COUNT), the sampled tokens of every step of a submission ([steps][B]), the trace of
 * every step ([steps][B][TVM_TRACE_WORDS]) and, for the sampler, logits ([B][V] floats).
 */
#ifndef TOKEN_VM_LAYOUT_H
#define TOKEN_VM_LAYOUT_H

/* ---- Heap header words ------------------------------------------------------------------ */
#define TVM_H_ZONE_COUNT      0u
#define TVM_H_LOOP_COUNT      1u
#define TVM_H_BATCH           2u
#define TVM_H_CONTROL         3u  /* pattern index or TVM_NONE */
#define TVM_H_ESCAPE_OPEN     4u
#define TVM_H_ESCAPE_CLOSE    5u
#define TVM_H_MATCH_MODE      6u  /* 0 token, 1 byte */
#define TVM_H_PAD             7u
#define TVM_H_FEED_CAPACITY   8u  /* tokens per stream's feed slot */
#define TVM_H_CAPTURE_CAPACITY 9u /* tokens per stream's capture buffer */
#define TVM_H_VOCAB_SIZE      10u /* byte mode: tokens >= this contribute no bytes */
#define TVM_H_ZONES           11u /* word offsets in Heap */
#define TVM_H_LOOPS           12u
#define TVM_H_PATTERNS        13u
#define TVM_H_PATTERN_TOKENS  14u
#define TVM_H_PATTERN_BYTES   15u
#define TVM_H_TOKEN_DATA      16u
#define TVM_H_VOCAB_OFFSETS   17u
#define TVM_H_VOCAB_BYTES     18u
#define TVM_H_STATE           19u /* word offsets in Globals */
#define TVM_H_SAMPLED         20u
#define TVM_H_TRACE           21u
#define TVM_H_LOGITS          22u
#define TVM_H_VOCAB_LOGITS    23u /* V of the logits rows (sampler) */
#define TVM_H_SAMPLER         24u /* Globals word of the sampler parameters (TVM_P_*) */
#define TVM_H_WORDS           25u

#define TVM_NONE 0xFFFFFFFFu

/* ---- per-stream scalar state fields (each B words) --------------------------------------- */
#define TVM_S_PC          0u  /* zone; == zone count: DONE */
#define TVM_S_TOKEN_NUM   1u  /* tokens emitted in the zone (forced + feed + generated) */
#define TVM_S_GENERATED   2u  /* sampled (incl. timeout) tokens emitted in the zone */
#define TVM_S_FEED_POS    3u  /* next token of the feed message */
#define TVM_S_FEEDING     4u  /* 1: this zone has taken the feed message */
#define TVM_S_DEPTH       5u  /* escape depth */
#define TVM_S_HIST_COUNT  6u  /* units (tokens or bytes) seen in the zone */
#define TVM_S_STATUS      7u  /* TVM_RUNNING / TVM_WAIT_TOOL / TVM_DONE after the last step */
#define TVM_S_FEED_LEN    8u  /* length of the queued feed message; TVM_NONE: slot empty */
#define TVM_S_CAPTURE_LEN 9u  /* tokens captured for the current/last Output zone */
#define TVM_S_READY_TOOL  10u /* tool of a call ready for the host; TVM_NONE: none */
#define TVM_S_READY_LEN   11u /* captured tokens of that call */
#define TVM_S_COUNT       12u
/* After the scalars, in this order:
 *   history  [TVM_HISTORY][B]   unit k of stream b at (k * B + b); ring by hist_count
 *   counters [loops][B]
 *   feed     [B][feed capacity]
 *   capture  [B][capture capacity]                                                          */
#define TVM_HISTORY 32u       /* = kMaxPatternLength */

#define TVM_RUNNING   0u
#define TVM_WAIT_TOOL 1u
#define TVM_DONE      2u

/* ---- trace: one record per stream per step ----------------------------------------------- */
#define TVM_TRACE_WORDS 5u
#define TVM_T_TOKEN     0u  /* the token the model must consume */
#define TVM_T_TAGS      1u  /* tag bits painted on it (pre-transition zone) */
#define TVM_T_PC        2u  /* zone the token was chosen in (before the transition) */
#define TVM_T_TOKEN_NUM 3u  /* token_num it was chosen at */
#define TVM_T_BITS      4u  /* source, raw pattern hits, transition, loop forcing, depth */

/* bits 0-2: who supplied the token */
#define TVM_SRC_FORCED  0u
#define TVM_SRC_FEED    1u
#define TVM_SRC_SAMPLED 2u
#define TVM_SRC_TIMEOUT 3u
#define TVM_SRC_WAIT    4u  /* pad: waiting for a feed message or for a tool call's collection */
#define TVM_SRC_DONE    5u  /* pad: the stream is DONE */
#define TVM_SRC_MASK    7u
/* raw pattern hits on this token (whatever the escape depth) */
#define TVM_HIT_CLOSE       (1u << 3)   /* the zone's close pattern */
#define TVM_HIT_CONTROL     (1u << 4)
#define TVM_HIT_ESC_OPEN    (1u << 5)
#define TVM_HIT_ESC_CLOSE   (1u << 6)
/* bits 8-9: the transition taken */
#define TVM_TRANSITION_SHIFT 8u
#define TVM_TR_NONE    0u
#define TVM_TR_ADVANCE 1u
#define TVM_TR_JUMP    2u
#define TVM_TR_TIMEOUT 3u
#define TVM_LOOP_FORCED     (1u << 10)  /* a loop bound overrode the exit */
#define TVM_CALL_READY      (1u << 11)  /* leaving an Output zone made a tool call ready */
#define TVM_FEED_DONE       (1u << 12)  /* leaving the zone released its feed message */
/* bits 16-31: escape depth after the token, saturated at 0xFFFF */
#define TVM_DEPTH_SHIFT 16u

/* ---- sampler parameters (Globals words at TVM_H_SAMPLER, written before each submission) -- */
#define TVM_P_MODE       0u
#define TVM_P_SEED       1u
#define TVM_P_SCALE      2u  /* f32 bits */
#define TVM_P_FIRST_STEP 3u  /* step index of slot 0: the random draw of slot i uses first_step + i */
#define TVM_P_WORDS      4u
/* ---- sampler modes ---------------------------------------------------------------- */
#define TVM_SAMPLE_ARGMAX    0u
#define TVM_SAMPLE_QUANTIZED 1u
/* Quantized sampling: q = floor((logit - max) * scale) clamped to [-TVM_Q_RANGE, 0];
 * weight = TVM_Q_TABLE[(-q) % 16] >> ((-q) / 16): integers only, so every device and the CPU
 * draw the same token for the same seed. */
#define TVM_Q_RANGE 255

#endif /* TOKEN_VM_LAYOUT_H */
