#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 2: each representative row numbers its group (dense ids 0..G-1).
#include "group.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.user[0]];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    const uint s = globals_u[pc.user[5] + i];
    if (globals_u[pc.user[3] + s] == i) {
      const uint g = atomicAdd(globals_u[pc.user[7]], 1u);
      if (g < pc.user[17]) {
        globals_u[pc.user[6] + s] = g;
        globals_u[pc.user[8] + g] = i;
      } else {
        db_error(pc.user[19], DB_ERROR_GROUP_CAPACITY);  // counted on: the host rebuilds to fit
      }
    }
  }
}
