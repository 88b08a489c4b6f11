#version 450
#extension GL_GOOGLE_include_directive : require
// One Jacobi sweep for A x = b (n <= 64, one workgroup): x_out = D^-1 (b - (A - D) x_in), then
// the residual ||b - A x_out|| as this instance's message norm (max_abs = largest |residual|).
// A is row-major n x n. sequence counts the sweeps that ran.
#include "test_args.h"
#define WEFT_ARGS TEST_JACOBI_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float xs[64];
shared float sq[64];
shared float mx[64];

void main() {
  const uvec2 start = weft_clock();
  const uint t = gl_LocalInvocationIndex;
  const uint a = pc.args.a, b = pc.args.b, xin = pc.args.x_in, xout = pc.args.x_out, n = pc.args.n;
  float x = 0.0;
  if (t < n) {
    float s = heap_f[b + t];
    for (uint j = 0u; j < n; ++j)
      if (j != t) s -= heap_f[a + t * n + j] * globals_f[xin + j];
    x = s / heap_f[a + t * n + t];
    globals_f[xout + t] = x;
  }
  xs[t] = x;
  barrier();
  float r = 0.0;
  if (t < n) {
    r = heap_f[b + t];
    for (uint j = 0u; j < n; ++j) r -= heap_f[a + t * n + j] * xs[j];
  }
  sq[t] = r * r;
  mx[t] = abs(r);
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (t < k) {
      sq[t] += sq[t + k];
      mx[t] = max(mx[t], mx[t + k]);
    }
    barrier();
  }
  if (t == 0u) weft_message_write(sqrt(sq[0]), mx[0], WEFT_STATUS_OK, weft_ticks_since(start));
}
