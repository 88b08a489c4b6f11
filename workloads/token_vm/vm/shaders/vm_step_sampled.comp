#version 450
#extension GL_GOOGLE_include_directive : require
// One token VM step for every stream with the per-stream sampler fused in: each invocation draws
// its stream's token from its logits row (sample.glsl), records it and steps (vm_step.glsl).
#define TVM_STEP_SAMPLES 1
#include "vm_step.glsl"
