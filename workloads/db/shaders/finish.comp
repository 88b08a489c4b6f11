#version 450
#extension GL_GOOGLE_include_directive : require
// Output: applies OFFSET/LIMIT to the row count found on the device and sends the result
// reference as the message (R30: perm word or DB_NONE, first row, row count, error bits);
// Metrics: rows in, rows out, error bits (a COUNT = 0 rule reads rows out).
// push: 0 count word, 1 offset, 2 limit (DB_NONE: none), 3 result first word, 4 result count
// word, 5 perm word, 6 error word.
#include "db.glsl"

layout(local_size_x = 1) in;

void main() {
  const uvec2 start = weft_clock();
  const uint n = globals_u[pc.user[0]];
  const uint first = min(pc.user[1], n), count = min(n - first, pc.user[2]);
  const uint err = globals_u[pc.user[6]];
  globals_u[pc.user[3]] = first;
  globals_u[pc.user[4]] = count;
  weft_outbox_u(0u, pc.user[5]);
  weft_outbox_u(1u, first);
  weft_outbox_u(2u, count);
  weft_outbox_u(3u, err);
  const uint i = pc.header.instance;
  metrics[i].counters[DB_COUNTER_ROWS_IN] = n;
  metrics[i].counters[DB_COUNTER_ROWS_OUT] = count;
  metrics[i].counters[DB_COUNTER_ERROR] = err;
  weft_message_write(0.0, 0.0, WEFT_STATUS_OK, weft_ticks_since(start));
}
