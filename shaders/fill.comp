#version 450
#extension GL_GOOGLE_include_directive : require
// Fills `count` Globals words from `dst` on with `value`.
#include "weft_engine_args.h"
#define WEFT_ARGS WEFT_FILL_ARGS
#include "weft.glsl"

layout(local_size_x = 256) in;

void main() {
  const uint first = pc.args.dst, count = pc.args.count, value = pc.args.value;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += stride) globals_u[first + i] = value;
}
