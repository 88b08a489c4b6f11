#version 450
#extension GL_GOOGLE_include_directive : require
// One invocation, after depth d's expansion: sizes the indirect dispatches from the node counts
// the kernels wrote, so the next stages launch exactly the workgroups their levels need:
// this iteration's evaluation of level d, and the next iteration's expansion of level d and
// backups of levels 0..d. A rule that ends the search zeroes the next iteration's slots after
// this kernel, so a stopped search stays stopped.
// user: [0] first count word, [1] first capacity word, [2] d, [3] slot word of this iteration's
//       level-d evaluation, [4] slot word of the next iteration's level 0 (WEFT_NONE if last).
#include "weft.glsl"
#include "game.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint count_word = pc.user[0], capacity_word = pc.user[1], d = pc.user[2];
  weft_set_control_word(pc.user[3], groups_for(level_nodes(count_word, capacity_word, d)));
  if (pc.user[4] != WEFT_NONE)
    for (uint k = 0u; k <= d; ++k)
      weft_set_control_word(pc.user[4] + k * WEFT_INDIRECT_SLOT_WORDS, groups_for(level_nodes(count_word, capacity_word, k)));
}
