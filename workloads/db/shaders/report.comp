#version 450
#extension GL_GOOGLE_include_directive : require
// A stage's Metrics record: rows in, rows out, error bits and (joins) the strategy that ran,
// read from the indirect slot the cardinality rule left (nested-loop slot > 0: nested loop).
// push: 0 rows-in word (DB_NONE: 1 is the count), 1 static rows in, 2 rows-out word,
// 3 error word, 4 Control word of the nested-loop slot (DB_NONE: not a join).
#include "db.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint i = pc.header.instance;
  metrics[i].counters[DB_COUNTER_ROWS_IN] = db_count(pc.user[0], pc.user[1]);
  metrics[i].counters[DB_COUNTER_ROWS_OUT] = globals_u[pc.user[2]];
  metrics[i].counters[DB_COUNTER_ERROR] = globals_u[pc.user[3]];
  metrics[i].counters[DB_COUNTER_STRATEGY] = pc.user[4] == DB_NONE ? 0u : (weft_control_word(pc.user[4]) > 0u ? 1u : 2u);
  weft_message_write(0.0, 0.0, WEFT_STATUS_OK, uvec2(0u));
}
