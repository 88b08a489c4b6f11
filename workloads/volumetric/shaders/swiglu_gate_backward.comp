#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of the SwiGLU gate h = silu(a) * b: da = dh * b * silu'(a), db = dh * silu(a).
// Arguments: VOLUMETRIC_SWIGLU_GATE_BACKWARD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_SWIGLU_GATE_BACKWARD_ARGS
#include "weft.glsl"
#include "activation.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint a = pc.args.a, b = pc.args.b, dh = pc.args.dh, da = pc.args.da, db = pc.args.db, count = pc.args.count;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    const float z = globals_f[a + k], d = globals_f[dh + k];
    globals_f[da + k] = d * globals_f[b + k] * activation_grad(4u, z);
    globals_f[db + k] = d * activation(4u, z);
  }
  weft_require_loops_whole();
}
