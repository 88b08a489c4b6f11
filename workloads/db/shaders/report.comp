#version 450
#extension GL_GOOGLE_include_directive : require
// A stage's Metrics record: rows in, rows out, error bits and (joins) the strategy that ran,
// read from the indirect slot the cardinality rule left (nested-loop slot > 0: nested loop).
#include "db_args.h"
#define WEFT_ARGS DB_REPORT_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint i = pc.header.instance;
  metrics[i].counters[DB_COUNTER_ROWS_IN] = db_count(pc.args.rows_in, pc.args.rows_in_static);
  metrics[i].counters[DB_COUNTER_ROWS_OUT] = globals_u[pc.args.rows_out];
  metrics[i].counters[DB_COUNTER_ERROR] = globals_u[pc.args.err];
  const uint slot = pc.args.nested_slot;
  metrics[i].counters[DB_COUNTER_STRATEGY] = slot == DB_NONE ? 0u : (weft_control_word(slot) > 0u ? 1u : 2u);
  weft_message_write(0.0, 0.0, WEFT_STATUS_OK, uvec2(0u));
}
