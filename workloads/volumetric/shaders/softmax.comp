#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax per row of width n (max subtracted first), one invocation per row.
// user: [0] x, [1] y (Globals words), [2] rows, [3] n.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.user[0], y = pc.user[1], rows = pc.user[2], n = pc.user[3];
  for (uint r = gl_GlobalInvocationID.x; r < rows; r += gl_NumWorkGroups.x * 64u) {
    const uint row = x + r * n;
    float mx = globals_f[row];
    for (uint i = 1u; i < n; ++i) mx = max(mx, globals_f[row + i]);
    float s = 0.0;
    for (uint i = 0u; i < n; ++i) s += exp(globals_f[row + i] - mx);
    for (uint i = 0u; i < n; ++i) globals_f[y + r * n + i] = exp(globals_f[row + i] - mx) / s;
  }
}
