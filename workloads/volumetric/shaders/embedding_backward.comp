#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of an Embedding lookup (training, f32 table): every table word gathers the output
// gradients of the tokens that looked its row up, grad[r][j] = sum_t [id_t == r] dy[t][j]
// (one writer per word, no atomics). Token ids get no gradient: when the layer reads another
// cell, its input gradient is zeros.
// Arguments: VOLUMETRIC_EMBEDDING_BACKWARD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_EMBEDDING_BACKWARD_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.args.x, dy = pc.args.dy, grad = pc.args.grad, seq = pc.args.seq, dim = pc.args.dim, vocab = pc.args.vocab;
  const uint dx = pc.args.dx;
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
  weft_require_loops_whole();
}
