// Monty's receive_votes / _update_evidence_with_vote, one invocation per live row of an LM with
// input: the votes its space's senders (LMs with input this step, vote matrix order) sent on the
// same graph, each moved by R^T (own sensed location - the sender's); the 3 nearest (ties to
// the earlier vote), of which those closer than max_match_distance count; the largest of their
// scaled evidences is added times vote_weight (or averaged with weights 1 and vote_weight when
// past_weight + present_weight == 1). No counting vote: the evidence stays.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

#define VOTE_NN 3

float g_d2[VOTE_NN];
float g_conf[VOTE_NN];
int g_count = 0;

// Keeps the VOTE_NN nearest offers, nearest first; an equal distance ranks after earlier ones.
void offer(float d2, float confidence) {
  int at = min(g_count, VOTE_NN);
  while (at > 0 && g_d2[at - 1] > d2) --at;
  if (at >= VOTE_NN) return;
  for (int j = min(g_count, VOTE_NN - 1); j > at; --j) {
    g_d2[j] = g_d2[j - 1];
    g_conf[j] = g_conf[j - 1];
  }
  g_d2[at] = d2;
  g_conf[at] = confidence;
  g_count = min(g_count + 1, VOTE_NN);
}

// The vote of record `row` moved by R^T d, offered at its squared distance from p.
void offer_vote(uint row, vec3 d, vec3 p) {
  vec3 q;
  for (uint c = 0u; c < 3u; ++c)
    q[c] = globals_f[vote_word(row, c)] + (globals_f[vote_word(row, 3u + c)] * d[0] +
                                           globals_f[vote_word(row, 6u + c)] * d[1] +
                                           globals_f[vote_word(row, 9u + c)] * d[2]);
  const vec3 x = p - q;
  offer(x[0] * x[0] + x[1] * x[1] + x[2] * x[2], globals_f[vote_word(row, 12u)]);
}

void main() {
  if (!row_wg_valid()) return;
  const uint h = row_h();
  const uint s = wg_space(row_wg());
  const uint m = sp(s, SP_LM);
  if (!lm_active(m)) return;
  const uint live = globals_u[stat_word(s, S_RETAINED)] + globals_u[stat_word(s, S_ADDED)];
  if (h - sp(s, SP_ROW_OFF) >= live) return;
  const uint first = heap_u[lay(L_VOTE_SRC) + s * 2u], senders = heap_u[lay(L_VOTE_SRC) + s * 2u + 1u];
  const vec3 p = hyp_L3(h), here = load3g(vote_loc_word(m));
  for (uint i = 0u; i < senders; ++i) {
    const uint s2 = heap_u[lay(L_VOTE_LIST) + first + i];
    if (!lm_active(sp(s2, SP_LM))) continue;
    const vec3 d = here - load3g(vote_loc_word(sp(s2, SP_LM)));
    const uint base = sp(s2, SP_ROW_OFF), votes = globals_u[stat_word(s2, S_VOTES)];
    for (uint v = 0u; v < votes; ++v) offer_vote(base + v, d, p);
  }
  const float mmd = param_f(m, P_MMD);
  bool any = false;
  float vote = 0.0;
  for (int k = 0; k < g_count; ++k)
    if ((mmd - sqrt(g_d2[k])) / mmd > 0.0 && (!any || g_conf[k] > vote)) {
      vote = g_conf[k];
      any = true;
    }
  weft_require_loops_whole();  // llvmpipe may cut long loops: fail by name rather than miss votes
  if (!any) return;
  const float e = hyp_E(h), w = param_f(m, P_VOTE_WEIGHT);
  hyp_set_E(h, param_u(m, P_VOTE_AVG) != 0u ? (e * 1.0 + vote * w) / (1.0 + w) : e + vote * w);
}
