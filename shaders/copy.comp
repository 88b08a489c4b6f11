#version 450
#extension GL_GOOGLE_include_directive : require
// Streaming copy inside Globals, one 16-byte unit at a time, shaped by the engine per device.
#include "weft_engine_args.h"
#define WEFT_ARGS WEFT_COPY_ARGS
#include "weft.glsl"

WEFT_STREAMING_KERNEL;
layout(set = 0, binding = WEFT_BINDING_GLOBALS, std430) buffer GlobalsVec4 { uvec4 globals_v4[]; };

void main() {
  const uint src = pc.args.src / 4u, dst = pc.args.dst / 4u;
  WEFT_FOR_EACH_UNIT(i, pc.args.count) globals_v4[dst + i] = globals_v4[src + i];
}
