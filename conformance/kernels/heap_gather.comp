#version 450
#extension GL_GOOGLE_include_directive : require
// The bound-window twin of heap_far_gather: out[k] = heap_u[index[k]].
#include "test_args.h"
#define WEFT_ARGS TEST_HEAP_GATHER_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  if (k >= pc.args.count) return;
  globals_u[pc.args.gathered + k] = heap_u[globals_u[pc.args.index + k]];
}
