// Dense layer computed straight from packed weights in Heap (see dtype.h for the layout):
//   y[o] = act(b[o] + sum_i W[o][i] * x(i))
// One invocation per (output row, position). The input gather x(i) makes the same kernel serve
// a batch of tokens and the convolutions (im2col without the copy):
//   mode 0 (tokens):  x(i) = x[p * in + i],                       y[p * out + o]
//   mode 1 (conv1d):  x(i) = x[(i / K) * L + p + i % K],           y[o * P + p]
//   mode 2 (conv2d):  i = (c, ki, kj), p = (pi, pj):
//                     x(i) = x[(c * H + pi + ki) * Win + pj + kj],  y[o * P + p]
//   mode 3 (any conv, incl. 3-D and transposed, see ConvShape in model.h): x(i) as
//                     ConvShape::input_index, terms off the input (transposed) dropped
//                     [12] Hi, [13] Wi, [14] K, [15] Wo, [16] Di, [17] Ho, [18] transposed, [19] dims
// The row is read block by block (kBlock = 32 columns); inside a
// block the packed codes are turned into their integer / minifloat value q and summed against x,
// and the block's scale is applied once: sum_c (s * q_c) x_c = s * sum_c q_c x_c (plus
// lo * sum_c x_c for the affine unsigned types). No f32 copy of the weights exists anywhere.
//
// WDTYPE (the DType enum value) selects the decoding; the build makes one variant per type.
// PARAMS_IN_GLOBALS (the training variant) reads W and b from Globals, where the optimiser
// updates them, instead of Heap.
// user: [0] W words, [1] scales, [2] bias (Heap or Globals word offsets; ~0u: none), [3] x,
//       [4] y (Globals words), [5] out (rows), [6] in (cols), [7] words per row, [8] activation
//       (Activation enum), [9] z: Globals word for the pre-activations (kept for backward) or ~0u,
//       [10] mode, [11] positions P, [12] L (conv1d) or H (conv2d), [13] Win, [14] K,
//       [15] output width (conv2d).
#include "weft.glsl"
#include "activation.glsl"
#include "params.glsl"
#include "packed.glsl"
#include "conv_gather.glsl"

layout(local_size_x = 64) in;

uint x_index(uint mode, uint i, uint p) {
  const uint cols = pc.user[6], L = pc.user[12], Win = pc.user[13], K = pc.user[14], Wo = pc.user[15];
  // conv2d reuses L as the input height H.
  if (mode == 0u) return p * cols + i;
  if (mode == 1u) return (i / K) * L + p + i % K;
  const uint c = i / (K * K), r = i - c * K * K, ki = r / K, kj = r - ki * K, pi = p / Wo, pj = p - pi * Wo;
  return (c * L + pi + ki) * Win + pj + kj;
}

// Mode 3's gather: ~0u where a transposed conv runs off the input.
uint conv_index(uint i, uint p) {
  return conv_gather(i, p, pc.user[16], pc.user[12], pc.user[13], pc.user[17], pc.user[15], pc.user[14], pc.user[18] != 0u,
                     pc.user[19]);
}

void main() {
  const uint W = pc.user[0], S = pc.user[1], B = pc.user[2], x = pc.user[3], y = pc.user[4];
  const uint rows = pc.user[5], cols = pc.user[6], row_words = pc.user[7], act = pc.user[8], zw = pc.user[9];
  const uint mode = pc.user[10], P = pc.user[11];
  const uint blocks = (cols + kBlock - 1u) / kBlock;
  for (uint k = gl_GlobalInvocationID.x; k < rows * P; k += gl_NumWorkGroups.x * 64u) {
    const uint o = k / P, p = k - o * P;
    const uint row = W + o * row_words;
    float acc = 0.0;
    for (uint b = 0u; b < blocks; ++b) {
      const uint c0 = b * kBlock, c1 = min(cols, c0 + kBlock);
      float qx = 0.0, sx = 0.0;
      // Dense / tokens read a contiguous row; only the convolutions need the gather (the branch
      // sits outside the loops so a CPU driver does not evaluate the gather per element).
      if (mode == 0u) {
        const uint xb = x + p * cols;
        for (uint c = c0; c < c1; ++c) {
          const float xc = globals_f[xb + c];
          qx += code_value(row, c) * xc;
          sx += xc;
        }
      } else if (mode < 3u) {
        for (uint c = c0; c < c1; ++c) {
          const float xc = globals_f[x + x_index(mode, c, p)];
          qx += code_value(row, c) * xc;
          sx += xc;
        }
      } else {
        for (uint c = c0; c < c1; ++c) {
          const uint xi = conv_index(c, p);
          const float xc = xi == ~0u ? 0.0 : globals_f[x + xi];
          qx += code_value(row, c) * xc;
          sx += xc;
        }
      }
#if SCALE_FLOATS == 0
      acc += qx;
#elif SCALE_FLOATS == 1
      acc += PARAM_F[S + o * blocks + b] * qx;
#else
      acc += PARAM_F[S + 2u * (o * blocks + b)] * qx + PARAM_F[S + 2u * (o * blocks + b) + 1u] * sx;
#endif
    }
    const float z = acc + (B == ~0u ? 0.0 : PARAM_F[B + o]);
    const uint at = mode == 0u ? p * rows + o : o * P + p;
    if (zw != ~0u) globals_f[zw + at] = z;
    globals_f[y + at] = activation(act, z);
  }
}
