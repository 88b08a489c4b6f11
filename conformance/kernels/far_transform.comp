#version 450
#extension GL_GOOGLE_include_directive : require
// dst[r][w] = src[r][w] * mul + add over every word of every record, far segment to far
// segment (grid-stride over records, one invocation per record word).
#define WEFT_FAR_ACCESS
#include "test_args.h"
#define WEFT_ARGS TEST_FAR_TRANSFORM_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint words = pc.args.record_words;
  const uint stride = gl_NumWorkGroups.x * 64u;
  const WeftFar src = weft_far_heap(pc.args.src), dst = weft_far_globals(pc.args.dst);
  for (uint r = gl_GlobalInvocationID.x; r < pc.args.records; r += stride)
    for (uint w = 0u; w < words; ++w) weft_far_set_u(dst, r, w, weft_far_u(src, r, w) * pc.args.mul + pc.args.add);
}
