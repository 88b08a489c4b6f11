#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter physics -> game: where the disc came to rest decides the column actually played.
// Column = floor(x * W / Lx) of particle 0, clamped; a full column falls back to the intended
// one. Plays it on root 0 of the first search and writes the result as the root of the second
// search (which evaluates the outcome from the opponent's side). R31 = the last physics step's
// summary (PHYS_MSG_*); R30 = [played column, intended column, fell back, physics step].
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_OUTCOME_ARGS
#include "weft.glsl"
#include "game.glsl"
#include "physics_layout.h"

layout(local_size_x = 1) in;

void main() {
  if (weft_halted()) return;
  const uint W = pc.args.width, H = pc.args.height;
  const float x = globals_f[pc.args.positions];
  const uint landed = uint(clamp(floor(x * pc.args.columns_per_length), 0.0, float(W - 1u)));
  const uint intended = min(globals_u[pc.args.played_results], W - 1u);
  const uint src = node_base(pc.args.played_roots, 0u);
  const uvec2 cur = node_cur(src), mask = node_mask(src);
  const bool full = column_height(mask, landed, H) >= H;
  const uint col = full ? intended : landed;
  const uvec2 stone = bit64(col * (H + 1u) + column_height(mask, col, H));
  const uint dst = node_base(pc.args.next_root, 0u);
  const uvec2 next_cur = cur ^ mask, next_mask = mask | stone;  // the other side moves next
  globals_u[dst + N_CUR] = next_cur.x;
  globals_u[dst + N_CUR + 1u] = next_cur.y;
  globals_u[dst + N_MASK] = next_mask.x;
  globals_u[dst + N_MASK + 1u] = next_mask.y;
  globals_u[dst + N_FIRST] = 0u;
  globals_u[dst + N_INFO] = 0xFFu << INFO_COLUMN_SHIFT;
  globals_u[dst + N_STATIC] = 0u;
  globals_u[dst + N_VALUE] = 0u;
  const uint step = weft_has_inbox() ? weft_inbox_u(PHYS_MSG_STEP) : 0u;
  weft_outbox_u(0u, col);
  weft_outbox_u(1u, intended);
  weft_outbox_u(2u, full ? 1u : 0u);
  weft_outbox_u(3u, step);
  weft_message_write(abs(float(col) - float(intended)), x, WEFT_STATUS_OK, uvec2(0u));
}
