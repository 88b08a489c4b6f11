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
  const uint w = param_u(m, P_WINDOW), base = lay(L_HIST) + h * lay(L_HIST_STRIDE);
  for (uint i = 0u; i + 1u < w; ++i) globals_f[base + i] = globals_f[base + i + 1u];
  globals_f[base + w - 1u] = globals_f[lay(L_E) + h];
  globals_u[lay(L_AGE) + h] += 1u;
  float slope;
  globals_u[lay(L_SLOPE) + h] = row_slope(h, m, slope) ? floatBitsToUint(slope) : HYP_NAN_BITS;
}
