#version 450
#extension GL_GOOGLE_include_directive : require
// One invocation, after depth d's expansion: sizes the indirect dispatches from the node counts
// the kernels wrote, so the next stages launch exactly the workgroups their levels need:
// this iteration's evaluation of level d, and the next iteration's expansion of level d and
// backups of levels 0..d. A rule that ends the search zeroes the next iteration's slots after
// this kernel, so a stopped search stays stopped.
#include "game_args.h"
#define WEFT_ARGS GAME_SIZE_ARGS
#include "weft.glsl"
#include "game.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint count_word = pc.args.counts, capacity_word = pc.args.capacity, d = pc.args.depth;
  weft_set_control_word(pc.args.evaluate_slot, groups_for(level_nodes(count_word, capacity_word, d)));
  if (pc.args.next_slots != WEFT_NONE)
    for (uint k = 0u; k <= d; ++k)
      weft_set_control_word(pc.args.next_slots + k * WEFT_INDIRECT_SLOT_WORDS, groups_for(level_nodes(count_word, capacity_word, k)));
}
