/* Arguments of the token VM kernels (the .comp files beside it), shared by C++ (device_vm.cpp) and GLSL.
 * `vm` is the VM's Heap segment: it starts with the header (token_vm_layout.h, TVM_H_*) that
 * gives every table and every Globals array (state, sampled tokens, trace, logits, sampler
 * parameters); `step` is the step slot of this submission, the row of the sampled tokens and of
 * the trace the stage uses. */
#ifndef TOKEN_VM_ARGS_H
#define TOKEN_VM_ARGS_H
#include "weft_args.h"

/* vm_step: one VM step of every stream (one invocation per stream): token choice, matching,
 * transition, tags, capture and feed, as the CPU reference does. vm_step_sampled: the same with
 * the per-stream sampler fused in (each invocation samples its stream's token first). */
#define TOKEN_VM_STEP_ARGS(X) X(WEFT_IN(Heap), vm) X(WEFT_U32, step)
/* sample / sample_rows: the sampled token of every stream for step `step`, from its row of
 * logits (argmax or quantized sampling, as vm/sampler.cpp); one invocation (sample, when not
 * fused into the step) or one workgroup (sample_rows) per stream. */
#define TOKEN_VM_SAMPLE_ARGS(X) X(WEFT_IN(Heap), vm) X(WEFT_U32, step)

#ifdef __cplusplus
namespace weft::token_vm {
WEFT_KERNEL_ARGS(StepArgs, TOKEN_VM_STEP_ARGS)
WEFT_KERNEL_ARGS(SampleArgs, TOKEN_VM_SAMPLE_ARGS)
}  // namespace weft::token_vm
#endif
#endif /* TOKEN_VM_ARGS_H */
