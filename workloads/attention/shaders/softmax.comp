#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax of each causal score row in place, one workgroup per (head, token): the row of the
// token at position p = pos0 + t holds p + 1 scores. Max-subtracted, so exp never overflows.
// user: [0] scores (Globals word, [T][heads][ctx]), [1] heads, [2] ctx, [3] state.
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float partial[64];

void main() {
  const uint s0 = pc.user[0], heads = pc.user[1], ctx = pc.user[2], state = pc.user[3];
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
