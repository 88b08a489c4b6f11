#version 450
#extension GL_GOOGLE_include_directive : require
// A downstream kernel steered by one Control word; n items from src to dst (Globals) by mode:
//   0: out_f[i] = in_f[i] * word (an f32 gain)
//   1: out_u[i] = i < word ? in_u[i] + 1 : 0 (a u32 limit)
// Returns at once when halted and the stage honours halt.
#include "test_args.h"
#define WEFT_ARGS TEST_CONSUME_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint w = pc.args.word, src = pc.args.src, dst = pc.args.dst, n = pc.args.n, mode = pc.args.mode;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 64u) {
    if (mode == 0u)
      globals_f[dst + i] = globals_f[src + i] * weft_control_f(w);
    else
      globals_u[dst + i] = i < weft_control_word(w) ? globals_u[src + i] + 1u : 0u;
  }
}
