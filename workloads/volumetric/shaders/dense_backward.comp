#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of a Dense layer y = act(W x + b) (f32 weights in Globals, training), in three
// phases so that every output word has exactly one writer:
//   phase 0, per o:          dz[o] = dy[o] * act'(z[o]);  grad_b[o] = dz[o]
//   phase 1, per c:          dx[c] = sum_o W[o][c] * dz[o]
//   phase 2, per (o, c):     grad_W[o][c] = dz[o] * x[c]
// user: [0] phase, [1] W, [2] z, [3] dy, [4] dz, [5] x, [6] dx, [7] grad_W, [8] grad_b
//       (Globals words), [9] out, [10] in, [11] activation.
#include "weft.glsl"
#include "activation.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint phase = pc.user[0], W = pc.user[1], z = pc.user[2], dy = pc.user[3], dz = pc.user[4];
  const uint x = pc.user[5], dx = pc.user[6], gW = pc.user[7], gb = pc.user[8], rows = pc.user[9], cols = pc.user[10];
  const uint act = pc.user[11];
  const uint count = phase == 0u ? rows : phase == 1u ? cols : rows * cols;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    if (phase == 0u) {
      const float d = globals_f[dy + k] * activation_grad(act, globals_f[z + k]);
      globals_f[dz + k] = d;
      globals_f[gb + k] = d;
    } else if (phase == 1u) {
      float a = 0.0;
      for (uint o = 0u; o < rows; ++o) a += globals_f[W + o * cols + k] * globals_f[dz + o];
      globals_f[dx + k] = a;
    } else {
      const uint o = k / cols, c = k - o * cols;
      globals_f[gW + k] = globals_f[dz + o] * globals_f[x + c];
    }
  }
}
