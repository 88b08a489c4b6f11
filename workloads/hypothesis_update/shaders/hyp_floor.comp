// Spec §3.5 reductions per graph: how many hypotheses were tested, the floor max(min(new), 0)
// per channel that untested hypotheses get, and the prediction error of the previous best
// hypothesis (2C - total[argmax E_old]) / (3C). One workgroup per graph; tree reductions in
// shared memory (no subgroup-size assumption).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "weft.glsl"
#include "hyp_common.glsl"
layout(local_size_x = 64) in;

shared float s_min[HYP_WG];
shared uint s_count[HYP_WG];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint g = gl_WorkGroupID.x;
  const uint base = graph_hyp_off(g), count = graph_hyp_count(g);
  const uint channels = input_channels();
  for (uint c = 0u; c < channels; ++c) {
    float mn = HYP_INF;
    uint tested = 0u;
    for (uint h = t; h < count; h += HYP_WG) {
      const float v = globals_f[off_new() + c * padded_hyps() + base + h];
      if (v != HYP_INF) { mn = min(mn, v); ++tested; }
    }
    s_min[t] = mn;
    s_count[t] = tested;
    barrier();
    for (uint s = HYP_WG / 2u; s > 0u; s >>= 1u) {
      if (t < s) { s_min[t] = min(s_min[t], s_min[t + s]); s_count[t] += s_count[t + s]; }
      barrier();
    }
    if (t == 0u) {
      globals_f[stat_word(g, S_FLOOR + c)] = max(s_min[0], 0.0);
      if (c == 0u) globals_u[stat_word(g, S_TESTED)] = s_count[0];
    }
    barrier();
  }
  if (t != 0u) return;
  float pe = uintBitsToFloat(0x7fc00000u);  // NaN: nothing tested
  if (globals_u[stat_word(g, S_TESTED)] > 0u) {
    const uint best = base + globals_u[stat_word(g, S_ARGMAX)];
    float total = 0.0;
    for (uint c = 0u; c < channels; ++c) {
      const float v = globals_f[off_new() + c * padded_hyps() + best];
      total += v != HYP_INF ? v : globals_f[stat_word(g, S_FLOOR + c)];
    }
    pe = (2.0 * float(channels) - total) / (3.0 * float(channels));
  }
  globals_f[stat_word(g, S_PE)] = pe;
}
