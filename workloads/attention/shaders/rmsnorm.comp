#version 450
#extension GL_GOOGLE_include_directive : require
// RMSNorm, one workgroup per token: normed[t] = x[t] / sqrt(mean(x[t]^2) + eps) * weight (F32).
// When a scale word is given (the layer's residual scale, 1.0 unless the activation-norm rule
// lowered it) the residual stream row is first multiplied by it in place; the normalised output
// does not change (RMSNorm is scale-invariant) but everything the residual carries forward does.
// Arguments: ATTENTION_RMSNORM_ARGS (attention_args.h); scale WEFT_NONE: no scale word; mode 0:
// row t = workgroup, 1: only the batch's last token, into normed row 0.
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_RMSNORM_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float partial[64];

void main() {
  const uint x0 = pc.args.x, xs = pc.args.x_stride, o0 = pc.args.normed, os = pc.args.normed_stride, w = pc.args.weight;
  const uint D = pc.args.dim;
  const float eps = pc.args.eps;
  const uint scale_word = pc.args.scale, mode = pc.args.mode, state = pc.args.state;
  const uint tid = gl_LocalInvocationIndex;
  const uint t = mode == 1u ? globals_u[state + 1u] - 1u : gl_WorkGroupID.x;
  const uint x = x0 + t * xs, o = o0 + (mode == 1u ? 0u : t) * os;
  const float s = scale_word != WEFT_NONE ? weft_control_f(scale_word) : 1.0;
  float ss = 0.0;
  for (uint k = tid; k < D; k += 64u) {
    float v = globals_f[x + k];
    if (s != 1.0) {
      v *= s;
      globals_f[x + k] = v;
    }
    ss += v * v;
  }
  partial[tid] = ss;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (tid < k) partial[tid] += partial[tid + k];
    barrier();
  }
  const float inv = inversesqrt(partial[0] / float(D) + eps);
  for (uint k = tid; k < D; k += 64u) globals_f[o + k] = globals_f[x + k] * inv * heap_f[w + k];
}
