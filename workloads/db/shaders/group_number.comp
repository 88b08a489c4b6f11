#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 2: each representative row numbers its group (dense ids 0..G-1).
#include "db_args.h"
#define WEFT_ARGS DB_GROUP_NUMBER_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.args.count];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    const uint s = globals_u[pc.args.slot_of_row + i];
    if (globals_u[pc.args.heads + s] == i) {
      const uint g = atomicAdd(globals_u[pc.args.groups], 1u);
      if (g < pc.args.capacity) {
        globals_u[pc.args.gid_of_slot + s] = g;
        globals_u[pc.args.rep + g] = i;
      } else {
        db_error(pc.args.err, DB_ERROR_GROUP_CAPACITY);  // counted on: the host rebuilds to fit
      }
    }
  }
}
