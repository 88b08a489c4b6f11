#version 450
#extension GL_GOOGLE_include_directive : require
// Depth d's message. R30 = [action, confidence, depth reached, novelty] of root 0 (the next
// depth's instance reads it as R31). Metrics: counters[0] nodes of level d, [1] nodes evaluated
// so far (levels 1..d), [2] d, [5] overflowed nodes, [7] compute ticks so far in units of 1024
// (counters 3, 4, 6 come from select); ticks = this depth's compute ticks (x 1024);
// norm = degenerate roots / roots, max_abs = largest |root score|; status ANOMALY on overflow,
// DEGENERATE (16) when some root is degenerate. The regulator reads these next.
#include "game_args.h"
#define WEFT_ARGS GAME_MESSAGE_ARGS
#include "weft.glsl"
#include "game.glsl"

layout(local_size_x = 1) in;

void main() {
  if (weft_halted()) return;
  const uint count_word = pc.args.counts, d = pc.args.depth, results = pc.args.results;
  const uint me = pc.header.instance;
  uint so_far = 0u;
  for (uint k = 1u; k <= d; ++k) so_far += weft_control_word(count_word + k);
  const uint roots = weft_control_word(count_word);
  const uint overflow = weft_control_word(pc.args.overflow);
  metrics[me].counters[0] = weft_control_word(count_word + d);
  metrics[me].counters[1] = so_far;
  metrics[me].counters[2] = d;
  metrics[me].counters[5] = overflow;
  const uint ticks = weft_control_word(pc.args.ticks);
  const uint before = weft_has_inbox() ? metrics[pc.header.inbox_instance].counters[7] : 0u;
  metrics[me].counters[7] = ticks;
  const uint degenerate = metrics[me].counters[3];
  weft_outbox_u(0u, globals_u[results + 0u]);
  weft_outbox_u(1u, globals_u[results + 2u]);
  weft_outbox_u(2u, d);
  weft_outbox_u(3u, globals_u[results + 4u]);
  const uint status = overflow != 0u ? WEFT_STATUS_ANOMALY : (degenerate != 0u ? WEFT_STATUS_WORKLOAD_FIRST : WEFT_STATUS_OK);
  weft_message_write(roots > 0u ? float(degenerate) / float(roots) : 0.0, float(metrics[me].counters[6]), status,
                     uvec2((ticks - before) << 10, (ticks - before) >> 22));
}
