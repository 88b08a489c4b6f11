#version 450
#extension GL_GOOGLE_include_directive : require
// Bias add after a matvec (qwen2's q, k and v): y[row][n] += bias[n], row t of the batch or the
// KV-cache row pos0 + t. One workgroup per token. Arguments: ATTENTION_ADD_BIAS_ARGS.
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_ADD_BIAS_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint t = gl_WorkGroupID.x, state = pc.args.state;
  const uint row = (pc.args.flags & 2u) != 0u ? globals_u[state] + t : t;
  const uint y = pc.args.y + row * pc.args.y_stride, n = pc.args.n, bias = pc.args.bias;
  for (uint k = gl_LocalInvocationIndex; k < n; k += 64u) globals_f[y + k] += heap_f[bias + k];
}
