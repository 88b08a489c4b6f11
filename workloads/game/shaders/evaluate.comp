#version 450
#extension GL_GOOGLE_include_directive : require
// Terminal detection and static evaluation of every node of level d (side to move's view):
//   the previous mover made four -> -(WIN - d); full board -> 0 (both terminal);
//   else sum over the board's windows (Heap, 2 words each) of weights[own] when the opponent
//   has no stone there, minus weights[opp] when the side to move has none.
// The value starts as the static score; a later backup replaces it once the node is expanded.
#include "game_args.h"
#define WEFT_ARGS GAME_EVALUATE_ARGS
#include "weft.glsl"
#include "game.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uvec2 start = weft_clock();
  const uint W = pc.args.width, H = pc.args.height, level_word = pc.args.nodes, d = pc.args.depth;
  const uint windows = pc.args.windows, window_count = pc.args.window_count, weights = pc.args.weights;
  const uint n_nodes = level_nodes(pc.args.counts, pc.args.capacity, d);
  const uint stride = gl_NumWorkGroups.x * GROUP;
  for (uint n = gl_GlobalInvocationID.x; n < n_nodes; n += stride) {
    const uint base = node_base(level_word, n);
    const uvec2 cur = node_cur(base), mask = node_mask(base), opp = cur ^ mask;
    uint info = globals_u[base + N_INFO];
    int score = 0;
    if (has_four(opp, H)) {
      score = -(GAME_WIN - int(d));
      info |= INFO_TERMINAL;
    } else if (popcount64(mask) == W * H) {
      info |= INFO_TERMINAL;
    } else {
      for (uint w = 0u; w < window_count; ++w) {
        const uvec2 win = uvec2(heap_u[windows + 2u * w], heap_u[windows + 2u * w + 1u]);
        const uint own = min(popcount64(win & cur), 3u), other = min(popcount64(win & opp), 3u);
        if (other == 0u) score += int(heap_u[weights + own]);
        if (own == 0u) score -= int(heap_u[weights + other]);
      }
    }
    globals_u[base + N_INFO] = info;
    globals_u[base + N_STATIC] = uint(score);
    globals_u[base + N_VALUE] = uint(score);
  }
  account_ticks(start, pc.args.ticks);
}
