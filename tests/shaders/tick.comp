#version 450
#extension GL_GOOGLE_include_directive : require
// One loop step: Globals word user[0] += 1, and the new value becomes this instance's Metrics
// counter 0 (u32); sequence counts the steps. One invocation.
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  if (weft_halted()) return;
  const uint c = globals_u[pc.user[0]] + 1u;
  globals_u[pc.user[0]] = c;
  metrics[pc.header.instance].counters[0] = c;
  metrics[pc.header.instance].sequence += 1u;
}
