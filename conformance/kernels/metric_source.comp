#version 450
#extension GL_GOOGLE_include_directive : require
// Copies a whole Metrics record for this stage's instance from 16 Globals words:
// lets a test feed the regulator any source value from the same submission.
#include "test_args.h"
#define WEFT_ARGS TEST_METRIC_SOURCE_ARGS
#include "weft.glsl"

layout(local_size_x = 16) in;
layout(set = 0, binding = WEFT_BINDING_METRICS, std430) buffer WeftMetricsWords { uint metrics_words[]; };

void main() {
  const uint k = gl_LocalInvocationID.x;
  metrics_words[pc.header.instance * WEFT_METRICS_WORDS + k] = globals_u[pc.args.record + k];
}
