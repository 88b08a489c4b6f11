#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of the SwiGLU gate h = silu(a) * b: da = dh * b * silu'(a), db = dh * silu(a).
// user: [0] a, [1] b, [2] dh, [3] da, [4] db (Globals words), [5] count.
#include "weft.glsl"
#include "activation.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint a = pc.user[0], b = pc.user[1], dh = pc.user[2], da = pc.user[3], db = pc.user[4], count = pc.user[5];
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    const float z = globals_f[a + k], d = globals_f[dh + k];
    globals_f[da + k] = d * globals_f[b + k] * activation_grad(4u, z);
    globals_f[db + k] = d * activation(4u, z);
  }
}
