#version 450
#extension GL_GOOGLE_include_directive : require
// One step t of backpropagation through time for RNN / GRU / LSTM (see recurrent_cell.glsl for
// the stored states), one invocation per hidden unit j. dh = dy_t + dh_next (zero at t = T-1):
//   RNN   a = dh (1 - h^2);                            AX = AH = a
//   GRU   dn = dh (1 - z), dz = dh (h_prev - n), dan = dn (1 - n^2),
//         AX = [dz z(1-z), dan hnb r(1-r), dan], AH = [.., .., dan r], dhd = dh z (direct path)
//   LSTM  dc = dh o (1 - tanh(c)^2) + dc_next; AX = AH = [dc g i(1-i), dc c_prev f(1-f),
//         dc i (1-g^2), dh tanh(c) o(1-o)]; dc_next = dc f
// AX / AH (T x G*H) are the pre-activation gradients of the x and h parts; the caller turns AH
// into the next dh_next with Wh^T (plus dhd for GRU) and, after the loop, reduces AX / AH into
// the weight and bias gradients and dx.
// T is the steps argument, H hidden.
// Arguments: VOLUMETRIC_RNN_STEP_BACKWARD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_RNN_STEP_BACKWARD_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint kind = pc.args.kind, t = pc.args.t, T = pc.args.steps, H = pc.args.hidden, dy = pc.args.dy, store = pc.args.store;
  const uint y = pc.args.y, dhn = pc.args.dh_next, dcn = pc.args.dc_next, AX = pc.args.ax, AH = pc.args.ah, dhd = pc.args.dhd;
  const uint G = kind == 0u ? 1u : kind == 1u ? 3u : 4u, S = kind == 0u ? 1u : kind == 1u ? 4u : 5u;
  const bool last = t + 1u == T;
  for (uint j = gl_GlobalInvocationID.x; j < H; j += gl_NumWorkGroups.x * 64u) {
    const float dh = globals_f[dy + t * H + j] + (last ? 0.0 : globals_f[dhn + j]);
    const float hp = t > 0u ? globals_f[y + (t - 1u) * H + j] : 0.0;
    const uint st = store + t * S * H, ax = AX + t * G * H, ah = AH + t * G * H;
    if (kind == 0u) {
      const float h = globals_f[st + j], a = dh * (1.0 - h * h);
      globals_f[ax + j] = a;
      globals_f[ah + j] = a;
    } else if (kind == 1u) {
      const float z = globals_f[st + j], r = globals_f[st + H + j], n = globals_f[st + 2u * H + j], hnb = globals_f[st + 3u * H + j];
      const float dn = dh * (1.0 - z), dz = dh * (hp - n), dan = dn * (1.0 - n * n);
      const float daz = dz * z * (1.0 - z), dar = dan * hnb * r * (1.0 - r);
      globals_f[ax + j] = daz;
      globals_f[ah + j] = daz;
      globals_f[ax + H + j] = dar;
      globals_f[ah + H + j] = dar;
      globals_f[ax + 2u * H + j] = dan;
      globals_f[ah + 2u * H + j] = dan * r;
      globals_f[dhd + j] = dh * z;
    } else {
      const float i = globals_f[st + j], f = globals_f[st + H + j], g = globals_f[st + 2u * H + j], o = globals_f[st + 3u * H + j];
      const float c = globals_f[st + 4u * H + j], cp = t > 0u ? globals_f[st - S * H + 4u * H + j] : 0.0, tc = tanh(c);
      const float dc = dh * o * (1.0 - tc * tc) + (last ? 0.0 : globals_f[dcn + j]);
      const float a[4] = float[4](dc * g * i * (1.0 - i), dc * cp * f * (1.0 - f), dc * i * (1.0 - g * g), dh * tc * o * (1.0 - o));
      for (uint k = 0u; k < 4u; ++k) {
        globals_f[ax + k * H + j] = a[k];
        globals_f[ah + k * H + j] = a[k];
      }
      globals_f[dcn + j] = dc * f;
    }
  }
  weft_require_loops_whole();
}
