#version 450
#extension GL_GOOGLE_include_directive : require
// Energy reduction, pass 1 of 2: workgroup g of P sums particles g*128 + t + k*P*128 (t its
// thread) into one partial: kinetic and potential energy, momentum, the largest speed, and the
// counts of violations and wall hits from the step's flags. The partition and the tree are
// fixed, so the sums are the same on every run.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

layout(local_size_x = PHYS_REDUCE_GROUP) in;
shared float s_f[6][PHYS_REDUCE_GROUP];
shared uint s_u[2][PHYS_REDUCE_GROUP];

void main() {
  const uint t = gl_LocalInvocationIndex, g = gl_WorkGroupID.x, P = par_u(PHYS_PARTIALS), n = particle_count();
  const uint acc_at = par_u(PHYS_OFF_ACC), flags_at = par_u(PHYS_OFF_FLAGS);
  float ke = 0.0, pe = 0.0, vmax = 0.0;
  vec3 mom = vec3(0.0);
  uint viol = 0u, hits = 0u;
  for (uint i = g * PHYS_REDUCE_GROUP + t; i < n; i += P * PHYS_REDUCE_GROUP) {
    const vec3 v = load_vec(PHYS_OFF_VEL, i);
    const float m = mass(i), v2 = v.x * v.x + v.y * v.y + v.z * v.z;
    ke += 0.5 * m * v2;
    pe += globals_f[acc_at + 4u * i + 3u];
    mom += m * v;
    // max() would drop a NaN speed; a runaway must stay visible, so NaN wins.
    const float speed = sqrt(v2);
    vmax = (isnan(speed) || speed > vmax) ? speed : vmax;
    const uint fl = globals_u[flags_at + i];
    viol += (fl & (PHYS_FLAG_OUTSIDE | PHYS_FLAG_NONFINITE)) != 0u ? 1u : 0u;
    hits += (fl & PHYS_FLAG_WALL) != 0u ? 1u : 0u;
  }
  s_f[0][t] = ke;
  s_f[1][t] = pe;
  s_f[2][t] = mom.x;
  s_f[3][t] = mom.y;
  s_f[4][t] = mom.z;
  s_f[5][t] = vmax;
  s_u[0][t] = viol;
  s_u[1][t] = hits;
  barrier();
  for (uint k = PHYS_REDUCE_GROUP / 2u; k > 0u; k >>= 1) {
    if (t < k) {
      for (uint q = 0u; q < 5u; ++q) s_f[q][t] += s_f[q][t + k];
      const float a = s_f[5][t], b = s_f[5][t + k];
      s_f[5][t] = (isnan(a) || a > b) ? a : b;
      s_u[0][t] += s_u[0][t + k];
      s_u[1][t] += s_u[1][t + k];
    }
    barrier();
  }
  if (t == 0u) {
    const uint o = par_u(PHYS_OFF_PARTIAL) + g * PHYS_PARTIAL_WORDS;
    for (uint q = 0u; q < 6u; ++q) globals_f[o + q] = s_f[q][0];
    globals_u[o + 6u] = s_u[0][0];
    globals_u[o + 7u] = s_u[1][0];
  }
  weft_require_loops_whole();
}
