#version 450
#extension GL_GOOGLE_include_directive : require
// Gathers Heap words at the indices listed in Globals: out[k] = heap[index[k]], through far
// access (buffer device address), so indices may lie past maxStorageBufferRange.
// Push: user[0] index word offset in Globals, user[1] output word offset, user[2] count.
#define WEFT_FAR_ACCESS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  if (k >= pc.user[2]) return;
  globals_u[pc.user[1] + k] = weft_heap_far_u(globals_u[pc.user[0] + k]);
}
