#version 450
#extension GL_GOOGLE_include_directive : require
// y[i] = c0 + c1 * x[i] + c2 * x[i]^2, and counts the x[i] > 0 in an integer Globals word.
// Heap: coefficients (3 floats) and x. push: coeff word, x word, y word, count word, n.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint coeff = pc.user[0], x = pc.user[1], y = pc.user[2], positive = pc.user[3], n = pc.user[4];
  const float c0 = heap_f[coeff], c1 = heap_f[coeff + 1u], c2 = heap_f[coeff + 2u];
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 64u) {
    const float v = heap_f[x + i];
    globals_f[y + i] = c0 + v * (c1 + v * c2);
    if (v > 0.0) atomicAdd(globals_u[positive], 1u);
  }
}
