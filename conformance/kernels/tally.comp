#version 450
#extension GL_GOOGLE_include_directive : require
// Counts the workgroups that ran: counter[0] += 1 per workgroup, and counter[1] += tag per
// workgroup (a tag telling stages apart). Returns when halted (if honoured).
#include "test_args.h"
#define WEFT_ARGS TEST_TALLY_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  if (gl_LocalInvocationIndex == 0u) {
    atomicAdd(globals_u[pc.args.counter], 1u);
    atomicAdd(globals_u[pc.args.counter + 1u], pc.args.tag);
  }
}
