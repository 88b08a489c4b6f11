#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax of each causal score row in place, one workgroup per (head, token): the row of the
// token at position p = pos0 + t holds p + 1 scores ([T][heads][ctx]). Max-subtracted, so exp
// never overflows. Arguments: ATTENTION_SOFTMAX_ARGS (attention_args.h).
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_SOFTMAX_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float partial[64];

void main() {
  const uint s0 = pc.args.scores, heads = pc.args.heads, ctx = pc.args.ctx, state = pc.args.state;
  const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y, n = globals_u[state] + t + 1u, tid = gl_LocalInvocationIndex;
  const uint s = s0 + (t * heads + h) * ctx;
  float m = -3.402823466e38;
  for (uint j = tid; j < n; j += 64u) m = max(m, globals_f[s + j]);
  partial[tid] = m;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (tid < k) partial[tid] = max(partial[tid], partial[tid + k]);
    barrier();
  }
  const float mx = partial[0];
  barrier();
  float sum = 0.0;
  for (uint j = tid; j < n; j += 64u) {
    const float e = exp(globals_f[s + j] - mx);
    globals_f[s + j] = e;
    sum += e;
  }
  partial[tid] = sum;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (tid < k) partial[tid] += partial[tid + k];
    barrier();
  }
  const float inv = 1.0 / partial[0];
  for (uint j = tid; j < n; j += 64u) globals_f[s + j] *= inv;
}
