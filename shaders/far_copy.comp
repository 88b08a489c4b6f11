#version 450
#extension GL_GOOGLE_include_directive : require
// Streaming copy between two Globals far segments of 16-byte records (grid-stride loop): the
// far twin of copy.comp, so `weft bench engine` compares the two paths in one run.
#define WEFT_FAR_ACCESS
#include "weft_engine_args.h"
#define WEFT_ARGS WEFT_FAR_COPY_ARGS
#include "weft.glsl"

layout(local_size_x = 256) in;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  const WeftFar src = weft_far_globals(pc.args.src), dst = weft_far_globals(pc.args.dst);
  for (uint i = gl_GlobalInvocationID.x; i < pc.args.count; i += stride) weft_far_set_u4(dst, i, 0u, weft_far_u4(src, i, 0u));
}
