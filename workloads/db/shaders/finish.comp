#version 450
#extension GL_GOOGLE_include_directive : require
// Output: applies OFFSET/LIMIT to the row count found on the device and sends the result
// reference as the message (R30: perm word or DB_NONE, first row, row count, error bits);
// Metrics: rows in, rows out, error bits (a COUNT = 0 rule reads rows out).
#include "db_args.h"
#define WEFT_ARGS DB_FINISH_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 1) in;

void main() {
  const uvec2 start = weft_clock();
  const uint n = globals_u[pc.args.count];
  const uint first = min(pc.args.row_offset, n), count = min(n - first, pc.args.row_limit);
  const uint err = globals_u[pc.args.err];
  globals_u[pc.args.first] = first;
  globals_u[pc.args.result_count] = count;
  weft_outbox_u(0u, pc.args.perm_word);
  weft_outbox_u(1u, first);
  weft_outbox_u(2u, count);
  weft_outbox_u(3u, err);
  const uint i = pc.header.instance;
  metrics[i].counters[DB_COUNTER_ROWS_IN] = n;
  metrics[i].counters[DB_COUNTER_ROWS_OUT] = count;
  metrics[i].counters[DB_COUNTER_ERROR] = err;
  weft_message_write(0.0, 0.0, WEFT_STATUS_OK, weft_ticks_since(start));
}
