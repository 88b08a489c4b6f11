#version 450
#extension GL_GOOGLE_include_directive : require
// Fused scan+filter: evaluates the predicate on every input row and appends the ids of the rows
// that pass (one list per side, order not kept). No predicate (0 instructions): every row passes.
#include "db_args.h"
#define WEFT_ARGS DB_FILTER_ARGS
#include "weft.glsl"
#include "eval.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = db_count(pc.args.in_count, pc.args.rows);
  const uint in0 = pc.args.in_ids0, in1 = pc.args.in_ids1;
  const uint out0 = pc.args.out_ids0, out1 = pc.args.out_ids1;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    // A scan of side 1 has one list: its rows are side-1 rows, so r1 follows r0 there.
    const uint r0 = db_row(in0, i), r1 = in1 == DB_NONE ? r0 : globals_u[in1 + i];
    bool pass = true;
    if (pc.args.ninstr > 0u) {
      uvec2 v;
      bool is_null;
      db_eval(pc.args.code, pc.args.ninstr, pc.args.desc, pc.args.err, r0, r1, i, v, is_null);
      pass = !is_null && db_as_int(v) != 0l;
    }
    if (pass) {
      const uint k = atomicAdd(globals_u[pc.args.out_count], 1u);
      globals_u[out0 + k] = r0;
      if (out1 != DB_NONE) globals_u[out1 + k] = r1;
    }
  }
}
