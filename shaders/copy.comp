#version 450
#extension GL_GOOGLE_include_directive : require
// Streaming copy inside Globals, 16 bytes per invocation per step (grid-stride loop, so any
// size fits in a bounded dispatch). Push: user[0] source, user[1] destination (in 16-byte
// units from the start of Globals), user[2] count of 16-byte units.
#include "weft.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = WEFT_BINDING_GLOBALS, std430) buffer GlobalsVec4 { uvec4 globals_v4[]; };

void main() {
  const uint src = pc.user[0], dst = pc.user[1], count = pc.user[2];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) globals_v4[dst + i] = globals_v4[src + i];
}
