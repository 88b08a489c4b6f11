#version 450
#extension GL_GOOGLE_include_directive : require
// Hash join, build: chains every filtered build row into its bucket (heads: last row pushed,
// next: the row pushed before it). Duplicate keys simply share a chain.
#include "db_args.h"
#define WEFT_ARGS DB_JOIN_BUILD_ARGS
#include "weft.glsl"
#include "join.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint nb = globals_u[pc.args.build_count];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint b = gl_GlobalInvocationID.x; b < nb; b += stride) {
    const uint br = globals_u[pc.args.build_ids + b];
    uvec2 kb;
    if (!db_join_key(pc.args.build_values, pc.args.build_nulls, br, kb)) continue;
    const uint bucket = db_hash(kb, 0u) & pc.args.hash_mask;
    globals_u[pc.args.next + b] = atomicExchange(globals_u[pc.args.heads + bucket], b);
  }
}
