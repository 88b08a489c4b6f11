#version 450
#extension GL_GOOGLE_include_directive : require
// Aggregates without GROUP BY: one group holding every row (even none: COUNT(*) = 0), members
// in row order (the member list is the identity).
#include "db_args.h"
#define WEFT_ARGS DB_GROUP_SINGLE_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 1) in;

void main() {
  globals_u[pc.args.groups] = 1u;
  globals_u[pc.args.groups_kept] = 1u;
  globals_u[pc.args.rep] = 0u;
  globals_u[pc.args.sizes] = globals_u[pc.args.count];
  globals_u[pc.args.offsets] = 0u;
  weft_set_control_word(pc.args.reduce_slot, 1u);
}
