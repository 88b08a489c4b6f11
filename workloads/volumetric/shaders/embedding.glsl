// Embedding lookup straight from the packed table (vocab rows x dim columns, see dtype.h):
//   y[t * dim + j] = table[id_t][j], id_t = x[t] (token ids carried as exact f32 integers).
// An id outside [0, vocab) gives a zero row (the host refuses such inputs before they get here;
// a cell reading another cell's output cannot be checked on the host).
// user: [0] table words, [1] scales (Heap), [2] x, [3] y (Globals), [4] seq, [5] dim,
//       [6] words per row, [7] vocab.
#include "weft.glsl"
#include "params.glsl"
#include "packed.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint W = pc.user[0], S = pc.user[1], x = pc.user[2], y = pc.user[3], seq = pc.user[4], dim = pc.user[5];
  const uint row_words = pc.user[6], vocab = pc.user[7];
  const uint blocks = (dim + kBlock - 1u) / kBlock;
  for (uint k = gl_GlobalInvocationID.x; k < seq * dim; k += gl_NumWorkGroups.x * 64u) {
    const uint t = k / dim, j = k - t * dim;
    const float v = globals_f[x + t];
    const bool ok = v >= 0.0 && v < float(vocab) && v == floor(v);
    globals_f[y + k] = ok ? weight_at(W, S, row_words, blocks, uint(v), j) : 0.0;
  }
}
