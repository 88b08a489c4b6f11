#version 450
#extension GL_GOOGLE_include_directive : require
// Hash join step, probe: each probe tuple walks its bucket's chain and emits the tuples whose key matches;
// LEFT JOIN as in join_nested.comp.
#include "db_args.h"
#define WEFT_ARGS DB_JOIN_PROBE_ARGS
#define DB_JOIN_EMIT
#include "weft.glsl"
#include "join.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint np = db_join_probe_count();
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  uint steps = 0u;  // every loop iteration, against the driver's loop cap (group_reduce.comp)
  for (uint p = gl_GlobalInvocationID.x; p < np; p += stride) {
    ++steps;
    uvec2 kp;
    bool matched = false;
    const bool has_key = db_join_probe_key(p, kp);
    uint b = has_key ? globals_u[pc.args.heads + (db_hash(kp, 0u) & pc.args.hash_mask)] : DB_NONE;
    while (b != DB_NONE) {
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
      b = globals_u[pc.args.next + b];
    }
    if (!matched && pc.args.left != 0u) db_join_emit(p, DB_NONE);
  }
}
