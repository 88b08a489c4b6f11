#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of the K-means scores s[t][j] = -|x_t - c_j|^2 (training, f32 centroids), from ds
// (the softmax backward of the assignment):
//   phase 0, per (j, i):  grad_c[j][i] = sum_t 2 ds[t][j] (x[t][i] - c[j][i])
//   phase 1, per (t, i):  dx[t][i]     = sum_j -2 ds[t][j] (x[t][i] - c[j][i])
// Arguments: VOLUMETRIC_KMEANS_BACKWARD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_KMEANS_BACKWARD_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint phase = pc.args.phase, x = pc.args.x, c = pc.args.centroids, ds = pc.args.ds, gc = pc.args.grad_c, dx = pc.args.dx;
  const uint seq = pc.args.seq, n = pc.args.width, k = pc.args.k;
  const uint count = phase == 0u ? k * n : seq * n;
  for (uint id = gl_GlobalInvocationID.x; id < count; id += gl_NumWorkGroups.x * 64u) {
    const uint a = id / n, i = id - a * n;
    float g = 0.0;
    if (phase == 0u) {
      for (uint t = 0u; t < seq; ++t) g += 2.0 * globals_f[ds + t * k + a] * (globals_f[x + t * n + i] - globals_f[c + a * n + i]);
      globals_f[gc + id] = g;
    } else {
      for (uint j = 0u; j < k; ++j) g -= 2.0 * globals_f[ds + a * k + j] * (globals_f[x + a * n + i] - globals_f[c + j * n + i]);
      globals_f[dx + id] = g;
    }
  }
  weft_require_loops_whole();
}
