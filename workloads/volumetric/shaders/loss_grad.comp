#version 450
#extension GL_GOOGLE_include_directive : require
// Mean squared error of the last cell against the target: loss = mean((y - t)^2) and
// dL/dy = 2 (y - t) / n. One invocation (n is one output vector).
// user: [0] y, [1] target, [2] dy, [3] loss word (Globals), [4] n.
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint y = pc.user[0], t = pc.user[1], dy = pc.user[2], loss = pc.user[3], n = pc.user[4];
  float s = 0.0;
  for (uint i = 0u; i < n; ++i) {
    const float d = globals_f[y + i] - globals_f[t + i];
    s += d * d;
    globals_f[dy + i] = 2.0 * d / float(n);
  }
  globals_f[loss] = s / float(n);
}
