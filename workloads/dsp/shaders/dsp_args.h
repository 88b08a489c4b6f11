/* Arguments of the DSP kernels, shared by C++ and GLSL (bindings_layout/weft_args.h). Batched
 * transforms work on channel y in workgroup row y, whose buffers sit `channel_stride` words after
 * channel 0's (the arguments name channel 0's; the stage declares the other channels' ranges). */
#ifndef DSP_ARGS_H
#define DSP_ARGS_H
#include "weft_args.h"

/* window: frame = w * [history, hop] (complex), then the new hop becomes the next history. */
#define DSP_WINDOW_ARGS(X) \
  X(WEFT_INOUT(Globals), history) X(WEFT_IN(Globals), hop) X(WEFT_IN(Heap), window) X(WEFT_OUT(Globals), frame) X(WEFT_U32, n)
/* fft_forward / fft_inverse: one radix-2 Stockham pass over n complex values. */
#define DSP_FFT_PASS_ARGS(X)                                                                                 \
  X(WEFT_IN(Globals), src) X(WEFT_OUT(Globals), dst) X(WEFT_IN(Heap), twiddles) X(WEFT_U32, n) X(WEFT_U32, ns) \
  X(WEFT_U32, twiddle_stride) X(WEFT_U32, channel_stride)
/* fft_shared_* : a whole transform in one workgroup's shared memory. */
#define DSP_FFT_SHARED_ARGS(X) \
  X(WEFT_IN(Globals), src) X(WEFT_OUT(Globals), dst) X(WEFT_IN(Heap), twiddles) X(WEFT_U32, n) X(WEFT_U32, channel_stride)
/* filter: spectrum[k] *= gains[k] (complex). */
#define DSP_FILTER_ARGS(X) X(WEFT_INOUT(Globals), spectrum) X(WEFT_IN(Heap), gains) X(WEFT_U32, n)
/* overlap_add: the output hop gain * (x / n + tail) into R30, the new tail, the frame count; the
 * gain is a Control word (the clipping rule lowers it), `threshold` the clipping level. */
#define DSP_OVERLAP_ADD_ARGS(X)                                                                           \
  X(WEFT_IN(Globals), x) X(WEFT_INOUT(Globals), tail) X(WEFT_U32, n) X(WEFT_IN(Control), gain)              \
  X(WEFT_INOUT(Globals), frames) X(WEFT_F32, threshold)

#ifdef __cplusplus
namespace weft::dsp {
WEFT_KERNEL_ARGS(WindowArgs, DSP_WINDOW_ARGS)
WEFT_KERNEL_ARGS(FftPassArgs, DSP_FFT_PASS_ARGS)
WEFT_KERNEL_ARGS(FftSharedArgs, DSP_FFT_SHARED_ARGS)
WEFT_KERNEL_ARGS(FilterArgs, DSP_FILTER_ARGS)
WEFT_KERNEL_ARGS(OverlapAddArgs, DSP_OVERLAP_ADD_ARGS)
}  // namespace weft::dsp
#endif
#endif /* DSP_ARGS_H */
