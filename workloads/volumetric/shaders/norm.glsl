// RMSNorm / LayerNorm per row of width n, one invocation per row:
//   RMSNorm:   y = x / sqrt(mean(x^2) + eps) * g
//   LayerNorm: y = (x - mean) / sqrt(var + eps) * g + beta
// user: [0] x, [1] y (Globals words), [2] g, [3] beta (Heap or Globals words), [4] rows, [5] n,
//       [6] eps (f32 bits), [7] 1 for LayerNorm (centre and add beta), 0 for RMSNorm.
// PARAMS_IN_GLOBALS (training) reads g and beta from Globals.
#include "weft.glsl"
#include "params.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.user[0], y = pc.user[1], g = pc.user[2], beta = pc.user[3], rows = pc.user[4], n = pc.user[5];
  const float eps = weft_user_f(6);
  const bool layer = pc.user[7] != 0u;
  for (uint r = gl_GlobalInvocationID.x; r < rows; r += gl_NumWorkGroups.x * 64u) {
    const uint row = x + r * n;
    float mean = 0.0;
    if (layer) {
      for (uint i = 0u; i < n; ++i) mean += globals_f[row + i];
      mean /= float(n);
    }
    float sq = 0.0;
    for (uint i = 0u; i < n; ++i) {
      const float d = globals_f[row + i] - mean;
      sq += d * d;
    }
    const float inv = inversesqrt(sq / float(n) + eps);
    for (uint i = 0u; i < n; ++i)
      globals_f[y + r * n + i] = (globals_f[row + i] - mean) * inv * PARAM_F[g + i] + (layer ? PARAM_F[beta + i] : 0.0);
  }
}
