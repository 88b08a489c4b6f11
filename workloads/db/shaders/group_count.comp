#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 3: each row learns its group id and counts itself into the group's size.
#include "group.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.user[0]];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    // After a capacity overflow the group ids are not all valid; the run is discarded then.
    const uint g = globals_u[pc.user[6] + globals_u[pc.user[5] + i]];
    globals_u[pc.user[9] + i] = g < pc.user[17] ? g : DB_NONE;
    if (g < pc.user[17]) atomicAdd(globals_u[pc.user[10] + g], 1u);
  }
}
