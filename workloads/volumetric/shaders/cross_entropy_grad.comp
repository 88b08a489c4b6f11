#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax cross-entropy of the last cell's logits y against the target t (one-hot or a class
// distribution): with m = max y and s = sum exp(y - m), loss = sum t_i (log s - (y_i - m)) and
// dL/dy_i = exp(y_i - m) / s - t_i. One invocation (n is one output vector); the CPU Trainer's
// order and f32 arithmetic (train.cpp softmax_ce).
// Arguments: VOLUMETRIC_LOSS_GRAD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_LOSS_GRAD_ARGS
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint y = pc.args.y, t = pc.args.target, dy = pc.args.dy, loss = pc.args.loss, n = pc.args.n;
  float mx = globals_f[y];
  for (uint i = 1u; i < n; ++i) mx = max(mx, globals_f[y + i]);
  float s = 0.0;
  for (uint i = 0u; i < n; ++i) s += exp(globals_f[y + i] - mx);
  const float log_s = log(s);
  float l = 0.0;
  for (uint i = 0u; i < n; ++i) {
    const float ti = globals_f[t + i], d = globals_f[y + i] - mx;
    l += ti * (log_s - d);
    globals_f[dy + i] = exp(d) / s - ti;
  }
  globals_f[loss] = l;
  weft_require_loops_whole();
}
