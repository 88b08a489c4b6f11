// Embedding lookup straight from the packed table (vocab rows x dim columns, see dtype.h):
//   y[t * dim + j] = table[id_t][j], id_t = x[t] (token ids carried as exact f32 integers).
// An id outside [0, vocab) gives a zero row (the host refuses such inputs before they get here;
// a cell reading another cell's output cannot be checked on the host).
// Arguments: VOLUMETRIC_EMBEDDING_ARGS / VOLUMETRIC_EMBEDDING_TRAIN_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#ifdef PARAMS_IN_GLOBALS
#define WEFT_ARGS VOLUMETRIC_EMBEDDING_TRAIN_ARGS
#else
#define WEFT_ARGS VOLUMETRIC_EMBEDDING_ARGS
#endif
#include "weft.glsl"
#include "params.glsl"
#include "packed.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint W = pc.args.table, S = pc.args.scales, x = pc.args.x, y = pc.args.y, seq = pc.args.seq, dim = pc.args.dim;
  const uint row_words = pc.args.row_words, vocab = pc.args.vocab;
  const uint blocks = (dim + kBlock - 1u) / kBlock;
  for (uint k = gl_GlobalInvocationID.x; k < seq * dim; k += gl_NumWorkGroups.x * 64u) {
    const uint t = k / dim, j = k - t * dim;
    const float v = globals_f[x + t];
    const bool ok = v >= 0.0 && v < float(vocab) && v == floor(v);
    globals_f[y + k] = ok ? weight_at(W, S, row_words, blocks, uint(v), j) : 0.0;
  }
  weft_require_loops_whole();
}
