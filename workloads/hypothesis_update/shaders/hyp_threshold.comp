// Spec §3.1 and the "previous best" of §3.5: per graph of the LM, max (first index on ties, as
// np.argmax), min and sum of the evidence before the step, then the evidence-update threshold.
// One workgroup for the whole LM: the graphs are few and the threshold modes need the LM-wide
// max, so a single pass avoids a second dispatch. Reductions are tree reductions in shared
// memory, independent of the subgroup size.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "weft.glsl"
#include "hyp_common.glsl"
layout(local_size_x = 64) in;

shared float s_max[HYP_WG];
shared uint s_arg[HYP_WG];
shared float s_min[HYP_WG];
shared float s_sum[HYP_WG];

void main() {
  const uint t = gl_LocalInvocationID.x;
  for (uint g = 0u; g < graph_count(); ++g) {
    const uint base = graph_hyp_off(g), count = graph_hyp_count(g);
    float mx = -HYP_INF, mn = HYP_INF, sm = 0.0;
    uint arg = 0xFFFFFFFFu;
    for (uint h = t; h < count; h += HYP_WG) {
      const float e = globals_f[off_E() + base + h];
      if (e > mx) { mx = e; arg = h; }  // h ascends per thread: the first maximum stays
      mn = min(mn, e);
      sm += e;
    }
    s_max[t] = mx; s_arg[t] = arg; s_min[t] = mn; s_sum[t] = sm;
    barrier();
    for (uint s = HYP_WG / 2u; s > 0u; s >>= 1u) {
      if (t < s) {
        const float om = s_max[t + s];
        const uint oa = s_arg[t + s];
        if (om > s_max[t] || (om == s_max[t] && oa < s_arg[t])) { s_max[t] = om; s_arg[t] = oa; }
        s_min[t] = min(s_min[t], s_min[t + s]);
        s_sum[t] += s_sum[t + s];
      }
      barrier();
    }
    if (t == 0u) {
      globals_f[stat_word(g, S_MAX)] = s_max[0];
      globals_u[stat_word(g, S_ARGMAX)] = s_arg[0];
      globals_f[stat_word(g, S_MIN)] = s_min[0];
      globals_f[stat_word(g, S_SUM)] = s_sum[0];
    }
    barrier();
  }
  if (t != 0u) return;
  // The LM's best evidence after its previous step is the max over its graphs now.
  float best = -HYP_INF;
  for (uint g = 0u; g < graph_count(); ++g)
    if (graph_hyp_count(g) > 0u) best = max(best, globals_f[stat_word(g, S_MAX)]);
  for (uint g = 0u; g < graph_count(); ++g) {
    const uint count = graph_hyp_count(g);
    const uint mode = param_u(P_THR_MODE);
    float thr = 0.0;
    if (count > 0u) {
      if (mode == 0u) thr = param_f(P_THR_VALUE);
      else if (mode == 1u) thr = globals_f[stat_word(g, S_SUM)] / float(count);
      else if (mode == 3u) thr = best - best * (param_f(P_THR_VALUE) / 100.0);
      else if (mode == 4u) thr = best - best / 100.0 * param_f(P_X_PERCENT);
      else if (mode == 5u) thr = globals_f[stat_word(g, S_MIN)];
    }
    globals_f[stat_word(g, S_THR)] = thr;
  }
}
