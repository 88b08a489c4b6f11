#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 5: scatter each row's position into its group's bucket of the member list.
#include "db_args.h"
#define WEFT_ARGS DB_GROUP_FILL_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint n = globals_u[pc.args.count];
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    const uint g = globals_u[pc.args.group_of_row + i];
    if (g < pc.args.capacity) globals_u[pc.args.members + atomicAdd(globals_u[pc.args.cursor + g], 1u)] = i;
  }
}
