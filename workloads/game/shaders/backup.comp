#version 450
#extension GL_GOOGLE_include_directive : require
// Negamax backup of level k: an expanded node's value is the best of -value over its children
// (a contiguous block in level k+1), any other node keeps its static score. Run for k = d-1
// down to 0 after depth d is evaluated, each level after the one below it.
#include "game_args.h"
#define WEFT_ARGS GAME_BACKUP_ARGS
#include "weft.glsl"
#include "game.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uvec2 start = weft_clock();
  const uint level_word = pc.args.nodes, child_word = pc.args.children, k = pc.args.level;
  const uint n_nodes = level_nodes(pc.args.counts, pc.args.capacity, k);
  const uint stride = gl_NumWorkGroups.x * GROUP;
  for (uint n = gl_GlobalInvocationID.x; n < n_nodes; n += stride) {
    const uint base = node_base(level_word, n);
    const uint info = globals_u[base + N_INFO];
    int value = int(globals_u[base + N_STATIC]);
    if ((info & INFO_EXPANDED) != 0u) {
      const uint first = globals_u[base + N_FIRST], count = info & INFO_CHILDREN;
      value = -GAME_WIN - 1;
      for (uint j = 0u; j < count; ++j) value = max(value, -int(globals_u[node_base(child_word, first + j) + N_VALUE]));
    }
    globals_u[base + N_VALUE] = uint(value);
  }
  account_ticks(start, pc.args.ticks);
}
