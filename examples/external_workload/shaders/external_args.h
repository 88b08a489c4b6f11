/* Arguments of this workload's kernels, shared by its C++ and its GLSL (weft_args.h). */
#ifndef EXTERNAL_ARGS_H
#define EXTERNAL_ARGS_H
#include "weft_args.h"

/* poly: y[i] = c0 + c1 x[i] + c2 x[i]^2 for n items; positive += the count of x[i] > 0. */
#define POLY_ARGS(X) \
  X(WEFT_IN(Heap), coeff) X(WEFT_IN(Heap), x) X(WEFT_OUT(Globals), y) X(WEFT_INOUT(Globals), positive) X(WEFT_U32, n)
/* block_sum: sums[b] = the sum of block b of y, for `blocks` blocks of `block` items. */
#define BLOCK_SUM_ARGS(X) X(WEFT_IN(Globals), y) X(WEFT_OUT(Globals), sums) X(WEFT_U32, block) X(WEFT_U32, blocks)

#ifdef __cplusplus
WEFT_KERNEL_ARGS(PolyArgs, POLY_ARGS)
WEFT_KERNEL_ARGS(BlockSumArgs, BLOCK_SUM_ARGS)
#endif
#endif
