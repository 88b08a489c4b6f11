#version 450
#extension GL_GOOGLE_include_directive : require
// Embedding lookup: copies the input node features X (Heap, immutable) into h_0 (Globals), the
// first layer's input, so every layer reads its input from the same binding.
// user: [0] X heap word, [1] h_0 globals word, [2] count (nodes * F).
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.user[0], h = pc.user[1], count = pc.user[2];
  // Grid-stride: the host caps the group count below maxComputeWorkGroupCount.
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) globals_f[h + k] = heap_f[x + k];
}
