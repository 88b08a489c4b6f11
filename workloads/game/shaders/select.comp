#version 450
#extension GL_GOOGLE_include_directive : require
// Move scoring and selection per root after depth d's backup: the score of each legal column
// (-value of that child), the best move (lowest column among equal scores), confidence (best
// minus the best of the other moves; WIN with a single legal move), degenerate (more than one
// legal move, all scoring the same) and novelty (the best move changed since depth d-1).
// Results (Globals, 24 words per root): [0] move [1] score [2] confidence [3] depth
// [4] novelty [5] degenerate [6] legal moves [7] 0 [8..8+W) column scores (INT_MIN: illegal).
// Counts into this depth's Metrics: counters[3] degenerate, [4] novel, [6] max |score|.
#include "game_args.h"
#define WEFT_ARGS GAME_SELECT_ARGS
#include "weft.glsl"
#include "game.glsl"

layout(local_size_x = 64) in;

#define RESULT_WORDS 24u
#define NO_MOVE 0x80000000u

void main() {
  if (weft_halted()) return;
  const uvec2 start = weft_clock();
  const uint W = pc.args.width, roots = pc.args.roots, level1 = pc.args.level1, results = pc.args.results, d = pc.args.depth;
  const uint n_roots = level_nodes(pc.args.counts, pc.args.capacity, 0u);
  const uint stride = gl_NumWorkGroups.x * GROUP;
  const uint me = pc.header.instance;
  for (uint r = gl_GlobalInvocationID.x; r < n_roots; r += stride) {
    const uint base = node_base(roots, r), out_base = results + r * RESULT_WORDS;
    const uint info = globals_u[base + N_INFO], first = globals_u[base + N_FIRST];
    const uint count = (info & INFO_EXPANDED) != 0u ? info & INFO_CHILDREN : 0u;
    for (uint c = 0u; c < W; ++c) globals_u[out_base + 8u + c] = NO_MOVE;
    int best = 0, second = 0;
    uint move = WEFT_NONE, at_best = 0u;
    bool has_second = false;
    for (uint j = 0u; j < count; ++j) {
      const uint cb = node_base(level1, first + j);
      const uint c = (globals_u[cb + N_INFO] >> INFO_COLUMN_SHIFT) & 0xFFu;
      const int s = -int(globals_u[cb + N_VALUE]);
      globals_u[out_base + 8u + c] = uint(s);
      if (move == WEFT_NONE || s > best) {  // strictly better: an equal later column never wins
        if (move != WEFT_NONE) {
          second = best;  // the old best is at least every other score seen so far
          has_second = true;
        }
        best = s;
        move = c;
      } else {
        second = has_second ? max(second, s) : s;
        has_second = true;
      }
    }
    // Children are in column order, so the first to reach the best score is the lowest column.
    for (uint j = 0u; j < count; ++j) at_best += -int(globals_u[node_base(level1, first + j) + N_VALUE]) == best ? 1u : 0u;
    const bool degenerate = count > 1u && at_best == count;
    const uint previous = globals_u[out_base + 0u];
    const bool novelty = d > 1u && previous != move;
    globals_u[out_base + 0u] = move;
    globals_u[out_base + 1u] = uint(best);
    globals_u[out_base + 2u] = count > 1u ? uint(best - second) : uint(GAME_WIN);
    globals_u[out_base + 3u] = d;
    globals_u[out_base + 4u] = novelty ? 1u : 0u;
    globals_u[out_base + 5u] = degenerate ? 1u : 0u;
    globals_u[out_base + 6u] = count;
    globals_u[out_base + 7u] = 0u;
    if (degenerate) atomicAdd(metrics[me].counters[3], 1u);
    if (novelty) atomicAdd(metrics[me].counters[4], 1u);
    atomicMax(metrics[me].counters[6], uint(abs(best)));
  }
  account_ticks(start, pc.args.ticks);
}
