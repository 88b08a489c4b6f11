#version 450
#extension GL_GOOGLE_include_directive : require
// SwiGLU gate: h = silu(g) * u = g / (1 + exp(-g)) * u, element-wise, written over g.
// Groups: (ceil(ffn / 64), T).
// user: [0] g (Globals word, ffn per token), [1] u (Globals word), [2] ffn.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint g = pc.user[0], u = pc.user[1], ffn = pc.user[2];
  const uint i = gl_GlobalInvocationID.x, t = gl_WorkGroupID.y;
  if (i >= ffn) return;
  const float gv = globals_f[g + t * ffn + i];
  globals_f[g + t * ffn + i] = gv / (1.0 + exp(-gv)) * globals_f[u + t * ffn + i];
}
