#version 450
#extension GL_GOOGLE_include_directive : require
// ORDER BY: the identity permutation over the padded size.
#include "db_args.h"
#define WEFT_ARGS DB_SORT_INIT_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.args.padded; i += stride) globals_u[pc.args.perm + i] = i;
}
