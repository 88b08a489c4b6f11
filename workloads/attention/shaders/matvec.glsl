// Matrix-vector product straight from the packed weights, one workgroup per (8 output rows,
// tile of 4 tokens): y[t][n] (+)= sum_k W[n][k] * x[t][k]. The 64 invocations stride over the row's
// blocks in groups of 8 per row and meet in shared memory (no subgroup size assumed).
// Arguments: ATTENTION_MATVEC_ARGS (attention_args.h; the weights by reference, far in the far variant)
// (attention_args.h); K = cols (row length), N = rows, open_weights gives the weights' first
// byte (dequant.glsl addresses by bytes), and the state's T bounds the last tile.
#include "attention_args.h"
#ifdef WEFT_FAR_ACCESS  // the far variant (FAR_KERNELS): the weights are a far segment of their own
#define FAR_WEIGHTS
#endif
#define WEFT_ARGS ATTENTION_MATVEC_ARGS
#include "weft.glsl"
#include "dequant.glsl"

// Eight rows per workgroup, eight invocations per row: a workgroup's fixed cost (and its
// barriers) is spread over eight rows, which matters most for short quantized rows (K = 256 is
// 8 blocks: one per invocation). Neighbouring invocations read neighbouring blocks.
// Tokens come in tiles of TOKENS (workgroup y = tile): each weight block is read once per tile,
// not once per token, so a prefill reads the weights T / TOKENS times instead of T.
const uint ROWS = 8u, LANES = 8u;
layout(local_size_x = 64) in;
shared float partial[TOKENS][64];

void main() {
  const uint W = open_weights(pc.args.w), K = pc.args.cols, N = pc.args.rows, x0 = pc.args.x, xs = pc.args.x_stride;
  const uint y0 = pc.args.y, ys = pc.args.y_stride, flags = pc.args.flags, state = pc.args.state;
  const uint t0 = gl_WorkGroupID.y * TOKENS, T = (flags & 4u) != 0u ? 1u : globals_u[state + 1u];
  if (t0 >= T) return;  // a tile past the batch (uniform: the whole workgroup leaves)
  const uint nt = min(TOKENS, T - t0);
  const uint tid = gl_LocalInvocationIndex, lane = tid % LANES, slot = tid / LANES;
  const uint x = x0 + t0 * xs, blocks = K / BLOCK_ELEMS, rb = row_bytes(K);
  const uint out_row = (flags & 2u) != 0u ? globals_u[state] + t0 : t0;
  // Grid-stride over groups of rows (uniform in the workgroup, so the barriers are too): N may
  // exceed 8 x 65535, the group count every device supports.
  for (uint n0 = gl_WorkGroupID.x * ROWS; n0 < N; n0 += gl_NumWorkGroups.x * ROWS) {
    const uint n = n0 + slot;
    float acc[TOKENS];
    for (uint i = 0u; i < TOKENS; ++i) acc[i] = 0.0;
    if (n < N) {
      const uint row = W + n * rb;
      for (uint b = lane; b < blocks; b += LANES) block_dots(row, b, x, xs, nt, acc);
    }
    for (uint i = 0u; i < TOKENS; ++i) partial[i][tid] = acc[i];
    barrier();
    if (lane == 0u && n < N)
      for (uint i = 0u; i < nt; ++i) {
        float sum = 0.0;
        for (uint j = 0u; j < LANES; ++j) sum += partial[i][tid + j];
        const uint at = y0 + (out_row + i) * ys + n;
        globals_f[at] = (flags & 1u) != 0u ? globals_f[at] + sum : sum;
      }
    barrier();
  }
}
