#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter DSP -> LLM: the filtered hop of channel t (its instance's R30, H floats) becomes input
// row t of the decoder through a linear projection P (dim x H f32 in Heap, seeded by the host):
//   x[t][j] = sum_n P[j][n] * y_t[n]      (summed in n order, as the host-driven path does)
// One workgroup per token; R30 = the last token's row (the first layer's inbox).
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_FEATURES_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint t = gl_WorkGroupID.x, H = pc.args.hop_floats, D = pc.args.dim;
  if (t >= pc.args.tokens) return;
  const uint y = pc.args.hops + t * pc.args.hop_stride;
  for (uint j = gl_LocalInvocationID.x; j < D; j += gl_WorkGroupSize.x) {
    float s = 0.0;
    const uint row = pc.args.projection + j * H;
    for (uint n = 0u; n < H; ++n) s += uintBitsToFloat(heap_u[row + n]) * regs_f[y + n];
    globals_f[pc.args.rows + t * D + j] = s;
    globals_f[pc.args.rows_copy + t * D + j] = s;
    if (t + 1u == pc.args.tokens) weft_outbox_f(j, s);
  }
  if (t + 1u == pc.args.tokens && gl_LocalInvocationID.x == 0u) weft_message_write(0.0, 0.0, WEFT_STATUS_OK, uvec2(0u));
}
