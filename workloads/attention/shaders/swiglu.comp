#version 450
#extension GL_GOOGLE_include_directive : require
// SwiGLU gate: h = silu(g) * u = g / (1 + exp(-g)) * u, element-wise, written over g (gate;
// u = up, ffn words per token). Groups: (ceil(ffn / 64), T).
// Arguments: ATTENTION_SWIGLU_ARGS (attention_args.h).
#include "attention_args.h"
#define WEFT_ARGS ATTENTION_SWIGLU_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint g = pc.args.gate, u = pc.args.up, ffn = pc.args.ffn;
  const uint i = gl_GlobalInvocationID.x, t = gl_WorkGroupID.y;
  if (i >= ffn) return;
  const float gv = globals_f[g + t * ffn + i];
  globals_f[g + t * ffn + i] = gv / (1.0 + exp(-gv)) * globals_f[u + t * ffn + i];
}
