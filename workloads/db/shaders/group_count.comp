#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 3: each row learns its group id and counts itself into the group's size.
#include "db_args.h"
#define WEFT_ARGS DB_GROUP_COUNT_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.args.count];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    // After a capacity overflow the group ids are not all valid; the run is discarded then.
    const uint g = globals_u[pc.args.gid_of_slot + globals_u[pc.args.slot_of_row + i]];
    globals_u[pc.args.group_of_row + i] = g < pc.args.capacity ? g : DB_NONE;
    if (g < pc.args.capacity) atomicAdd(globals_u[pc.args.sizes + g], 1u);
  }
}
