#version 450
#extension GL_GOOGLE_include_directive : require
// The bound-window twin of heap_far_gather: out[k] = heap_u[index[k]].
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint k = gl_GlobalInvocationID.x;
  if (k >= pc.user[2]) return;
  globals_u[pc.user[1] + k] = heap_u[globals_u[pc.user[0] + k]];
}
