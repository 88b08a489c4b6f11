#version 450
#extension GL_GOOGLE_include_directive : require
// Works only when instance user[0]'s message status is OK: out_u[i] = in_u[i] + 1 for Globals
// words user[1] -> user[2], user[3] items; any other status marks every item 0xFFFFFFFF.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const bool ok = metrics[pc.user[0]].status == WEFT_STATUS_OK;
  const uint src = pc.user[1], dst = pc.user[2], n = pc.user[3];
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 64u)
    globals_u[dst + i] = ok ? globals_u[src + i] + 1u : 0xFFFFFFFFu;
}
