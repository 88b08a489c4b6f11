// Matrix-vector product straight from the packed weights, one workgroup per (output row,
// token): y[t][n] (+)= sum_k W[n][k] * x[t][k]. The 64 invocations stride over the row's
// blocks and meet in a shared-memory tree (no subgroup size assumed).
// user: [0] W (Heap byte offset), [1] K (row length), [2] N (rows), [3] x (Globals word),
//       [4] x stride (words per token), [5] y (Globals word), [6] y stride, [7] flags
//       (1: add to y, the residual connection; 2: token t writes row pos0 + t, a KV-cache row),
//       [8] state (Globals word: pos0, T).
#include "weft.glsl"
#include "dequant.glsl"

layout(local_size_x = 64) in;
shared float partial[64];

void main() {
  const uint W = pc.user[0], K = pc.user[1], N = pc.user[2], x0 = pc.user[3], xs = pc.user[4];
  const uint y0 = pc.user[5], ys = pc.user[6], flags = pc.user[7], state = pc.user[8];
  const uint t = gl_WorkGroupID.y, tid = gl_LocalInvocationIndex;
  const uint x = x0 + t * xs, blocks = K / BLOCK_ELEMS, rb = row_bytes(K);
  const uint out_row = (flags & 2u) != 0u ? globals_u[state] + t : t;
  // Grid-stride over rows: N may exceed the 65535 groups every device supports.
  for (uint n = gl_WorkGroupID.x; n < N; n += gl_NumWorkGroups.x) {
    const uint row = W + n * rb;
    float acc = 0.0;
    for (uint b = tid; b < blocks; b += 64u) acc += block_dot(row, b, x);
    partial[tid] = acc;
    barrier();
    for (uint s = 32u; s > 0u; s >>= 1) {
      if (tid < s) partial[tid] += partial[tid + s];
      barrier();
    }
    if (tid == 0u) {
      const uint i = y0 + out_row * ys + n;
      globals_f[i] = (flags & 1u) != 0u ? globals_f[i] + partial[0] : partial[0];
    }
    barrier();
  }
}
