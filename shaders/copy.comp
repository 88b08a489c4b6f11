#version 450
#extension GL_GOOGLE_include_directive : require
// Streaming copy inside Globals, 16 bytes per invocation per step (grid-stride loop, so any
// size fits in a bounded dispatch).
#include "weft_engine_args.h"
#define WEFT_ARGS WEFT_COPY_ARGS
#include "weft.glsl"

layout(local_size_x = 256) in;
layout(set = 0, binding = WEFT_BINDING_GLOBALS, std430) buffer GlobalsVec4 { uvec4 globals_v4[]; };

void main() {
  const uint src = pc.args.src / 4u, dst = pc.args.dst / 4u, count = pc.args.count;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) globals_v4[dst + i] = globals_v4[src + i];
}
