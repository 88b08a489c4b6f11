// Spec §3.4 / §3.7: the step's new hypotheses, appended after the retained rows, frame-major
// (all selected nodes for sensed frame 0, then frame 1, ...): evidence = the node's channel-0
// feature evidence, location = the node's position, rotation = Nnᵀ S_j (the node's pose frame
// against sensed frame j, uploaded with the step input). Fresh slope history and age 0.
// One invocation per row.
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
  if (!lm_active(m)) return;
  const uint local_h = h - sp(s, SP_ROW_OFF);
  const uint retained = globals_u[stat_word(s, S_RETAINED)], added = globals_u[stat_word(s, S_ADDED)];
  if (local_h < retained || local_h >= retained + added) return;
  const uint r = local_h - retained, nsel = globals_u[stat_word(s, S_NSEL)];
  const uint j = r / nsel;
  const uint node = globals_u[sp(s, SP_ORDER_OFF) + globals_u[stat_word(s, S_SEL_FIRST)] + r % nsel];
  const uint gnode = sp(s, SP_NODE_OFF) + node;
  hyp_set_E(h, globals_f[sp(s, SP_FE_OFF) + node]);
  for (uint i = 0u; i < 3u; ++i) hyp_set_L(h, i, heap_f[lay(L_POS) + gnode * 3u + i]);
  // R[i][k] = sum_a Nn[a][i] S[a][k]  (node frame rows a: sn, cd1, cd2)
  const uint nn = lay(L_POSE) + gnode * 9u;
  for (uint i = 0u; i < 3u; ++i)
    for (uint k = 0u; k < 3u; ++k)
      hyp_set_R(h, i * 3u + k,
                heap_f[nn + 0u * 3u + i] * globals_f[frame_word(m, j, 0u * 3u + k)] +
                heap_f[nn + 1u * 3u + i] * globals_f[frame_word(m, j, 1u * 3u + k)] +
                heap_f[nn + 2u * 3u + i] * globals_f[frame_word(m, j, 2u * 3u + k)]);
  if (param_u(m, P_KIND) == 1u) hyp_set_age(h, 0u);
}
