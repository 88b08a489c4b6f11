#version 450
#extension GL_GOOGLE_include_directive : require
// Embedding lookup: copies the input node features X (Heap, immutable) into h_0 (Globals), the
// first layer's input, so every layer reads its input from the same binding.
#include "gnn_args.h"
#define WEFT_ARGS GNN_EMBED_ARGS
#include "weft.glsl"

WEFT_STREAMING_KERNEL;  // shaped by the engine per device (engine/kernel_shape.h)

void main() {
  const uint x = pc.args.x, h = pc.args.h;
  WEFT_FOR_EACH_UNIT(k, pc.args.count) globals_f[h + k] = heap_f[x + k];
}
