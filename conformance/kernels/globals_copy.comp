#version 450
#extension GL_GOOGLE_include_directive : require
// dst[i] = src[i] * mul + add for `count` Globals words.
#include "test_args.h"
#define WEFT_ARGS TEST_GLOBALS_COPY_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint src = pc.args.src, dst = pc.args.dst, count = pc.args.count, mul = pc.args.mul, add = pc.args.add;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * 64u)
    globals_u[dst + i] = globals_u[src + i] * mul + add;
}
