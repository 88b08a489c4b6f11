#version 450
#extension GL_GOOGLE_include_directive : require
// Consumes count_above's list: one invocation per listed item, Globals word user[1] + index += 1.
// Workgroup 0 records the dispatch size it was given (gl_NumWorkGroups.x) at Globals word user[2].
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint list = pc.user[0], out_words = pc.user[1];
  const uint i = gl_GlobalInvocationID.x;
  if (i < globals_u[list]) atomicAdd(globals_u[out_words + globals_u[list + 1u + i]], 1u);
  if (i == 0u) globals_u[pc.user[2]] = gl_NumWorkGroups.x;
}
