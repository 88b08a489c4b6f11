#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of dense.glsl (f32 weights in Globals, training) for its input gathers (mode 0
// tokens / Dense, 1 conv1d, 2 conv2d, 3 any conv incl. 3-D and transposed; P positions), in
// three phases so that every output word has exactly one writer:
//   phase 0, per row o:      dz[o, p] = dy[o, p] * act'(z[o, p]);  grad_b[o] = sum_p dz[o, p]
//   phase 1, per input e:    dx[e] = sum over the (o, p, i) with x(i, p) = e of W[o][i] dz[o, p]
//   phase 2, per (o, i):     grad_W[o][i] = sum_p dz[o, p] * x(i, p)
// Position-major outputs (mode 0: [p * rows + o]) and row-major (convs: [o * P + p]) as dense.glsl.
// Geometry: height is L (conv1d), H (conv2d) or Hi; width Win or Wi; ksize K; out_width Wo;
// depth Di and out_height Ho (mode 3, which packs its flags into mode = 3 | transposed << 4 |
// dims << 8).
// Arguments: VOLUMETRIC_DENSE_BACKWARD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_DENSE_BACKWARD_ARGS
#include "weft.glsl"
#include "activation.glsl"
#include "conv_gather.glsl"

layout(local_size_x = 64) in;

uint MODE, P, ROWS, COLS, L, WIN, K, WO, DI, HO, DIMS;
bool TRANSPOSED;

uint out_at(uint o, uint p) { return MODE == 0u ? p * ROWS + o : o * P + p; }

uint x_index(uint i, uint p) {
  if (MODE == 0u) return p * COLS + i;
  if (MODE == 1u) return (i / K) * L + p + i % K;
  if (MODE == 3u) return conv_gather(i, p, DI, L, WIN, HO, WO, K, TRANSPOSED, DIMS);
  const uint c = i / (K * K), r = i - c * K * K, ki = r / K, kj = r - ki * K, pi = p / WO, pj = p - pi * WO;
  return (c * L + pi + ki) * WIN + pj + kj;
}

void main() {
  const uint phase = pc.args.phase, W = pc.args.weights, z = pc.args.z, dy = pc.args.dy, dz = pc.args.dz;
  const uint x = pc.args.x, dx = pc.args.dx, gW = pc.args.grad_w, gb = pc.args.grad_b, act = pc.args.act;
  ROWS = pc.args.rows;
  COLS = pc.args.cols;
  MODE = pc.args.mode & 15u;
  TRANSPOSED = ((pc.args.mode >> 4) & 1u) != 0u;
  DIMS = pc.args.mode >> 8;
  DI = pc.args.depth;
  HO = pc.args.out_height;
  P = pc.args.positions;
  L = pc.args.height;
  WIN = pc.args.width;
  K = pc.args.ksize;
  WO = pc.args.out_width;
  const uint kv = MODE == 1u ? K : MODE == 2u ? K * K : DIMS == 1u ? K : DIMS == 2u ? K * K : K * K * K;
  const uint channels = COLS / kv;
  const uint inputs = MODE == 0u ? P * COLS : MODE == 1u ? channels * L : MODE == 2u ? channels * L * WIN : channels * DI * L * WIN;
  const uint count = phase == 0u ? ROWS : phase == 1u ? inputs : ROWS * COLS;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    if (phase == 0u) {
      float b = 0.0;
      for (uint p = 0u; p < P; ++p) {
        const uint at = out_at(k, p);
        const float d = globals_f[dy + at] * activation_grad(act, globals_f[z + at]);
        globals_f[dz + at] = d;
        b += d;
      }
      globals_f[gb + k] = b;
    } else if (phase == 1u) {
      float a = 0.0;
      if (MODE == 0u) {
        const uint p = k / COLS, i = k - p * COLS;
        for (uint o = 0u; o < ROWS; ++o) a += globals_f[W + o * COLS + i] * globals_f[dz + out_at(o, p)];
      } else if (MODE == 1u) {
        const uint ch = k / L, pos = k - ch * L;
        for (uint t = 0u; t < K; ++t)
          if (pos >= t && pos - t < P)
            for (uint o = 0u; o < ROWS; ++o) a += globals_f[W + o * COLS + ch * K + t] * globals_f[dz + out_at(o, pos - t)];
      } else if (MODE == 3u) {
        // Input element (ch, d, h, w): every tap (kd, kh, kw) of its channel meets the output
        // position (d, h, w) -/+ k when that lies inside the output.
        const uint ch = k / (DI * L * WIN), r = k - ch * DI * L * WIN, d = r / (L * WIN), h = (r / WIN) % L, wi = r % WIN;
        const uint DO = P / (HO * WO);
        for (uint q = 0u; q < kv; ++q) {
          const uint kw = q % K, kh = DIMS >= 2u ? (q / K) % K : 0u, kd = DIMS == 3u ? q / (K * K) : 0u;
          const int od = TRANSPOSED ? int(d + kd) : int(d) - int(kd), oh = TRANSPOSED ? int(h + kh) : int(h) - int(kh),
                    ow = TRANSPOSED ? int(wi + kw) : int(wi) - int(kw);
          if (od < 0 || oh < 0 || ow < 0 || od >= int(DO) || oh >= int(HO) || ow >= int(WO)) continue;
          const uint p = (uint(od) * HO + uint(oh)) * WO + uint(ow);
          for (uint o = 0u; o < ROWS; ++o) a += globals_f[W + o * COLS + ch * kv + q] * globals_f[dz + out_at(o, p)];
        }
      } else {
        const uint ch = k / (L * WIN), r = k - ch * L * WIN, yi = r / WIN, xj = r - yi * WIN, H2 = P / WO;
        for (uint ki = 0u; ki < K; ++ki)
          for (uint kj = 0u; kj < K; ++kj)
            if (yi >= ki && yi - ki < H2 && xj >= kj && xj - kj < WO)
              for (uint o = 0u; o < ROWS; ++o)
                a += globals_f[W + o * COLS + (ch * K + ki) * K + kj] * globals_f[dz + out_at(o, (yi - ki) * WO + xj - kj)];
      }
      globals_f[dx + k] = a;
    } else {
      const uint o = k / COLS, i = k - o * COLS;
      float a = 0.0;
      for (uint p = 0u; p < P; ++p) {
        const uint xi = x_index(i, p);
        if (xi != ~0u) a += globals_f[dz + out_at(o, p)] * globals_f[x + xi];
      }
      globals_f[gW + k] = a;
    }
  }
  weft_require_loops_whole();
}
