#version 450
#extension GL_GOOGLE_include_directive : require
// RMSNorm, one workgroup per token: out[t] = x[t] / sqrt(mean(x[t]^2) + eps) * w.
// When a scale word is given (the layer's residual scale, 1.0 unless the activation-norm rule
// lowered it) the residual stream row is first multiplied by it in place; the normalised output
// does not change (RMSNorm is scale-invariant) but everything the residual carries forward does.
// user: [0] x (Globals word), [1] x stride, [2] out (Globals word), [3] out stride,
//       [4] w (Heap byte offset, F32), [5] D, [6] eps (f32 bits), [7] scale control word or
//       WEFT_NONE, [8] mode (0: row t = workgroup; 1: only the batch's last token, into out row 0),
//       [9] state (Globals word: pos0, T).
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float partial[64];

void main() {
  const uint x0 = pc.user[0], xs = pc.user[1], o0 = pc.user[2], os = pc.user[3], w = pc.user[4] >> 2, D = pc.user[5];
  const float eps = weft_user_f(6);
  const uint scale_word = pc.user[7], mode = pc.user[8], state = pc.user[9];
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
