#version 450
#extension GL_GOOGLE_include_directive : require
// Evaluates one expression for every row of a row set into a computed column (values + NULL
// bitmap) indexed by the row's position: group keys, aggregate arguments, outputs, sort keys.
#include "eval.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint code = pc.user[0], ninstr = pc.user[1], desc = pc.user[2];
  const uint n = db_count(pc.user[3], pc.user[9]);
  const uint in0 = pc.user[4], in1 = pc.user[5], out_values = pc.user[6], out_nulls = pc.user[7], err = pc.user[8];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    const uint r0 = in0 == DB_NONE ? i : globals_u[in0 + i], r1 = in1 == DB_NONE ? r0 : globals_u[in1 + i];
    uvec2 v;
    bool is_null;
    db_eval(code, ninstr, desc, err, r0, r1, i, v, is_null);
    db_store2(out_values + 2u * i, is_null ? uvec2(0u) : v);
    db_set_bit(out_nulls, i, is_null);
  }
}
