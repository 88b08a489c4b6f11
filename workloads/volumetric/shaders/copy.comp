#version 450
#extension GL_GOOGLE_include_directive : require
// Globals copy: moves a cell's output from the back buffer to the front one when a submission
// ran an odd number of ticks, so every submission starts from the same buffer.
// user: [0] from, [1] to (Globals words), [2] count.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint from = pc.user[0], to = pc.user[1], count = pc.user[2];
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) globals_f[to + k] = globals_f[from + k];
}
