#version 450
#extension GL_GOOGLE_include_directive : require
// Aggregates without GROUP BY: one group holding every row (even none: COUNT(*) = 0), members
// in row order (the member list is the identity).
#include "group.glsl"

layout(local_size_x = 1) in;

void main() {
  globals_u[pc.user[7]] = 1u;
  globals_u[pc.user[18]] = 1u;
  globals_u[pc.user[8]] = 0u;
  globals_u[pc.user[10]] = globals_u[pc.user[0]];
  globals_u[pc.user[11]] = 0u;
  weft_set_control_word(pc.user[14], 1u);
}
