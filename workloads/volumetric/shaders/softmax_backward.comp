#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of a row softmax from its output y: dx = y * (dy - sum(dy * y)), one invocation per row.
// user: [0] y, [1] dy, [2] dx (Globals words), [3] rows, [4] n.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint y = pc.user[0], dy = pc.user[1], dx = pc.user[2], rows = pc.user[3], n = pc.user[4];
  for (uint r = gl_GlobalInvocationID.x; r < rows; r += gl_NumWorkGroups.x * 64u) {
    float s = 0.0;
    for (uint i = 0u; i < n; ++i) s += globals_f[dy + r * n + i] * globals_f[y + r * n + i];
    for (uint i = 0u; i < n; ++i) globals_f[dx + r * n + i] = globals_f[y + r * n + i] * (globals_f[dy + r * n + i] - s);
  }
}
