#version 450
#extension GL_GOOGLE_include_directive : require
// Works only when instance `gate`'s message status is OK: dst[i] = src[i] + 1 for n Globals
// words; any other status marks every item 0xFFFFFFFF.
#include "test_args.h"
#define WEFT_ARGS TEST_STATUS_GATE_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const bool ok = metrics[pc.args.gate].status == WEFT_STATUS_OK;
  const uint src = pc.args.src, dst = pc.args.dst, n = pc.args.n;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += gl_NumWorkGroups.x * 64u)
    globals_u[dst + i] = ok ? globals_u[src + i] + 1u : 0xFFFFFFFFu;
}
