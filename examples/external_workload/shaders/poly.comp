#version 450
#extension GL_GOOGLE_include_directive : require
// y[i] = c0 + c1 * x[i] + c2 * x[i]^2, and counts the x[i] > 0 in an integer Globals word.
// Heap: coefficients (3 floats) and x.
#include "external_args.h"
#define WEFT_ARGS POLY_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint coeff = pc.args.coeff, x = pc.args.x, y = pc.args.y, positive = pc.args.positive, n = pc.args.n;
  const float c0 = heap_f[coeff], c1 = heap_f[coeff + 1u], c2 = heap_f[coeff + 2u];
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 64u) {
    const float v = heap_f[x + i];
    globals_f[y + i] = c0 + v * (c1 + v * c2);
    if (v > 0.0) atomicAdd(globals_u[positive], 1u);
  }
}
