/* Typed stage arguments: each kernel's push arguments, declared once for C++ and GLSL.
 *
 * A kernel's arguments are an X-macro list of (type, name) pairs, usually in its workload's
 * shared header:
 *
 *     #define SCALE_ARGS(X) X(WEFT_IN(Heap), src) X(WEFT_OUT(Globals), dst) X(WEFT_F32, gain) X(WEFT_U32, n)
 *     WEFT_KERNEL_ARGS(ScaleArgs, SCALE_ARGS)
 *
 * The kernel names its list before including weft.glsl and reads the fields by name:
 *
 *     #include "scale_args.h"
 *     #define WEFT_ARGS SCALE_ARGS
 *     #include "weft.glsl"
 *     ...  globals_f[pc.args.dst + i] = pc.args.gain * heap_f[pc.args.src + i];
 *
 * and C++ fills the struct WEFT_KERNEL_ARGS declared (designated initializers keep the names):
 *
 *     stage.args = ScaleArgs{.src = p.segment(Binding::Heap, "x"), .dst = out, .gain = 0.5f, .n = n}.bind();
 *
 * Types: WEFT_IN(B) / WEFT_OUT(B) / WEFT_INOUT(B) are segment arguments of binding B (Registers,
 * Metrics, Globals, Control, Heap): the stage gives a byte range of B, the kernel receives the
 * range's first word index, and the range is declared read, written or both, so the barrier
 * planner sees exactly what the kernel is told to touch. WEFT_FAR_IN(B) / WEFT_FAR_OUT(B) /
 * WEFT_FAR_INOUT(B) take a far segment of Heap or Globals (SegmentLayout::add_far): the kernel
 * receives its index and reaches it through the far helpers of weft.glsl. WEFT_REF_IN(B) /
 * WEFT_REF_OUT(B) / WEFT_REF_INOUT(B) take either (a range of the window, or a whole far segment)
 * and push a segment reference: the range's first word, or WEFT_REF_FAR | the far index, which
 * weft.glsl's weft_ref_is_far / weft_ref_far tell apart; a stage binding one to a far segment runs
 * the kernel's far variant (FAR_KERNELS). WEFT_U32 / WEFT_I32 / WEFT_F32 are
 * 32-bit scalars. At most WEFT_PUSH_ARG_WORDS arguments, one word each.
 *
 * The engine learns a kernel's list by preprocessing the kernel with WEFT_DESCRIBE_ARGS defined
 * (at build time for embedded kernels, when compiling for run-time ones), binds a stage's
 * arguments by name against it, and refuses a missing, extra or mistyped argument.
 */
#ifndef WEFT_ARGS_H
#define WEFT_ARGS_H

#if defined(WEFT_DESCRIBE_ARGS)
/* Preprocessing only: weft.glsl prints one `weft_signature_arg TYPE [BINDING] NAME ;` per argument. */
#define WEFT_IN(binding) in binding
#define WEFT_OUT(binding) out binding
#define WEFT_INOUT(binding) inout binding
#define WEFT_FAR_IN(binding) far_in binding
#define WEFT_FAR_OUT(binding) far_out binding
#define WEFT_FAR_INOUT(binding) far_inout binding
#define WEFT_REF_IN(binding) ref_in binding
#define WEFT_REF_OUT(binding) ref_out binding
#define WEFT_REF_INOUT(binding) ref_inout binding
#define WEFT_U32 u32
#define WEFT_I32 i32
#define WEFT_F32 f32
#define WEFT_KERNEL_ARGS(Name, LIST)

#elif defined(__cplusplus)
#include <cstdint>
#include <vector>

#include <weft/args.h>

#define WEFT_IN(binding) ::weft::In<::weft::Binding::binding>
#define WEFT_OUT(binding) ::weft::Out<::weft::Binding::binding>
#define WEFT_INOUT(binding) ::weft::InOut<::weft::Binding::binding>
#define WEFT_FAR_IN(binding) ::weft::FarIn<::weft::Binding::binding>
#define WEFT_FAR_OUT(binding) ::weft::FarOut<::weft::Binding::binding>
#define WEFT_FAR_INOUT(binding) ::weft::FarInOut<::weft::Binding::binding>
#define WEFT_REF_IN(binding) ::weft::RefIn<::weft::Binding::binding>
#define WEFT_REF_OUT(binding) ::weft::RefOut<::weft::Binding::binding>
#define WEFT_REF_INOUT(binding) ::weft::RefInOut<::weft::Binding::binding>
#define WEFT_U32 ::std::uint32_t
#define WEFT_I32 ::std::int32_t
#define WEFT_F32 float
#define WEFT_CPP_ARG_FIELD(type, name) type name{};
#define WEFT_CPP_ARG_BIND(type, name) bound.push_back(::weft::stage_arg(#name, name));
#define WEFT_KERNEL_ARGS(Name, LIST)                        \
  struct Name {                                             \
    LIST(WEFT_CPP_ARG_FIELD)                                \
    ::std::vector<::weft::StageArg> bind() const {          \
      ::std::vector<::weft::StageArg> bound;                \
      LIST(WEFT_CPP_ARG_BIND)                               \
      return bound;                                         \
    }                                                       \
  };

#else /* GLSL */
#define WEFT_IN(binding) uint
#define WEFT_OUT(binding) uint
#define WEFT_INOUT(binding) uint
#define WEFT_FAR_IN(binding) uint
#define WEFT_FAR_OUT(binding) uint
#define WEFT_FAR_INOUT(binding) uint
#define WEFT_REF_IN(binding) uint
#define WEFT_REF_OUT(binding) uint
#define WEFT_REF_INOUT(binding) uint
#define WEFT_U32 uint
#define WEFT_I32 int
#define WEFT_F32 float
#define WEFT_KERNEL_ARGS(Name, LIST)
#endif

#endif /* WEFT_ARGS_H */
