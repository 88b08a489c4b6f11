#version 450
#extension GL_GOOGLE_include_directive : require
// COUNT(DISTINCT x): after group_claim hashed every row by (GROUP BY keys, x), the row that
// claimed a slot stands for its distinct value within its group. Its mark is non-NULL (when x
// is), every other row's NULL, so the group reduction's COUNT of the marks counts each distinct
// x once. Only the NULL bits are written: COUNT reads no value.
#include "db_args.h"
#define WEFT_ARGS DB_DISTINCT_MARK_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.args.count];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    const bool first = globals_u[pc.args.heads + globals_u[pc.args.slot_of_row + i]] == i;
    const bool x_null = db_bit(pc.args.arg_nulls, db_tuple_row(pc.args.ids, pc.args.arg_side, i));
    db_set_bit(pc.args.out_nulls, i, x_null || !first);
  }
}
