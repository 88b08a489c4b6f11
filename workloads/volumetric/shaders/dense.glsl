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
// Geometry arguments: height is L (conv1d), H (conv2d) or Hi (mode 3); width Win or Wi; ksize K;
// out_width Wo (conv2d, mode 3); depth Di, out_height Ho, transposed, dims (mode 3 only).
// The row is read block by block (kBlock = 32 columns); inside a
// block the packed codes are turned into their integer / minifloat value q and summed against x,
// and the block's scale is applied once: sum_c (s * q_c) x_c = s * sum_c q_c x_c (plus
// lo * sum_c x_c for the affine unsigned types). No f32 copy of the weights exists anywhere.
//
// WDTYPE (the DType enum value) selects the decoding; the build makes one variant per type.
// PARAMS_IN_GLOBALS (the training variant) reads W and b from Globals, where the optimiser
// updates them, instead of Heap.
// Arguments: VOLUMETRIC_DENSE_ARGS / VOLUMETRIC_DENSE_TRAIN_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#ifdef PARAMS_IN_GLOBALS
#define WEFT_ARGS VOLUMETRIC_DENSE_TRAIN_ARGS
#else
#define WEFT_ARGS VOLUMETRIC_DENSE_ARGS
#endif
#include "weft.glsl"
#include "activation.glsl"
#include "params.glsl"
#include "packed.glsl"
#include "conv_gather.glsl"

layout(local_size_x = 64) in;

uint x_index(uint mode, uint i, uint p) {
  const uint cols = pc.args.cols, L = pc.args.height, Win = pc.args.width, K = pc.args.ksize, Wo = pc.args.out_width;
  // conv2d reuses L as the input height H.
  if (mode == 0u) return p * cols + i;
  if (mode == 1u) return (i / K) * L + p + i % K;
  const uint c = i / (K * K), r = i - c * K * K, ki = r / K, kj = r - ki * K, pi = p / Wo, pj = p - pi * Wo;
  return (c * L + pi + ki) * Win + pj + kj;
}

// Mode 3's gather: ~0u where a transposed conv runs off the input.
uint conv_index(uint i, uint p) {
  return conv_gather(i, p, pc.args.depth, pc.args.height, pc.args.width, pc.args.out_height, pc.args.out_width, pc.args.ksize,
                     pc.args.transposed != 0u, pc.args.dims);
}

void main() {
  const uint W = pc.args.weights, S = pc.args.scales, B = pc.args.bias, x = pc.args.x, y = pc.args.y;
  const uint rows = pc.args.rows, cols = pc.args.cols, row_words = pc.args.row_words, act = pc.args.act, zw = pc.args.z;
  const uint mode = pc.args.mode, P = pc.args.positions;
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
  weft_require_loops_whole();
}
