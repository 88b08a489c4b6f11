// Spec §3.5 evidence update of the retained rows: E <- past E + present total, total = sum over
// channels of the row's location evidence (tested) or its space's floor (untested). Spaces where
// nothing was tested keep their evidence. One invocation per row.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

void main() {
  
  if (!row_wg_valid()) return;
  const uint h = row_h();  // row in the stacked arrays
  const uint s = wg_space(row_wg());
  const uint m = sp(s, SP_LM);
  if (!lm_active(m) || lm_first(m)) return;
  if (h - sp(s, SP_ROW_OFF) >= globals_u[stat_word(s, S_RETAINED)]) return;
  if (globals_u[stat_word(s, S_TESTED)] == 0u) return;
  float total = 0.0;
  for (uint c = 0u; c < input_channels(m); ++c) {
    const float v = hyp_new(c, h);
    total += v != HYP_INF ? v : globals_f[stat_word(s, S_FLOOR + c)];
  }
  hyp_set_E(h, hyp_E(h) * param_f(m, P_PAST) + total * param_f(m, P_PRESENT));
}
