#version 450
#extension GL_GOOGLE_include_directive : require
// Counts the workgroups that ran: Globals word user[0] += 1 per workgroup, and word user[0] + 1
// += user[1] per workgroup (a tag telling stages apart). Returns when halted (if honoured).
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  if (gl_LocalInvocationIndex == 0u) {
    atomicAdd(globals_u[pc.user[0]], 1u);
    atomicAdd(globals_u[pc.user[0] + 1u], pc.user[1]);
  }
}
