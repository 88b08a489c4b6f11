#version 450
#extension GL_GOOGLE_include_directive : require
// Globals words [user[0], user[0] + user[1]) += user[2] (read-modify-write).
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint first = pc.user[0], count = pc.user[1], add = pc.user[2];
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * 64u) globals_u[first + i] += add;
}
