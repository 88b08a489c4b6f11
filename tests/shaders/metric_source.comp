#version 450
#extension GL_GOOGLE_include_directive : require
// Copies a whole Metrics record for this stage's instance from Globals words [user[0], +16):
// lets a test feed the regulator any source value from the same submission.
#include "weft.glsl"

layout(local_size_x = 16) in;
layout(set = 0, binding = WEFT_BINDING_METRICS, std430) buffer WeftMetricsWords { uint metrics_words[]; };

void main() {
  const uint k = gl_LocalInvocationID.x;
  metrics_words[pc.header.instance * WEFT_METRICS_WORDS + k] = globals_u[pc.user[0] + k];
}
