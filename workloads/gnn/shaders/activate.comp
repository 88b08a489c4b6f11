#version 450
#extension GL_GOOGLE_include_directive : require
// Activation with residual: h_out = ReLU(z) + r * h_in. r is a control word (not a push
// constant) because a regulator rule of the previous layer may change it inside the same
// submission.
// user: [0] z, [1] h_in, [2] h_out (Globals words), [3] count (nodes * F), [4] control word of r.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint z = pc.user[0], hin = pc.user[1], hout = pc.user[2], count = pc.user[3];
  const float r = weft_control_f(pc.user[4]);
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u)
    globals_f[hout + k] = max(globals_f[z + k], 0.0) + r * globals_f[hin + k];
}
