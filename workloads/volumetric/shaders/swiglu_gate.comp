#version 450
#extension GL_GOOGLE_include_directive : require
// The SwiGLU gate between its projections: h = silu(a) * b, elementwise.
// Arguments: VOLUMETRIC_SWIGLU_GATE_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_SWIGLU_GATE_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint a = pc.args.a, b = pc.args.b, h = pc.args.h, count = pc.args.count;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    const float z = globals_f[a + k];
    globals_f[h + k] = z / (1.0 + exp(-z)) * globals_f[b + k];
  }
  weft_require_loops_whole();
}
