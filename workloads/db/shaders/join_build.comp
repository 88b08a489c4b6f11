#version 450
#extension GL_GOOGLE_include_directive : require
// Hash join, build: chains every filtered build row into its bucket (heads: last row pushed,
// next: the row pushed before it). Duplicate keys simply share a chain.
#include "join.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint nb = globals_u[pc.user[2]];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint b = gl_GlobalInvocationID.x; b < nb; b += stride) {
    const uint br = globals_u[pc.user[3] + b];
    uvec2 kb;
    if (!db_join_key(pc.user[6], pc.user[7], br, kb)) continue;
    const uint bucket = db_hash(kb, 0u) & pc.user[14];
    globals_u[pc.user[15] + b] = atomicExchange(globals_u[pc.user[13] + bucket], b);
  }
}
