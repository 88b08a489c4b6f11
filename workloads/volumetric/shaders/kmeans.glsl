// K-means layer scores straight from the packed centroids (out x in, see dtype.h):
//   s[t * k + j] = -|x_t - c_j|^2, one invocation per (row t, centroid j); a softmax stage over
//   each row of s follows (the soft assignment).
// user: [0] centroid words, [1] scales (Heap), [2] x, [3] s (Globals), [4] seq, [5] in,
//       [6] k (centroids), [7] words per row.
#include "weft.glsl"
#include "params.glsl"
#include "packed.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint W = pc.user[0], S = pc.user[1], x = pc.user[2], s = pc.user[3], seq = pc.user[4], n = pc.user[5];
  const uint k = pc.user[6], row_words = pc.user[7];
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
}
