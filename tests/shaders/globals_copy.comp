#version 450
#extension GL_GOOGLE_include_directive : require
// Globals words [user[1], +user[2]) = words [user[0], +user[2]) * user[3] + user[4].
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint src = pc.user[0], dst = pc.user[1], count = pc.user[2], mul = pc.user[3], add = pc.user[4];
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * 64u)
    globals_u[dst + i] = globals_u[src + i] * mul + add;
}
