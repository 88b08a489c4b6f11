#version 450
#extension GL_GOOGLE_include_directive : require
// One optimiser step over a parameter tensor, the CPU Trainer's arithmetic in f32:
//   SGD:  p -= lr * g
//   Adam: m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2;  p -= lr_t * m / (sqrt(v) + eps_t)
// lr_t and eps_t carry the bias corrections of this step; the host writes them to Globals
// before each submission (per-run input), so the recorded program never changes.
// user: [0] p, [1] g, [2] m, [3] v (Globals words), [4] count, [5] 0 SGD / 1 Adam,
//       [6] hyper (Globals word: lr, lr_t, eps_t), [7] beta1, [8] beta2 (f32 bits).
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint p = pc.user[0], g = pc.user[1], m = pc.user[2], v = pc.user[3], count = pc.user[4], adam = pc.user[5];
  const uint h = pc.user[6];
  const float lr = globals_f[h], lr_t = globals_f[h + 1u], eps_t = globals_f[h + 2u];
  const float b1 = weft_user_f(7), b2 = weft_user_f(8);
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    const float gk = globals_f[g + k];
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
}
