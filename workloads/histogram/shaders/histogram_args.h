/* Arguments of the histogram workload's kernel, shared by its C++ and its GLSL (weft_args.h). */
#ifndef HISTOGRAM_ARGS_H
#define HISTOGRAM_ARGS_H
#include "weft_args.h"

/* count: bins[min(values[i] >> shift, bins_count - 1)] += 1 for i < n (the last bin collects the
 * overflow); a workgroup counts in shared memory, then adds its counts to the Globals bins. */
#define HISTOGRAM_COUNT_ARGS(X) \
  X(WEFT_IN(Heap), values) X(WEFT_INOUT(Globals), bins) X(WEFT_U32, n) X(WEFT_U32, shift) X(WEFT_U32, bins_count)

#ifdef __cplusplus
namespace weft::histogram {
WEFT_KERNEL_ARGS(CountArgs, HISTOGRAM_COUNT_ARGS)
}  // namespace weft::histogram
#endif
#endif /* HISTOGRAM_ARGS_H */
