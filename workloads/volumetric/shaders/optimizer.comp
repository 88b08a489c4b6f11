#version 450
#extension GL_GOOGLE_include_directive : require
// One optimiser step over a parameter tensor, the CPU Trainer's arithmetic in f32:
//   SGD:  p -= lr * g
//   Adam: m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  p -= lr_t * m / (sqrt(v) + eps_t)
// lr_t and eps_t carry the bias corrections of this step; the host writes them to Globals
// before each submission (per-run input), so the recorded program never changes.
// Mini-batches: g is added to the accumulator acc; hyper[3] (the batch scale) 0 stops there,
// s > 0 steps with g = (acc + g) * s and clears acc (batch 1: s = 1, acc 0, g itself).
// adam: 0 SGD / 1 Adam; hyper: lr, lr_t, eps_t, scale.
// Arguments: VOLUMETRIC_OPTIMIZER_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_OPTIMIZER_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint p = pc.args.p, g = pc.args.g, m = pc.args.m, v = pc.args.v, count = pc.args.count, adam = pc.args.adam;
  const uint h = pc.args.hyper;
  const float lr = globals_f[h], lr_t = globals_f[h + 1u], eps_t = globals_f[h + 2u], scale = globals_f[h + 3u];
  const uint acc = pc.args.acc;
  const float b1 = pc.args.beta1, b2 = pc.args.beta2;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    const float sum = globals_f[acc + k] + globals_f[g + k];
    if (scale == 0.0) {
      globals_f[acc + k] = sum;
      continue;
    }
    globals_f[acc + k] = 0.0;
    const float gk = sum * scale;
    if (adam == 0u) {
      globals_f[p + k] -= lr * gk;
    } else {
      const float mk = b1 * globals_f[m + k] + (1.0 - b1) * gk;
      const float vk = b2 * globals_f[v + k] + (1.0 - b2) * gk * gk;
      globals_f[m + k] = mk;
      globals_f[v + k] = vk;
      globals_f[p + k] -= lr_t * mk / (sqrt(vk) + eps_t);
    }
  }
  weft_require_loops_whole();
}
