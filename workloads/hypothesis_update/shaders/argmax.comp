// End of the step per LM (one workgroup each): the spaces' new live counts (retained + added),
// the most likely hypothesis (spec §3.6: global argmax of E over the LM's graphs, the first
// graph in the LM's order with the largest evidence and its first hypothesis with it) and the
// burst countdown. Tree reduction keyed by (evidence, stacked row): rows ascend with (graph,
// hypothesis), so the lower row wins ties exactly like the CPU reference.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

shared float s_max[HYP_WG];
shared uint s_row[HYP_WG];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint m = gl_WorkGroupID.x;
  if (!lm_active(m)) return;
  const uint s0 = lmw(m, LM_SPACE0), spaces = lmw(m, LM_SPACES);
  float mx = -HYP_INF;
  uint row = 0xFFFFFFFFu;
  for (uint s = s0; s < s0 + spaces; ++s) {
    const uint base = sp(s, SP_ROW_OFF);
    const uint count = globals_u[stat_word(s, S_RETAINED)] + globals_u[stat_word(s, S_ADDED)];
    for (uint h = t; h < count; h += HYP_WG) {
      const float e = hyp_E(base + h);
      if (e > mx) { mx = e; row = base + h; }
    }
  }
  s_max[t] = mx;
  s_row[t] = row;
  barrier();
  for (uint k = HYP_WG / 2u; k > 0u; k >>= 1u) {
    if (t < k && (s_max[t + k] > s_max[t] || (s_max[t + k] == s_max[t] && s_row[t + k] < s_row[t]))) {
      s_max[t] = s_max[t + k];
      s_row[t] = s_row[t + k];
    }
    barrier();
  }
  weft_require_loops_whole();
  if (t != 0u) return;
  for (uint s = s0; s < s0 + spaces; ++s) {
    const uint count = globals_u[stat_word(s, S_RETAINED)] + globals_u[stat_word(s, S_ADDED)];
    globals_u[stat_word(s, S_COUNT)] = count;
    const uint base = sp(s, SP_ROW_OFF);
    if (s_row[0] >= base && s_row[0] - base < count) {
      globals_u[lm_state(m, M_GRAPH)] = s - s0;
      globals_u[lm_state(m, M_HYP)] = s_row[0] - base;
      globals_f[lm_state(m, M_EVIDENCE)] = s_max[0];
    }
  }
  const uint steps = globals_u[lm_state(m, M_BURST)];
  if (steps > 0u) globals_u[lm_state(m, M_BURST)] = steps - 1u;
  weft_require_loops_whole();
}
