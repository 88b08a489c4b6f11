#version 450
#extension GL_GOOGLE_include_directive : require
// Fills Globals words [user[0], user[0] + user[1]) with the value user[2].
#include "weft.glsl"

layout(local_size_x = 256) in;

void main() {
  const uint first = pc.user[0], count = pc.user[1], value = pc.user[2];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) globals_u[first + i] = value;
}
