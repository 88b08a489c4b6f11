#version 450
#extension GL_GOOGLE_include_directive : require
// Nested-loop join: each probe row compares its key with every filtered build row. The plan's
// first choice while the build side is small; a regulator rule zeroes this stage's indirect slot
// when the build side turns out larger than the threshold.
#include "join.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint np = globals_u[pc.user[0]], nb = globals_u[pc.user[2]];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint p = gl_GlobalInvocationID.x; p < np; p += stride) {
    const uint pr = globals_u[pc.user[1] + p];
    uvec2 kp;
    if (!db_join_key(pc.user[4], pc.user[5], pr, kp)) continue;
    for (uint b = 0u; b < nb; ++b) {
      const uint br = globals_u[pc.user[3] + b];
      uvec2 kb;
      if (db_join_key(pc.user[6], pc.user[7], br, kb) && kb == kp) db_join_emit(pr, br);
    }
  }
}
