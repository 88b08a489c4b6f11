// K-means layer scores straight from the packed centroids (out x in, see dtype.h):
//   s[t * k + j] = -|x_t - c_j|^2, one invocation per (row t, centroid j); a softmax stage over
//   each row of s follows (the soft assignment).
// Arguments: VOLUMETRIC_KMEANS_ARGS / VOLUMETRIC_KMEANS_TRAIN_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#ifdef PARAMS_IN_GLOBALS
#define WEFT_ARGS VOLUMETRIC_KMEANS_TRAIN_ARGS
#else
#define WEFT_ARGS VOLUMETRIC_KMEANS_ARGS
#endif
#include "weft.glsl"
#include "params.glsl"
#include "packed.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint W = pc.args.centroids, S = pc.args.scales, x = pc.args.x, s = pc.args.scores, seq = pc.args.seq, n = pc.args.width;
  const uint k = pc.args.k, row_words = pc.args.row_words;
  const uint blocks = (n + kBlock - 1u) / kBlock;
  for (uint id = gl_GlobalInvocationID.x; id < seq * k; id += gl_NumWorkGroups.x * 64u) {
    const uint t = id / k, j = id - t * k;
    float d = 0.0;
    for (uint i = 0u; i < n; ++i) {
      const float e = globals_f[x + t * n + i] - weight_at(W, S, row_words, blocks, j, i);
      d += e * e;
    }
    globals_f[s + id] = -d;
  }
  weft_require_loops_whole();
}
