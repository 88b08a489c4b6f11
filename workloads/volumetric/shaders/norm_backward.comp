#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of RMSNorm / LayerNorm (see norm.glsl), with xhat = (x - mean) * inv:
//   phase 0, per row:    dx = inv * (dxhat - mean(dxhat) [LayerNorm] - xhat * mean(dxhat * xhat)),
//                        dxhat = dy * g
//   phase 1, per column: grad_g[i] = sum_rows dy * xhat;  grad_beta[i] = sum_rows dy [LayerNorm]
// layer: 1 for LayerNorm, 0 for RMSNorm.
// Arguments: VOLUMETRIC_NORM_BACKWARD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_NORM_BACKWARD_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

uint X, N;
bool LAYER;
float EPS;

void row_stats(uint r, out float mean, out float inv) {
  const uint row = X + r * N;
  mean = 0.0;
  if (LAYER) {
    for (uint i = 0u; i < N; ++i) mean += globals_f[row + i];
    mean /= float(N);
  }
  float sq = 0.0;
  for (uint i = 0u; i < N; ++i) {
    const float d = globals_f[row + i] - mean;
    sq += d * d;
  }
  inv = inversesqrt(sq / float(N) + EPS);
}

void main() {
  const uint phase = pc.args.phase, dy = pc.args.dy, dx = pc.args.dx, g = pc.args.gain, gg = pc.args.grad_gain;
  const uint gbeta = pc.args.grad_beta, rows = pc.args.rows;
  X = pc.args.x;
  N = pc.args.n;
  EPS = pc.args.eps;
  LAYER = pc.args.layer != 0u;
  const uint count = phase == 0u ? rows : N;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    if (phase == 0u) {
      float mean, inv;
      row_stats(k, mean, inv);
      float s1 = 0.0, s2 = 0.0;
      for (uint i = 0u; i < N; ++i) {
        const float xh = (globals_f[X + k * N + i] - mean) * inv, dxh = globals_f[dy + k * N + i] * globals_f[g + i];
        s1 += dxh;
        s2 += dxh * xh;
      }
      for (uint i = 0u; i < N; ++i) {
        const float xh = (globals_f[X + k * N + i] - mean) * inv, dxh = globals_f[dy + k * N + i] * globals_f[g + i];
        globals_f[dx + k * N + i] = inv * (dxh - (LAYER ? s1 / float(N) : 0.0) - xh * s2 / float(N));
      }
    } else {
      float a = 0.0, b = 0.0;
      for (uint r = 0u; r < rows; ++r) {
        float mean, inv;
        row_stats(r, mean, inv);
        const float d = globals_f[dy + r * N + k];
        a += d * (globals_f[X + r * N + k] - mean) * inv;
        b += d;
      }
      globals_f[gg + k] = a;
      if (LAYER) globals_f[gbeta + k] = b;
    }
  }
  weft_require_loops_whole();
}
