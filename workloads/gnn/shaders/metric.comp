#version 450
#extension GL_GOOGLE_include_directive : require
// The layer's convergence metrics into its Metrics record (one workgroup):
//   norm        = S = mean_i cos(h_new[i], m)  (m = the readout in R30; 0 for a zero row)
//   max_abs     = max |h_new|
//   counters[0] = layer + 1 (iteration), counters[1] = f32 bits of ||h_new - h_old|| / ||h_old||,
//   counters[2] = f32 bits of ||m||.
// S near 1 means every node embedding points the same way: over-smoothing.
#include "gnn_args.h"
#define WEFT_ARGS GNN_METRIC_ARGS
#include "weft.glsl"

layout(local_size_x = 128) in;
shared float s_cos[128];
shared float s_diff[128];
shared float s_old[128];
shared float s_max[128];

void main() {
  const uvec2 start = weft_clock();
  const uint hn = pc.args.h_new, ho = pc.args.h_old, nodes = pc.args.nodes, F = pc.args.features, layer = pc.args.layer;
  const uint t = gl_LocalInvocationIndex;
  float mm = 0.0;
  for (uint f = 0u; f < F; ++f) mm += regs_f[pc.header.outbox + f] * regs_f[pc.header.outbox + f];
  const float mnorm = sqrt(mm);
  float c = 0.0, d = 0.0, o = 0.0, mx = 0.0;
  for (uint i = t; i < nodes; i += 128u) {
    float dot_m = 0.0, hh = 0.0;
    for (uint f = 0u; f < F; ++f) {
      const float v = globals_f[hn + i * F + f], u = globals_f[ho + i * F + f];
      dot_m += v * regs_f[pc.header.outbox + f];
      hh += v * v;
      d += (v - u) * (v - u);
      o += u * u;
      mx = max(mx, abs(v));
    }
    if (hh > 0.0 && mnorm > 0.0) c += dot_m / (sqrt(hh) * mnorm);
  }
  s_cos[t] = c;
  s_diff[t] = d;
  s_old[t] = o;
  s_max[t] = mx;
  barrier();
  for (uint k = 64u; k > 0u; k >>= 1) {
    if (t < k) {
      s_cos[t] += s_cos[t + k];
      s_diff[t] += s_diff[t + k];
      s_old[t] += s_old[t + k];
      s_max[t] = max(s_max[t], s_max[t + k]);
    }
    barrier();
  }
  if (t == 0u) {
    const uint me = pc.header.instance;
    const float rel = s_old[0] > 0.0 ? sqrt(s_diff[0] / s_old[0]) : 0.0;
    metrics[me].counters[0] = layer + 1u;
    metrics[me].counters[1] = floatBitsToUint(rel);
    metrics[me].counters[2] = floatBitsToUint(mnorm);
    weft_message_write(s_cos[0] / float(nodes), s_max[0], WEFT_STATUS_OK, weft_ticks_since(start));
  }
}
