#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter game -> physics: the search's best move for root 0 (Globals `results` word 0) picks
// the disc's launch velocity from a per-column table the host wrote to Heap (so the host-driven
// run uses the very same floats), and writes it into the physics velocity of particle 0.
// R30 = [chosen column, 0, 0, 0].
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_LAUNCH_ARGS
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  if (weft_halted()) return;
  const uint W = pc.args.columns;
  const uint column = min(globals_u[pc.args.results], W - 1u);
  for (uint a = 0u; a < 3u; ++a) globals_u[pc.args.velocities + a] = heap_u[pc.args.launch_table + column * 3u + a];
  weft_outbox_u(0u, column);
  weft_outbox_u(1u, 0u);
  weft_outbox_u(2u, 0u);
  weft_outbox_u(3u, 0u);
  weft_message_write(0.0, float(column), WEFT_STATUS_OK, uvec2(0u));
}
