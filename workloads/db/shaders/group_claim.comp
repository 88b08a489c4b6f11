#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 1: every row finds the hash slot of its key (open addressing, linear probing).
// The first row to claim an empty slot becomes the group's representative.
#include "db_args.h"
#define WEFT_ARGS DB_GROUP_CLAIM_ARGS
#include "weft.glsl"
#include "group.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.args.count], mask = pc.args.hash_mask;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    uint h = db_keys_hash(i);
    for (uint probe = 0u; probe <= mask; ++probe, ++h) {
      const uint s = h & mask;
      // A slot changes once (DB_NONE -> its representative), so a plain read that sees a row is
      // final and spares the atomic; with few groups nearly every row finds its slot that way.
      uint prev = globals_u[pc.args.heads + s];
      if (prev == DB_NONE) prev = atomicCompSwap(globals_u[pc.args.heads + s], DB_NONE, i);
      if (prev == DB_NONE || db_keys_equal(prev, i)) {
        globals_u[pc.args.slot_of_row + i] = s;
        break;
      }
    }
  }
}
