#version 450
#extension GL_GOOGLE_include_directive : require
// Evaluates one expression for every row of a row set into a computed column (values + NULL
// bitmap) indexed by the row's position: group keys, aggregate arguments, outputs, sort keys.
#include "db_args.h"
#define WEFT_ARGS DB_PROJECT_ARGS
#include "weft.glsl"
#include "eval.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = db_count(pc.args.in_count, pc.args.rows);
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    uvec2 v;
    bool is_null;
    db_eval(pc.args.code, pc.args.ninstr, pc.args.desc, pc.args.err, pc.args.in_ids, i, v, is_null);
    db_store2(pc.args.out_values + 2u * i, is_null ? uvec2(0u) : v);
    db_set_bit(pc.args.out_nulls, i, is_null);
  }
}
