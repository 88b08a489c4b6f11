#version 450
#extension GL_GOOGLE_include_directive : require
// The smallest dependent stage: outbox word 0 = inbox word 0 + 1. Benchmarks chain thousands.
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() { weft_outbox_u(0u, weft_inbox_u(0u) + 1u); }
