#version 450
#extension GL_GOOGLE_include_directive : require
// One loop step: counter += 1, and the new value becomes this instance's Metrics
// counter 0 (u32); sequence counts the steps. One invocation.
#include "test_args.h"
#define WEFT_ARGS TEST_TICK_ARGS
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  if (weft_halted()) return;
  const uint c = globals_u[pc.args.counter] + 1u;
  globals_u[pc.args.counter] = c;
  metrics[pc.header.instance].counters[0] = c;
  metrics[pc.header.instance].sequence += 1u;
}
