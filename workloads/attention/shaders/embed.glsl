// Token embedding lookup, one workgroup per token of the batch: x[t] = row tokens[t] of the
// embedding table, dequantized. A token id past the vocabulary (the host refuses those before
// writing them) gives a zero row rather than a read outside the table. Arguments:
// ATTENTION_EMBED_ARGS (attention_args.h; the weights by reference, far in the far variant) (attention_args.h);
// open_weights gives the table's first byte, which dequant.glsl addresses by.
#include "attention_args.h"
#ifdef WEFT_FAR_ACCESS  // the far variant (FAR_KERNELS): the weights are a far segment of their own
#define FAR_WEIGHTS
#endif
#define WEFT_ARGS ATTENTION_EMBED_ARGS
#include "weft.glsl"
#include "dequant.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint table = open_weights(pc.args.table), D = pc.args.dim, vocab = pc.args.vocab, tokens = pc.args.tokens, x = pc.args.x;
  const uint t = gl_WorkGroupID.x;
  const uint token = globals_u[tokens + t];
  const uint row = table + token * row_bytes(D);
  for (uint k = gl_LocalInvocationIndex; k < D; k += 64u)
    globals_f[x + t * D + k] = token < vocab ? weight_at(row, k) : 0.0;
}
