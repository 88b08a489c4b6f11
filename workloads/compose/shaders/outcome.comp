#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter physics -> game: where the disc came to rest decides the column actually played.
// Column = floor(x * W / Lx) of particle 0, clamped; a full column falls back to the intended
// one. Plays it on root 0 of the first search and writes the result as the root of the second
// search (which evaluates the outcome from the opponent's side). R31 = the last physics step's
// summary (PHYS_MSG_*); R30 = [played column, intended column, fell back, physics step].
// user: [0] physics positions (Globals word), [1] f32 bits of W / Lx, [2] W, [3] H,
//       [4] root level of the first search (Globals word), [5] results of the first search,
//       [6] root level of the second search (Globals word)
#include "weft.glsl"
#include "game.glsl"
#include "physics_layout.h"

layout(local_size_x = 1) in;

void main() {
  if (weft_halted()) return;
  const uint W = pc.user[2], H = pc.user[3];
  const float x = globals_f[pc.user[0]];
  const uint landed = uint(clamp(floor(x * uintBitsToFloat(pc.user[1])), 0.0, float(W - 1u)));
  const uint intended = min(globals_u[pc.user[5]], W - 1u);
  const uint src = node_base(pc.user[4], 0u);
  const uvec2 cur = node_cur(src), mask = node_mask(src);
  const bool full = column_height(mask, landed, H) >= H;
  const uint col = full ? intended : landed;
  const uvec2 stone = bit64(col * (H + 1u) + column_height(mask, col, H));
  const uint dst = node_base(pc.user[6], 0u);
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
