#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of an Embedding lookup (training, f32 table): every table word gathers the output
// gradients of the tokens that looked its row up, grad[r][j] = sum_t [id_t == r] dy[t][j]
// (one writer per word, no atomics). Token ids get no gradient: when the layer reads another
// cell, its input gradient is zeros.
// user: [0] x (ids), [1] dy, [2] grad (Globals words), [3] seq, [4] dim, [5] vocab, [6] dx or ~0u.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.user[0], dy = pc.user[1], grad = pc.user[2], seq = pc.user[3], dim = pc.user[4], vocab = pc.user[5];
  const uint dx = pc.user[6];
  const uint table = vocab * dim, count = table + (dx != ~0u ? seq : 0u);
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    if (k >= table) {
      globals_f[dx + k - table] = 0.0;
      continue;
    }
    const uint r = k / dim, j = k - r * dim;
    float g = 0.0;
    for (uint t = 0u; t < seq; ++t)
      if (globals_f[x + t] == float(r)) g += globals_f[dy + t * dim + j];
    globals_f[grad + k] = g;
  }
}
