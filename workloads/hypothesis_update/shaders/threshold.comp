// Spec §3.1 and the burst trigger of §3.7, per LM (one workgroup each): for every space of the
// LM the max, min and sum of the evidence before the step and its largest slope, then the
// evidence-update thresholds (the LM-wide max is the previous step's best evidence) and, for
// burst sampling, whether a burst starts (largest slope over the LM's graphs <=
// burst_trigger_slope and none running). Also opens the step's bookkeeping: nothing removed or
// added yet. Tree reductions in shared memory, independent of the subgroup size.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

shared float s_max[HYP_WG];
shared float s_min[HYP_WG];
shared float s_sum[HYP_WG];
shared float s_slope[HYP_WG];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint m = gl_WorkGroupID.x;
  if (!lm_active(m)) return;
  const bool burst = param_u(m, P_KIND) == 1u;
  const uint s0 = lmw(m, LM_SPACE0), spaces = lmw(m, LM_SPACES);
  for (uint s = s0; s < s0 + spaces; ++s) {
    const uint base = sp(s, SP_ROW_OFF), count = globals_u[stat_word(s, S_COUNT)];
    float mx = -HYP_INF, mn = HYP_INF, sm = 0.0, sl = -HYP_INF;
    for (uint h = t; h < count; h += HYP_WG) {
      const float e = hyp_E(base + h);
      mx = max(mx, e);
      mn = min(mn, e);
      sm += e;
      if (burst) {
        const uint bits = hyp_slope_bits(base + h);
        if (bits != HYP_NAN_BITS) sl = max(sl, uintBitsToFloat(bits));
      }
    }
    s_max[t] = mx; s_min[t] = mn; s_sum[t] = sm; s_slope[t] = sl;
    barrier();
    for (uint k = HYP_WG / 2u; k > 0u; k >>= 1u) {
      if (t < k) {
        s_max[t] = max(s_max[t], s_max[t + k]);
        s_min[t] = min(s_min[t], s_min[t + k]);
        s_sum[t] += s_sum[t + k];
        s_slope[t] = max(s_slope[t], s_slope[t + k]);
      }
      barrier();
    }
    if (t == 0u) {
      globals_f[stat_word(s, S_MAX)] = s_max[0];
      globals_f[stat_word(s, S_MIN)] = s_min[0];
      globals_f[stat_word(s, S_SUM)] = s_sum[0];
      globals_f[stat_word(s, S_MAXSLOPE)] = s_slope[0];
      globals_u[stat_word(s, S_RETAINED)] = count;
      globals_u[stat_word(s, S_ADDED)] = 0u;
      globals_u[stat_word(s, S_REMOVED)] = 0u;
      globals_u[stat_word(s, S_NSEL)] = 0u;
      globals_u[stat_word(s, S_SEL_FIRST)] = 0u;
      globals_u[stat_word(s, S_TESTED)] = 0u;
    }
    barrier();
  }
  weft_require_loops_whole();
  if (t != 0u) return;
  float best = -HYP_INF, slope = -HYP_INF;
  for (uint s = s0; s < s0 + spaces; ++s) {
    if (globals_u[stat_word(s, S_COUNT)] > 0u) best = max(best, globals_f[stat_word(s, S_MAX)]);
    slope = max(slope, globals_f[stat_word(s, S_MAXSLOPE)]);
  }
  const uint mode = param_u(m, P_THR_MODE);
  for (uint s = s0; s < s0 + spaces; ++s) {
    const uint count = globals_u[stat_word(s, S_COUNT)];
    float thr = 0.0;
    if (count > 0u) {
      if (mode == MODE_NUMBER) thr = param_f(m, P_THR_VALUE);
      else if (mode == MODE_MEAN) thr = globals_f[stat_word(s, S_SUM)] / float(count);
      else if (mode == MODE_MEDIAN) thr = globals_f[stat_word(s, S_MEDIAN)];
      else if (mode == MODE_PERCENT) thr = best - best * (param_f(m, P_THR_VALUE) / 100.0);
      else if (mode == MODE_XPERCENT) thr = best - best / 100.0 * param_f(m, P_X_PERCENT);
      else if (mode == MODE_ALL) thr = globals_f[stat_word(s, S_MIN)];
    }
    globals_f[stat_word(s, S_THR)] = thr;
  }
  uint steps = 0u;
  if (burst) {
    steps = globals_u[lm_state(m, M_BURST)];
    if (slope <= param_f(m, P_TRIGGER_SLOPE) && steps == 0u) steps = param_u(m, P_DURATION);
    globals_u[lm_state(m, M_BURST)] = steps;
  }
  globals_u[lm_state(m, M_BURST_IN_STEP)] = steps;
  globals_f[lm_state(m, M_MAX_SLOPE)] = slope;
  weft_require_loops_whole();
}
