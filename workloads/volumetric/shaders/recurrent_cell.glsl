// One time step of an RNN / GRU / LSTM after its packed projections: gx = Wx x_t (all tokens,
// one stage before the loop) and gh = Wh h_{t-1} (this step; unused at t = 0, where h = c = 0).
// One invocation per hidden unit j:
//   RNN   h = tanh(gx + gh + b)
//   GRU   z = sig(gx_z + b_z + gh_z + bh_z), r = sig(gx_r + b_r + gh_r + bh_r),
//         n = tanh(gx_n + b_n + r (gh_n + bh_n)), h = (1 - z) n + z h_prev
//   LSTM  i, f, o = sig(gx + gh + b), g = tanh(gx + gh + b), c = f c_prev + i g, h = o tanh(c)
// Training (PARAMS_IN_GLOBALS: b, bh in Globals) also keeps what backward through time needs
// at store + t * S * H: RNN [h] (S = 1), GRU [z, r, n, Wh_n h + bh_n] (S = 4), LSTM
// [i, f, g, o, c] (S = 5).
// y: h_t at y + t * H; h_{t-1} read from y + (t-1) * H. c: the LSTM cell state. kind: 0 RNN,
// 1 GRU, 2 LSTM. store: where the training variant keeps the states, or absent.
// Arguments: VOLUMETRIC_RECURRENT_CELL_ARGS / VOLUMETRIC_RECURRENT_CELL_TRAIN_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#ifdef PARAMS_IN_GLOBALS
#define WEFT_ARGS VOLUMETRIC_RECURRENT_CELL_TRAIN_ARGS
#else
#define WEFT_ARGS VOLUMETRIC_RECURRENT_CELL_ARGS
#endif
#include "weft.glsl"
#include "params.glsl"

layout(local_size_x = 64) in;

float sig(float z) { return 1.0 / (1.0 + exp(-z)); }

void main() {
  const uint gx = pc.args.gx, gh = pc.args.gh, y = pc.args.y, c = pc.args.c, b = pc.args.bias, bh = pc.args.bias_h;
  const uint t = pc.args.t, H = pc.args.hidden, kind = pc.args.kind;
  const uint G = kind == 0u ? 1u : kind == 1u ? 3u : 4u;
  const bool first = t == 0u;
  const uint store = pc.args.store, S = kind == 0u ? 1u : kind == 1u ? 4u : 5u;
  for (uint j = gl_GlobalInvocationID.x; j < H; j += gl_NumWorkGroups.x * 64u) {
    const uint gxo = gx + t * G * H;
    const float hp = first ? 0.0 : globals_f[y + (t - 1u) * H + j];
    float h;
    if (kind == 0u) {
      h = tanh(globals_f[gxo + j] + (first ? 0.0 : globals_f[gh + j]) + PARAM_F[b + j]);
    } else if (kind == 1u) {
      const float ghz = first ? 0.0 : globals_f[gh + j], ghr = first ? 0.0 : globals_f[gh + H + j];
      const float ghn = first ? 0.0 : globals_f[gh + 2u * H + j];
      const float z = sig(globals_f[gxo + j] + PARAM_F[b + j] + ghz + PARAM_F[bh + j]);
      const float r = sig(globals_f[gxo + H + j] + PARAM_F[b + H + j] + ghr + PARAM_F[bh + H + j]);
      const float hnb = ghn + PARAM_F[bh + 2u * H + j];
      const float n = tanh(globals_f[gxo + 2u * H + j] + PARAM_F[b + 2u * H + j] + r * hnb);
      h = (1.0 - z) * n + z * hp;
      if (store != ~0u) {
        const uint o = store + t * S * H;
        globals_f[o + j] = z;
        globals_f[o + H + j] = r;
        globals_f[o + 2u * H + j] = n;
        globals_f[o + 3u * H + j] = hnb;
      }
    } else {
      float g4[4];
      for (uint k = 0u; k < 4u; ++k) g4[k] = globals_f[gxo + k * H + j] + (first ? 0.0 : globals_f[gh + k * H + j]) + PARAM_F[b + k * H + j];
      const float cp = first ? 0.0 : globals_f[c + j];
      const float cn = sig(g4[1]) * cp + sig(g4[0]) * tanh(g4[2]);
      globals_f[c + j] = cn;
      h = sig(g4[3]) * tanh(cn);
      if (store != ~0u) {
        const uint o = store + t * S * H;
        globals_f[o + j] = sig(g4[0]);
        globals_f[o + H + j] = sig(g4[1]);
        globals_f[o + 2u * H + j] = tanh(g4[2]);
        globals_f[o + 3u * H + j] = sig(g4[3]);
        globals_f[o + 4u * H + j] = cn;
      }
    }
    if (kind == 0u && store != ~0u) globals_f[store + t * H + j] = h;
    globals_f[y + t * H + j] = h;
  }
  weft_require_loops_whole();
}
