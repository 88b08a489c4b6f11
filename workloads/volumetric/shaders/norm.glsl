// RMSNorm / LayerNorm per row of width n, one invocation per row:
//   RMSNorm:   y = x / sqrt(mean(x^2) + eps) * g
//   LayerNorm: y = (x - mean) / sqrt(var + eps) * g + beta
// layer: 1 for LayerNorm (centre and add beta), 0 for RMSNorm.
// PARAMS_IN_GLOBALS (training) reads g and beta from Globals.
// Arguments: VOLUMETRIC_NORM_ARGS / VOLUMETRIC_NORM_TRAIN_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#ifdef PARAMS_IN_GLOBALS
#define WEFT_ARGS VOLUMETRIC_NORM_TRAIN_ARGS
#else
#define WEFT_ARGS VOLUMETRIC_NORM_ARGS
#endif
#include "weft.glsl"
#include "params.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.args.x, y = pc.args.y, g = pc.args.gain, beta = pc.args.beta, rows = pc.args.rows, n = pc.args.n;
  const float eps = pc.args.eps;
  const bool layer = pc.args.layer != 0u;
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
  weft_require_loops_whole();
}
