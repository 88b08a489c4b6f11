// Spec §3.7, start of a burst-sampling step: every live hypothesis's evidence slope (for the
// burst trigger and the telemetry) and whether the slope tracker keeps it: slope >=
// deletion_trigger_slope, or younger than min_age. One invocation per row; rows of LMs without
// input or with the default updater are left alone.
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
  
  if (h - sp(s, SP_ROW_OFF) >= globals_u[stat_word(s, S_COUNT)]) return;
  float slope;
  const bool has_slope = row_slope(h, m, slope);
  hyp_set_slope_bits(h, has_slope ? floatBitsToUint(slope) : HYP_NAN_BITS);
  const bool young = hyp_age(h) < param_u(m, P_MIN_AGE);
  const bool keep = !lm_first(m) && ((has_slope && slope >= param_f(m, P_DEL_SLOPE)) || young);
  hyp_set_keep(h, keep);
}
