// Spec §3.7 deletion: each burst-sampling space keeps the rows its slope tracker kept, in
// order, and lists the removed row ids (ascending) for the telemetry. Stream compaction in
// place by one workgroup per space, 64 rows at a time with a shared-memory prefix sum. In place
// is safe: a chunk's rows go to indices at or below their own, all read before any is written,
// and later chunks only read rows past every index written so far.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

shared uint s_scan[HYP_WG];
shared uint s_out;

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint s = gl_WorkGroupID.x;
  const uint m = sp(s, SP_LM);
  if (!lm_active(m) || param_u(m, P_KIND) != 1u) return;
  const uint base = sp(s, SP_ROW_OFF), count = globals_u[stat_word(s, S_COUNT)];
  const uint w = param_u(m, P_WINDOW);
  if (t == 0u) s_out = 0u;
  barrier();
  for (uint first = 0u; first < count; first += HYP_WG) {
    const uint local_h = first + t, h = base + local_h;
    const bool valid = local_h < count;
    const bool keep = valid && hyp_keep(h);
    float e = 0.0;
    float v[13];
    float hist[HYP_MAX_WINDOW];
    uint age = 0u;
    if (keep) {
      e = hyp_E(h);
      for (uint i = 0u; i < 3u; ++i) v[i] = hyp_L(h, i);
      for (uint i = 0u; i < 9u; ++i) v[3u + i] = hyp_R(h, i);
      for (uint i = 0u; i < w; ++i) hist[i] = hyp_hist(h, i);
      age = hyp_age(h);
    }
    s_scan[t] = keep ? 1u : 0u;
    barrier();
    // Inclusive Hillis-Steele scan of the keep flags.
    for (uint k = 1u; k < HYP_WG; k <<= 1u) {
      const uint add = t >= k ? s_scan[t - k] : 0u;
      barrier();
      s_scan[t] += add;
      barrier();
    }
    const uint kept_before = s_out + s_scan[t] - (keep ? 1u : 0u);
    if (keep) {
      const uint o = base + kept_before;
      hyp_set_E(o, e);
      for (uint i = 0u; i < 3u; ++i) hyp_set_L(o, i, v[i]);
      for (uint i = 0u; i < 9u; ++i) hyp_set_R(o, i, v[3u + i]);
      for (uint i = 0u; i < w; ++i) hyp_set_hist(o, i, hist[i]);
      hyp_set_age(o, age);
    } else if (valid) {
      hyp_set_removed(base + local_h - kept_before, local_h);
    }
    barrier();
    if (t == HYP_WG - 1u) s_out += s_scan[t];
    barrier();
  }
  if (t == 0u) {
    globals_u[stat_word(s, S_RETAINED)] = s_out;
    globals_u[stat_word(s, S_REMOVED)] = count - s_out;
  }
  weft_require_loops_whole();
}
