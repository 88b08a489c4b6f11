#version 450
#extension GL_GOOGLE_include_directive : require
// Mean squared error of the last cell against the target: loss = mean((y - t)^2) and
// dL/dy = 2 (y - t) / n. One invocation (n is one output vector).
// Arguments: VOLUMETRIC_LOSS_GRAD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_LOSS_GRAD_ARGS
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint y = pc.args.y, t = pc.args.target, dy = pc.args.dy, loss = pc.args.loss, n = pc.args.n;
  float s = 0.0;
  for (uint i = 0u; i < n; ++i) {
    const float d = globals_f[y + i] - globals_f[t + i];
    s += d * d;
    globals_f[dy + i] = 2.0 * d / float(n);
  }
  globals_f[loss] = s / float(n);
  weft_require_loops_whole();
}
