// Monty's send_out_vote per LM (one workgroup each), after the step's evidence update: the
// evidence of all the LM's spaces scaled into [-1, 1] (over their min and max when max >= 1,
// else clipped; all equal and >= 1 gives numpy's NaN, so no vote), and each space's rows scoring
// above vote_evidence_threshold written, in row order, as vote records (location, rotation,
// scaled evidence) at the space's own rows of the vote array, their count in S_VOTES. Order is
// kept by a workgroup prefix sum per 64-row chunk. Receivers read the records in the next stage,
// so their evidence updates cannot reach what is sent.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

shared float s_lo[HYP_WG];
shared float s_hi[HYP_WG];
shared uint s_scan[HYP_WG];

uint live_rows(uint s) { return globals_u[stat_word(s, S_RETAINED)] + globals_u[stat_word(s, S_ADDED)]; }

// The smallest and largest evidence over the LM's live rows, left in s_lo[0] and s_hi[0].
void evidence_range(uint m, uint t) {
  const uint s0 = lmw(m, LM_SPACE0), spaces = lmw(m, LM_SPACES);
  float lo = HYP_INF, hi = -HYP_INF;
  for (uint s = s0; s < s0 + spaces; ++s)
    for (uint h = t; h < live_rows(s); h += HYP_WG) {
      const float e = hyp_E(sp(s, SP_ROW_OFF) + h);
      lo = min(lo, e);
      hi = max(hi, e);
    }
  s_lo[t] = lo;
  s_hi[t] = hi;
  barrier();
  for (uint k = HYP_WG / 2u; k > 0u; k >>= 1u) {
    if (t < k) {
      s_lo[t] = min(s_lo[t], s_lo[t + k]);
      s_hi[t] = max(s_hi[t], s_hi[t + k]);
    }
    barrier();
  }
}

float scaled(float e, float lo, float hi) { return hi >= 1.0 ? ((e - lo) / (hi - lo) - 0.5) * 2.0 : clamp(e, -1.0, 1.0); }

void write_vote(uint slot, uint h, float confidence) {
  for (uint i = 0u; i < 3u; ++i) globals_f[vote_word(slot, i)] = hyp_L(h, i);
  for (uint i = 0u; i < 9u; ++i) globals_f[vote_word(slot, 3u + i)] = hyp_R(h, i);
  globals_f[vote_word(slot, 12u)] = confidence;
}

// Inclusive prefix sum of s_scan over the workgroup (Hillis-Steele; every invocation takes part).
void scan(uint t) {
  for (uint k = 1u; k < HYP_WG; k <<= 1u) {
    const uint v = t >= k ? s_scan[t - k] : 0u;
    barrier();
    s_scan[t] += v;
    barrier();
  }
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint m = gl_WorkGroupID.x;
  if (!lm_active(m) || param_u(m, P_VOTE_SENDS) == 0u) return;
  evidence_range(m, t);
  const float lo = s_lo[0], hi = s_hi[0], threshold = param_f(m, P_VOTE_THR);
  const bool none = hi >= 1.0 && hi == lo;  // 0 / 0 in numpy: NaN everywhere, above no threshold
  const uint s0 = lmw(m, LM_SPACE0), spaces = lmw(m, LM_SPACES);
  for (uint s = s0; s < s0 + spaces; ++s) {
    const uint base = sp(s, SP_ROW_OFF), count = none ? 0u : live_rows(s);
    uint sent = 0u;
    for (uint chunk = 0u; chunk < count; chunk += HYP_WG) {
      const uint h = chunk + t;
      const bool take = h < count && scaled(hyp_E(base + h), lo, hi) > threshold;
      s_scan[t] = take ? 1u : 0u;
      barrier();
      scan(t);
      if (take) write_vote(base + sent + s_scan[t] - 1u, base + h, scaled(hyp_E(base + h), lo, hi));
      sent += s_scan[HYP_WG - 1u];
      barrier();
    }
    if (t == 0u) globals_u[stat_word(s, S_VOTES)] = sent;
  }
  weft_require_loops_whole();
}
