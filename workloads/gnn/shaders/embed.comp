#version 450
#extension GL_GOOGLE_include_directive : require
// Embedding lookup: copies the input node features X (Heap, immutable) into h_0 (Globals), the
// first layer's input, so every layer reads its input from the same binding.
#include "gnn_args.h"
#define WEFT_ARGS GNN_EMBED_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.args.x, h = pc.args.h, count = pc.args.count;
  // Grid-stride: the host caps the group count below maxComputeWorkGroupCount.
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) globals_f[h + k] = heap_f[x + k];
}
