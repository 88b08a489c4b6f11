#version 450
#extension GL_GOOGLE_include_directive : require
// The SwiGLU gate between its projections: h = silu(a) * b, elementwise.
// user: [0] a, [1] b, [2] h (Globals words), [3] count.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint a = pc.user[0], b = pc.user[1], h = pc.user[2], count = pc.user[3];
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    const float z = globals_f[a + k];
    globals_f[h + k] = z / (1.0 + exp(-z)) * globals_f[b + k];
  }
}
