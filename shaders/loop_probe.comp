#version 450
#extension GL_GOOGLE_include_directive : require
// Counts the iterations one invocation really runs of a loop asked for `iterations`: some
// drivers stop long loops on their own (llvmpipe after 65535 iterations per invocation, all
// loops counted together), which would make a kernel's answer silently wrong.
#include "weft_engine_args.h"
#define WEFT_ARGS WEFT_LOOP_PROBE_ARGS
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  uint n = 0u;
  for (uint i = 0u; i < pc.args.iterations; ++i) n += 1u;
  globals_u[pc.args.ran] = n;
}
