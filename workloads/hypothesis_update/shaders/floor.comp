// Spec §3.5 reductions per space: how many retained hypotheses were tested, the floor
// max(min(new), 0) per channel that untested ones get, and the prediction error of the previous
// best retained hypothesis (first maximum of E before the update, as np.argmax)
// (2C - total[best]) / (3C). One workgroup per space; tree reductions in shared memory (no
// subgroup-size assumption).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

shared float s_min[HYP_WG];
shared uint s_count[HYP_WG];
shared float s_max[HYP_WG];
shared uint s_arg[HYP_WG];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint s = gl_WorkGroupID.x;
  const uint m = sp(s, SP_LM);
  if (!lm_active(m)) return;
  const uint base = sp(s, SP_ROW_OFF), count = globals_u[stat_word(s, S_RETAINED)];
  const uint channels = input_channels(m);
  if (lm_first(m) || count == 0u) {
    if (t == 0u) globals_f[stat_word(s, S_PE)] = uintBitsToFloat(0x7fc00000u);
    return;
  }
  for (uint c = 0u; c < channels; ++c) {
    float mn = HYP_INF;
    uint tested = 0u;
    for (uint h = t; h < count; h += HYP_WG) {
      const float v = hyp_new(c, base + h);
      if (v != HYP_INF) { mn = min(mn, v); ++tested; }
    }
    s_min[t] = mn;
    s_count[t] = tested;
    barrier();
    for (uint k = HYP_WG / 2u; k > 0u; k >>= 1u) {
      if (t < k) { s_min[t] = min(s_min[t], s_min[t + k]); s_count[t] += s_count[t + k]; }
      barrier();
    }
    if (t == 0u) {
      globals_f[stat_word(s, S_FLOOR + c)] = max(s_min[0], 0.0);
      if (c == 0u) globals_u[stat_word(s, S_TESTED)] = s_count[0];
    }
    barrier();
  }
  float mx = -HYP_INF;
  uint arg = 0xFFFFFFFFu;
  for (uint h = t; h < count; h += HYP_WG) {
    const float e = hyp_E(base + h);
    if (e > mx) { mx = e; arg = h; }  // h ascends per thread: the first maximum stays
  }
  s_max[t] = mx;
  s_arg[t] = arg;
  barrier();
  for (uint k = HYP_WG / 2u; k > 0u; k >>= 1u) {
    if (t < k && (s_max[t + k] > s_max[t] || (s_max[t + k] == s_max[t] && s_arg[t + k] < s_arg[t]))) {
      s_max[t] = s_max[t + k];
      s_arg[t] = s_arg[t + k];
    }
    barrier();
  }
  weft_require_loops_whole();
  if (t != 0u) return;
  float pe = uintBitsToFloat(0x7fc00000u);  // NaN: nothing tested
  if (globals_u[stat_word(s, S_TESTED)] > 0u) {
    const uint best = base + s_arg[0];
    float total = 0.0;
    for (uint c = 0u; c < channels; ++c) {
      const float v = hyp_new(c, best);
      total += v != HYP_INF ? v : globals_f[stat_word(s, S_FLOOR + c)];
    }
    pe = (2.0 * float(channels) - total) / (3.0 * float(channels));
  }
  globals_f[stat_word(s, S_PE)] = pe;
  weft_require_loops_whole();
}
