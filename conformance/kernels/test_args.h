/* Arguments of the test kernels (the .comp files beside this one), shared by C++ and GLSL. */
#ifndef WEFT_TEST_ARGS_H
#define WEFT_TEST_ARGS_H
#include "weft_args.h"

/* chain_step: outbox[j] = inbox[j] * mul + add. */
#define TEST_CHAIN_STEP_ARGS(X) X(WEFT_F32, mul) X(WEFT_F32, add)
/* consume: dst[i] = src[i] * control word (mode 0, f32 gain) or i < word ? src[i] + 1 : 0 (mode 1). */
#define TEST_CONSUME_ARGS(X) \
  X(WEFT_IN(Control), word) X(WEFT_IN(Globals), src) X(WEFT_OUT(Globals), dst) X(WEFT_U32, n) X(WEFT_U32, mode)
/* count_above: list = indices of items above threshold (list[0] = count); the slot's x = ceil(count / 64). */
#define TEST_COUNT_ABOVE_ARGS(X) \
  X(WEFT_IN(Globals), items) X(WEFT_U32, n) X(WEFT_F32, threshold) X(WEFT_OUT(Globals), list) X(WEFT_OUT(Control), slot)
/* globals_add: words[i] += add for `count` words. */
#define TEST_GLOBALS_ADD_ARGS(X) X(WEFT_INOUT(Globals), words) X(WEFT_U32, count) X(WEFT_U32, add)
/* globals_copy: dst[i] = src[i] * mul + add for `count` words. */
#define TEST_GLOBALS_COPY_ARGS(X) \
  X(WEFT_IN(Globals), src) X(WEFT_OUT(Globals), dst) X(WEFT_U32, count) X(WEFT_U32, mul) X(WEFT_U32, add)
/* far_gather: gathered[k] = word index[k] of the Heap far segment `table` (records of record_words). */
#define TEST_FAR_GATHER_ARGS(X) \
  X(WEFT_FAR_IN(Heap), table) X(WEFT_IN(Globals), index) X(WEFT_OUT(Globals), gathered) X(WEFT_U32, count) X(WEFT_U32, record_words)
/* ref_gather: as far_gather, through a segment reference (either placement; 4-byte records). */
#define TEST_REF_GATHER_ARGS(X) \
  X(WEFT_REF_IN(Heap), table) X(WEFT_IN(Globals), index) X(WEFT_OUT(Globals), gathered) X(WEFT_U32, count)
/* far_transform: dst = src * mul + add over `records` records of record_words, far to far. */
#define TEST_FAR_TRANSFORM_ARGS(X) \
  X(WEFT_FAR_IN(Heap), src) X(WEFT_FAR_OUT(Globals), dst) X(WEFT_U32, records) X(WEFT_U32, record_words) X(WEFT_U32, mul) X(WEFT_U32, add)
/* jacobi: x_out = D^-1 (b - (A - D) x_in) for an n x n system, n <= 64. */
#define TEST_JACOBI_ARGS(X) \
  X(WEFT_IN(Heap), a) X(WEFT_IN(Heap), b) X(WEFT_IN(Globals), x_in) X(WEFT_OUT(Globals), x_out) X(WEFT_U32, n)
/* layout_probe: echoes its twenty argument words (the whole argument area) into its registers. */
#define TEST_LAYOUT_PROBE_ARGS(X) \
  X(WEFT_U32, a0) X(WEFT_U32, a1) X(WEFT_U32, a2) X(WEFT_U32, a3) X(WEFT_U32, a4) X(WEFT_U32, a5) X(WEFT_U32, a6) \
  X(WEFT_U32, a7) X(WEFT_U32, a8) X(WEFT_U32, a9) X(WEFT_U32, a10) X(WEFT_U32, a11) X(WEFT_U32, a12) \
  X(WEFT_U32, a13) X(WEFT_U32, a14) X(WEFT_U32, a15) X(WEFT_U32, a16) X(WEFT_U32, a17) X(WEFT_U32, a18) X(WEFT_U32, a19)
/* metric_source: this instance's whole Metrics record = 16 Globals words from `record`. */
#define TEST_METRIC_SOURCE_ARGS(X) X(WEFT_IN(Globals), record)
/* process_list: counts[list item] += 1 per listed item; `groups` = the dispatch size it ran with. */
#define TEST_PROCESS_LIST_ARGS(X) X(WEFT_IN(Globals), list) X(WEFT_INOUT(Globals), counts) X(WEFT_OUT(Globals), groups)
/* status_gate: dst[i] = src[i] + 1 when instance `gate`'s status is OK, else 0xFFFFFFFF. */
#define TEST_STATUS_GATE_ARGS(X) X(WEFT_U32, gate) X(WEFT_IN(Globals), src) X(WEFT_OUT(Globals), dst) X(WEFT_U32, n)
/* tally: counter[0] += 1 and counter[1] += tag per workgroup. */
#define TEST_TALLY_ARGS(X) X(WEFT_INOUT(Globals), counter) X(WEFT_U32, tag)
/* tick: counter += 1; the new value becomes this instance's Metrics counter 0. */
#define TEST_TICK_ARGS(X) X(WEFT_INOUT(Globals), counter)
/* spin: `rounds` x 2^15 rounds of arithmetic per invocation (a long, finite stage). */
#define TEST_SPIN_ARGS(X) X(WEFT_U32, rounds) X(WEFT_OUT(Globals), sink)

#ifdef __cplusplus
namespace weft::conformance {
WEFT_KERNEL_ARGS(ChainStepArgs, TEST_CHAIN_STEP_ARGS)
WEFT_KERNEL_ARGS(ConsumeArgs, TEST_CONSUME_ARGS)
WEFT_KERNEL_ARGS(CountAboveArgs, TEST_COUNT_ABOVE_ARGS)
WEFT_KERNEL_ARGS(GlobalsAddArgs, TEST_GLOBALS_ADD_ARGS)
WEFT_KERNEL_ARGS(GlobalsCopyArgs, TEST_GLOBALS_COPY_ARGS)
WEFT_KERNEL_ARGS(FarGatherArgs, TEST_FAR_GATHER_ARGS)
WEFT_KERNEL_ARGS(FarTransformArgs, TEST_FAR_TRANSFORM_ARGS)
WEFT_KERNEL_ARGS(RefGatherArgs, TEST_REF_GATHER_ARGS)
WEFT_KERNEL_ARGS(JacobiArgs, TEST_JACOBI_ARGS)
WEFT_KERNEL_ARGS(MetricSourceArgs, TEST_METRIC_SOURCE_ARGS)
WEFT_KERNEL_ARGS(ProcessListArgs, TEST_PROCESS_LIST_ARGS)
WEFT_KERNEL_ARGS(StatusGateArgs, TEST_STATUS_GATE_ARGS)
WEFT_KERNEL_ARGS(TallyArgs, TEST_TALLY_ARGS)
WEFT_KERNEL_ARGS(TickArgs, TEST_TICK_ARGS)
WEFT_KERNEL_ARGS(SpinArgs, TEST_SPIN_ARGS)
}  // namespace weft::conformance
#endif
#endif /* WEFT_TEST_ARGS_H */
