#version 450
#extension GL_GOOGLE_include_directive : require
// Nested-loop join step: each probe tuple compares its key with every filtered build row. The plan's
// first choice while the build side is small; a regulator rule zeroes this stage's indirect slot
// when the build side turns out larger than the threshold. LEFT JOIN: a probe row without a match
// (a NULL key included) goes out once with the build row DB_NONE.
#include "db_args.h"
#define WEFT_ARGS DB_JOIN_NESTED_ARGS
#define DB_JOIN_EMIT
#include "weft.glsl"
#include "join.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint np = db_join_probe_count(), nb = globals_u[pc.args.build_count];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint steps = 0u;  // every loop iteration, against the driver's loop cap (group_reduce.comp)
  for (uint p = gl_GlobalInvocationID.x; p < np; p += stride) {
    ++steps;
    uvec2 kp;
    bool matched = false;
    const bool has_key = db_join_probe_key(p, kp);
    for (uint b = 0u; has_key && b < nb; ++b) {
      if (++steps > pc.args.loop_budget) {
        db_error(pc.args.err, DB_ERROR_LOOP_LIMIT);
        return;
      }
      const uint br = globals_u[pc.args.build_ids + b];
      uvec2 kb;
      if (db_join_key(pc.args.build_values, pc.args.build_nulls, br, kb) && kb == kp) {
        db_join_emit(p, br);
        matched = true;
      }
    }
    if (!matched && pc.args.left != 0u) db_join_emit(p, DB_NONE);
  }
}
