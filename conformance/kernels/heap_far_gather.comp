#version 450
#extension GL_GOOGLE_include_directive : require
// Gathers Heap words at the indices listed in Globals: out[k] = heap[index[k]], through far
// access (buffer device address), so indices may lie past maxStorageBufferRange.
#define WEFT_FAR_ACCESS
#include "test_args.h"
#define WEFT_ARGS TEST_HEAP_GATHER_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  if (k >= pc.args.count) return;
  globals_u[pc.args.gathered + k] = weft_heap_far_u(globals_u[pc.args.index + k]);
}
