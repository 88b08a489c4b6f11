#version 450
#extension GL_GOOGLE_include_directive : require
// Hash join, probe: each probe row walks its bucket's chain and emits the rows whose key matches.
#include "join.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint np = globals_u[pc.user[0]];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint p = gl_GlobalInvocationID.x; p < np; p += stride) {
    const uint pr = globals_u[pc.user[1] + p];
    uvec2 kp;
    if (!db_join_key(pc.user[4], pc.user[5], pr, kp)) continue;
    uint b = globals_u[pc.user[13] + (db_hash(kp, 0u) & pc.user[14])];
    while (b != DB_NONE) {
      const uint br = globals_u[pc.user[3] + b];
      uvec2 kb;
      if (db_join_key(pc.user[6], pc.user[7], br, kb) && kb == kp) db_join_emit(pr, br);
      b = globals_u[pc.user[15] + b];
    }
  }
}
