#version 450
#extension GL_GOOGLE_include_directive : require
// The per-stream sampler as a stage of its own (DeviceVmOptions::fuse_sampler = false): one
// invocation per stream writes its sampled token for step `step` (sample.glsl). The step kernel
// usually does this itself (vm_step_sampled.comp).
#include "token_vm_args.h"
#define WEFT_ARGS TOKEN_VM_SAMPLE_ARGS
#include "weft.glsl"
#include "token_vm_layout.h"
#include "sample.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint H = pc.args.vm;
  const uint B = heap_u[H + TVM_H_BATCH];
  const uint b = gl_GlobalInvocationID.x;
  if (b >= B) return;
  globals_u[heap_u[H + TVM_H_SAMPLED] + pc.args.step * B + b] = tvm_sample_token(H, B, b, pc.args.step);
}
