// Token embedding lookup, one workgroup per token of the batch: x[t] = row tokens[t] of the
// embedding table, dequantized. A token id past the vocabulary (the host refuses those before
// writing them) gives a zero row rather than a read outside the table.
// user: [0] table (Heap byte offset), [1] D (row length), [2] vocab, [3] tokens (Globals word),
//       [4] x (Globals word, D words per token).
#include "weft.glsl"
#include "dequant.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint table = pc.user[0], D = pc.user[1], vocab = pc.user[2], tokens = pc.user[3], x = pc.user[4];
  const uint t = gl_WorkGroupID.x;
  const uint token = globals_u[tokens + t];
  const uint row = table + token * row_bytes(D);
  for (uint k = gl_LocalInvocationIndex; k < D; k += 64u)
    globals_f[x + t * D + k] = token < vocab ? weight_at(row, k) : 0.0;
}
