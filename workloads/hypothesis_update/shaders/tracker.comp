// Spec §3.7, end of a burst-sampling step: the slope tracker shifts every live row's evidence
// history by one, appends the updated evidence and ages the row; the slope after the update is
// kept for the telemetry. One invocation per row.
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
  if (!lm_active(m) || param_u(m, P_KIND) != 1u) return;
  const uint live = globals_u[stat_word(s, S_RETAINED)] + globals_u[stat_word(s, S_ADDED)];
  if (h - sp(s, SP_ROW_OFF) >= live) return;
  const uint w = param_u(m, P_WINDOW);
  for (uint i = 0u; i + 1u < w; ++i) hyp_set_hist(h, i, hyp_hist(h, i + 1u));
  hyp_set_hist(h, w - 1u, hyp_E(h));
  hyp_set_age(h, hyp_age(h) + 1u);
  float slope;
  hyp_set_slope_bits(h, row_slope(h, m, slope) ? floatBitsToUint(slope) : HYP_NAN_BITS);
}
