#version 450
#extension GL_GOOGLE_include_directive : require
// Move generation: every node of level d-1 that is not terminal reserves one contiguous block of
// children in level d with a single atomic add and writes them in column order (the order the
// backup's tie-break relies on). A child is the position after the move, seen from the side now
// to move: cur' = cur ^ mask (the opponent's stones), mask' = mask | the new stone.
#include "game_args.h"
#define WEFT_ARGS GAME_EXPAND_ARGS
#include "weft.glsl"
#include "game.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uvec2 start = weft_clock();
  const uint W = pc.args.width, H = pc.args.height, parents = pc.args.parents, children = pc.args.children;
  const uint count_word = pc.args.counts, capacity_word = pc.args.capacity, overflow_word = pc.args.overflow, level = pc.args.level;
  const uint n_parents = level_nodes(count_word, capacity_word, level);
  const uint capacity = weft_control_word(capacity_word + level + 1u);
  const uint stride = gl_NumWorkGroups.x * GROUP;
  for (uint n = gl_GlobalInvocationID.x; n < n_parents; n += stride) {
    const uint base = node_base(parents, n);
    uint info = globals_u[base + N_INFO] & ~(INFO_CHILDREN | INFO_EXPANDED);
    if ((info & INFO_TERMINAL) != 0u) {
      globals_u[base + N_INFO] = info;
      continue;
    }
    const uvec2 cur = node_cur(base), mask = node_mask(base);
    uint heights[12];
    uint k = 0u;
    for (uint c = 0u; c < W; ++c) {
      heights[c] = column_height(mask, c, H);
      if (heights[c] < H) ++k;
    }
    const uint first = atomicAdd(control.words[count_word + level + 1u - WEFT_CONTROL_HEADER_WORDS], k);
    if (first + k > capacity) {  // no room: the host sees the overflow word and refuses the run
      atomicAdd(control.words[overflow_word - WEFT_CONTROL_HEADER_WORDS], k);
      globals_u[base + N_INFO] = info;
      continue;
    }
    const uvec2 opp = cur ^ mask;
    uint j = first;
    for (uint c = 0u; c < W; ++c) {
      if (heights[c] >= H) continue;
      const uvec2 child_mask = mask | bit64(c * (H + 1u) + heights[c]);
      const uint cb = node_base(children, j++);
      globals_u[cb + N_CUR] = opp.x;
      globals_u[cb + N_CUR + 1u] = opp.y;
      globals_u[cb + N_MASK] = child_mask.x;
      globals_u[cb + N_MASK + 1u] = child_mask.y;
      globals_u[cb + N_FIRST] = 0u;
      globals_u[cb + N_INFO] = c << INFO_COLUMN_SHIFT;
    }
    globals_u[base + N_FIRST] = first;
    globals_u[base + N_INFO] = info | k | INFO_EXPANDED;
  }
  account_ticks(start, pc.args.ticks);
}
