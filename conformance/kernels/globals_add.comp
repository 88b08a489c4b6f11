#version 450
#extension GL_GOOGLE_include_directive : require
// words[i] += add for `count` Globals words (read-modify-write).
#include "test_args.h"
#define WEFT_ARGS TEST_GLOBALS_ADD_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint first = pc.args.words, count = pc.args.count, add = pc.args.add;
  for (uint i = gl_GlobalInvocationID.x; i < count; i += gl_NumWorkGroups.x * 64u) globals_u[first + i] += add;
}
