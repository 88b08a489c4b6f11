/* Arguments of the kernels the engine ships (the .comp files beside it), shared by C++ and GLSL. */
#ifndef WEFT_ENGINE_ARGS_H
#define WEFT_ENGINE_ARGS_H
#include "weft_args.h"

/* copy: dst[i] = src[i] for `count` 16-byte units; both ranges 16-byte aligned. */
#define WEFT_COPY_ARGS(X) X(WEFT_IN(Globals), src) X(WEFT_OUT(Globals), dst) X(WEFT_U32, count)
/* far_copy: dst record i = src record i for `count` 16-byte records of two Globals far segments. */
/* loop_probe: the iterations a loop asked for `iterations` really ran, into `ran`. */
#define WEFT_LOOP_PROBE_ARGS(X) X(WEFT_U32, iterations) X(WEFT_OUT(Globals), ran)
#define WEFT_FAR_COPY_ARGS(X) X(WEFT_FAR_IN(Globals), src) X(WEFT_FAR_OUT(Globals), dst) X(WEFT_U32, count)
/* fill: `count` words from dst on are set to `value`. */
#define WEFT_FILL_ARGS(X) X(WEFT_OUT(Globals), dst) X(WEFT_U32, count) X(WEFT_U32, value)
/* regulator: evaluates `rule_count` WeftRule records from `rules` on (and counts their firings). */
#define WEFT_REGULATOR_ARGS(X) X(WEFT_INOUT(Control), rules) X(WEFT_U32, rule_count)

#ifdef __cplusplus
namespace weft {
WEFT_KERNEL_ARGS(CopyArgs, WEFT_COPY_ARGS)
WEFT_KERNEL_ARGS(LoopProbeArgs, WEFT_LOOP_PROBE_ARGS)
WEFT_KERNEL_ARGS(FarCopyArgs, WEFT_FAR_COPY_ARGS)
WEFT_KERNEL_ARGS(FillArgs, WEFT_FILL_ARGS)
WEFT_KERNEL_ARGS(RegulatorArgs, WEFT_REGULATOR_ARGS)
}  // namespace weft
#endif
#endif /* WEFT_ENGINE_ARGS_H */
