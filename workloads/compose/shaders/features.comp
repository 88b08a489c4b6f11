#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter DSP -> LLM: the filtered hop of channel t (its instance's R30, H floats) becomes input
// row t of the decoder through a linear projection P (dim x H f32 in Heap, seeded by the host):
//   x[t][j] = sum_n P[j][n] * y_t[n]      (summed in n order, as the host-driven path does)
// One workgroup per token; R30 = the last token's row (the first layer's inbox).
// user: [0] R30 word of channel 0 in Registers, [1] words between channels' R30, [2] H,
//       [3] P (Heap word), [4] dim, [5] x (Globals word), [6] tokens T, [7] a copy of the rows
//       (Globals word; the decoder's x is the residual stream, overwritten by the layers)
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint t = gl_WorkGroupID.x, H = pc.user[2], D = pc.user[4];
  if (t >= pc.user[6]) return;
  const uint y = pc.user[0] + t * pc.user[1];
  for (uint j = gl_LocalInvocationID.x; j < D; j += gl_WorkGroupSize.x) {
    float s = 0.0;
    const uint row = pc.user[3] + j * H;
    for (uint n = 0u; n < H; ++n) s += uintBitsToFloat(heap_u[row + n]) * regs_f[y + n];
    globals_f[pc.user[5] + t * D + j] = s;
    globals_f[pc.user[7] + t * D + j] = s;
    if (t + 1u == pc.user[6]) weft_outbox_f(j, s);
  }
  if (t + 1u == pc.user[6] && gl_LocalInvocationID.x == 0u) weft_message_write(0.0, 0.0, WEFT_STATUS_OK, uvec2(0u));
}
