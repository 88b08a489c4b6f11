#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 1: every row finds the hash slot of its key (open addressing, linear probing).
// The first row to claim an empty slot becomes the group's representative. Large inputs get a
// table sized for their group capacity, not their row count (6M rows would need 64 MiB of
// slots), so once half the slots are claimed the query stops here and is rebuilt larger.
#include "db_args.h"
#define WEFT_ARGS DB_GROUP_CLAIM_ARGS
#include "weft.glsl"
#include "group.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.args.count], mask = pc.args.hash_mask;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    const uint h = db_keys_hash(i);
    uint slot = h & mask;  // where the row points when it gives up (a valid slot, never its group's)
    bool found = false;
    for (uint probe = 0u; probe <= mask && !found; ++probe) {
      const uint s = (h + probe) & mask;
      // A slot changes once (DB_NONE -> its representative), so a plain read that sees a row is
      // final and spares the atomic; with few groups nearly every row finds its slot that way.
      uint prev = globals_u[pc.args.heads + s];
      if (prev == DB_NONE) {
        prev = atomicCompSwap(globals_u[pc.args.heads + s], DB_NONE, i);
        if (prev == DB_NONE) atomicAdd(globals_u[pc.args.claimed], 1u);
      }
      found = prev == DB_NONE || db_keys_equal(prev, i);
      if (found) slot = s;
      else if (globals_u[pc.args.claimed] > pc.args.max_claims) break;
    }
    if (!found) db_error(pc.args.err, DB_ERROR_GROUP_CAPACITY);
    globals_u[pc.args.slot_of_row + i] = slot;
  }
}
