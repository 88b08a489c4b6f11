#version 450
#extension GL_GOOGLE_include_directive : require
// A layer's message (one workgroup): R30 = the hidden state of the batch's last token, and in
// Metrics norm = the largest RMS of a token's hidden state over the batch, max_abs = the largest
// |x|, status = anomaly when either is not finite; counters[0] = layer + 1, [1] = tokens in the
// batch, [2] = pos0. The activation-norm rule reads norm.
// Arguments: ATTENTION_LAYER_STATS_ARGS (attention_args.h).
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_LAYER_STATS_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float s_sum[64];
shared float s_max[64];

void main() {
  const uvec2 start = weft_clock();
  const uint x = pc.args.x, D = pc.args.dim, state = pc.args.state, layer = pc.args.layer;
  const uint tid = gl_LocalInvocationIndex, T = globals_u[state + 1u];
  float worst_rms = 0.0, mx = 0.0;
  bool finite = true;
  for (uint t = 0u; t < T; ++t) {
    float ss = 0.0;
    for (uint k = tid; k < D; k += 64u) {
      const float v = globals_f[x + t * D + k];
      ss += v * v;
      mx = max(mx, abs(v));
      finite = finite && !isnan(v) && !isinf(v);
    }
    s_sum[tid] = ss;
    barrier();
    for (uint k = 32u; k > 0u; k >>= 1) {
      if (tid < k) s_sum[tid] += s_sum[tid + k];
      barrier();
    }
    const float rms = sqrt(s_sum[0] / float(D));
    worst_rms = isnan(rms) || isnan(worst_rms) ? rms + worst_rms : max(worst_rms, rms);
    barrier();
  }
  s_max[tid] = finite ? mx : 1.0 / 0.0;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (tid < k) s_max[tid] = max(s_max[tid], s_max[tid + k]);
    barrier();
  }
  for (uint k = tid; k < D; k += 64u) weft_outbox_f(k, globals_f[x + (T - 1u) * D + k]);
  if (tid == 0u) {
    const uint me = pc.header.instance;
    metrics[me].counters[0] = layer + 1u;
    metrics[me].counters[1] = T;
    metrics[me].counters[2] = globals_u[state];
    const bool bad = isnan(worst_rms) || isinf(worst_rms) || isinf(s_max[0]);
    weft_message_write(worst_rms, s_max[0], bad ? WEFT_STATUS_ANOMALY : WEFT_STATUS_OK, weft_ticks_since(start));
  }
}
