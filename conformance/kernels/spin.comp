#version 450
#extension GL_GOOGLE_include_directive : require
// A long but finite stage: `rounds` x 2^15 rounds of a multiply-xorshift mix per invocation, the
// result kept. Tests of run deadlines use it as the stage still running. Nested loops, because
// llvmpipe stops any one loop after 65535 iterations.
#include "test_args.h"
#define WEFT_ARGS TEST_SPIN_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  uint x = gl_GlobalInvocationID.x;
  for (uint r = 0u; r < pc.args.rounds; ++r)
    for (uint i = 0u; i < 32768u; ++i) x = (x ^ (x >> 15)) * 2246822519u + i;  // no closed form to find
  atomicXor(globals_u[pc.args.sink], x);
}
