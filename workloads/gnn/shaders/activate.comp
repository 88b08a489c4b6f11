#version 450
#extension GL_GOOGLE_include_directive : require
// Activation with residual: h_out = ReLU(z) + r * h_in. r is a control word (not a push
// constant) because a regulator rule of the previous layer may change it inside the same
// submission.
#include "gnn_args.h"
#define WEFT_ARGS GNN_ACTIVATE_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint z = pc.args.z, hin = pc.args.h_in, hout = pc.args.h_out, count = pc.args.count;
  const float r = weft_control_f(pc.args.residual);
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u)
    globals_f[hout + k] = max(globals_f[z + k], 0.0) + r * globals_f[hin + k];
}
