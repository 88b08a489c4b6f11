#version 450
#extension GL_GOOGLE_include_directive : require
// Fused scan+filter, and filters of joined rows and groups: evaluates the predicate at every
// input position and appends the passing positions' rows to the output's row-id lists, one per
// side the output's table names (order not kept). No predicate (0 instructions): every row passes.
#include "db_args.h"
#define WEFT_ARGS DB_FILTER_ARGS
#include "weft.glsl"
#include "eval.glsl"

layout(local_size_x = 64) in;

// The row of side s of input position i into output position k, when the output has side s.
void out_side(uint s, uint k, uint i) {
  const uint list = globals_u[pc.args.out_ids + s];
  if (list != DB_NONE) globals_u[list + k] = db_tuple_row(pc.args.in_ids, s, i);
}

void main() {
  const uint n = db_count(pc.args.in_count, pc.args.rows);
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    bool pass = true;
    if (pc.args.ninstr > 0u) {
      uvec2 v;
      bool is_null;
      db_eval(pc.args.code, pc.args.ninstr, pc.args.desc, pc.args.err, pc.args.in_ids, i, v, is_null);
      pass = !is_null && db_as_int(v) != 0l;
    }
    if (pass) {
      const uint k = atomicAdd(globals_u[pc.args.out_count], 1u);
      // A scan of side s has no input table (every side's row is the position) and one output
      // list. Unrolled over the DB_MAX_SIDES sides (no loop for llvmpipe's loop cap to count).
      out_side(0u, k, i);
      out_side(1u, k, i);
      out_side(2u, k, i);
      out_side(3u, k, i);
      out_side(4u, k, i);
      out_side(5u, k, i);
      out_side(6u, k, i);
      out_side(7u, k, i);
    }
  }
}
