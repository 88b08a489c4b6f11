#version 450
#extension GL_GOOGLE_include_directive : require
// Consumes count_above's list: one invocation per listed item, counts[index] += 1. Workgroup 0
// records the dispatch size it was given (gl_NumWorkGroups.x) in `groups`.
#include "test_args.h"
#define WEFT_ARGS TEST_PROCESS_LIST_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint list = pc.args.list, out_words = pc.args.counts;
  const uint i = gl_GlobalInvocationID.x;
  if (i < globals_u[list]) atomicAdd(globals_u[out_words + globals_u[list + 1u + i]], 1u);
  if (i == 0u) globals_u[pc.args.groups] = gl_NumWorkGroups.x;
}
