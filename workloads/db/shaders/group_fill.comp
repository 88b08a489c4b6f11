#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 5: scatter each row's position into its group's bucket of the member list.
#include "group.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.user[0]];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    const uint g = globals_u[pc.user[9] + i];
    if (g < pc.user[17]) globals_u[pc.user[13] + atomicAdd(globals_u[pc.user[12] + g], 1u)] = i;
  }
}
