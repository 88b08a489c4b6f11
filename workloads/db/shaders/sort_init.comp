#version 450
#extension GL_GOOGLE_include_directive : require
// ORDER BY: the identity permutation over the padded size. push: 0 perm word, 1 padded size.
#include "db.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.user[1]; i += stride) globals_u[pc.user[0] + i] = i;
}
