#version 450
#extension GL_GOOGLE_include_directive : require
// Globals copy or accumulate: to = from (accumulate 0) or to += from (accumulate 1).
// The mesh moves back buffers to the front after an odd number of steps with it, so every
// submission starts from the same buffer; training sums the input gradients of a cell's
// consumers with it.
// user: [0] from, [1] to (Globals words), [2] count, [3] accumulate.
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint from = pc.user[0], to = pc.user[1], count = pc.user[2];
  const bool acc = pc.user[3] != 0u;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u)
    globals_f[to + k] = (acc ? globals_f[to + k] : 0.0) + globals_f[from + k];
}
