#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter: copies `count` Globals words from one segment to another (agent-retrieval: the first
// decoder's KV cache rows 0..T-1 into the continuing decoder's cache, so it attends to the prompt).
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_COPY_WORDS_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint src = pc.args.source, dst = pc.args.destination, count = pc.args.count;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) globals_u[dst + k] = globals_u[src + k];
}
