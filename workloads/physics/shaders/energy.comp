#version 450
#extension GL_GOOGLE_include_directive : require
// Energy reduction, pass 2 of 2, and the step's message (one workgroup): sums the P partials,
// then  E = K + U,  drift = |E - E_ref| / max(|E_ref|, 1e-3 (K + |U|)_ref)  where E_ref is the
// energy when the current time step began to be used (the run's first energy, re-taken after a
// rule changed dt: the error of the old dt is not the new dt's), and drift0 likewise from E0.
// The floor keeps a near-zero total energy from turning rounding into "drift".
// Message: R30 = PHYS_MSG_* payload; Metrics norm = drift (the time-step rule's source),
// max_abs = largest speed (the runaway rule's), status ATTENTION when a constraint was
// violated, counters PHYS_CTR_*.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ENERGY_ARGS
#include "weft.glsl"
#define PHYSICS_TIMED
#include "physics.glsl"

layout(local_size_x = 128) in;
shared float s_f[6][128];
shared uint s_u[2][128];

void main() {
  const uvec2 start = weft_clock();
  const uint t = gl_LocalInvocationIndex, P = par_u(PHYS_PARTIALS), at = par_u(PHYS_OFF_PARTIAL);
  float f[6] = float[6](0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
  uint u[2] = uint[2](0u, 0u);
  for (uint g = t; g < P; g += 128u) {
    const uint o = at + g * PHYS_PARTIAL_WORDS;
    for (uint q = 0u; q < 5u; ++q) f[q] += globals_f[o + q];
    const float m = globals_f[o + 5u];
    f[5] = (isnan(m) || m > f[5]) ? m : f[5];
    u[0] += globals_u[o + 6u];
    u[1] += globals_u[o + 7u];
  }
  for (uint q = 0u; q < 6u; ++q) s_f[q][t] = f[q];
  s_u[0][t] = u[0];
  s_u[1][t] = u[1];
  barrier();
  for (uint k = 64u; k > 0u; k >>= 1) {
    if (t < k) {
      for (uint q = 0u; q < 5u; ++q) s_f[q][t] += s_f[q][t + k];
      const float a = s_f[5][t], b = s_f[5][t + k];
      s_f[5][t] = (isnan(a) || a > b) ? a : b;
      s_u[0][t] += s_u[0][t + k];
      s_u[1][t] += s_u[1][t + k];
    }
    barrier();
  }
  if (t != 0u) return;

  const float K = s_f[0][0], U = s_f[1][0], E = K + U, dt = time_step();
  const uint sim = par_u(PHYS_OFF_SIM);
  if (globals_u[sim + PHYS_SIM_E0_VALID] == 0u) {
    globals_u[sim + PHYS_SIM_E0_VALID] = 1u;
    globals_f[sim + PHYS_SIM_E0] = E;
    globals_f[sim + PHYS_SIM_SCALE0] = K + abs(U);
    globals_f[sim + PHYS_SIM_EREF] = E;
    globals_f[sim + PHYS_SIM_SCALE] = K + abs(U);
    globals_f[sim + PHYS_SIM_DT_SEEN] = dt;
  } else if (globals_f[sim + PHYS_SIM_DT_SEEN] != dt) {
    globals_f[sim + PHYS_SIM_EREF] = E;
    globals_f[sim + PHYS_SIM_SCALE] = K + abs(U);
    globals_f[sim + PHYS_SIM_DT_SEEN] = dt;
  }
  const float e_ref = globals_f[sim + PHYS_SIM_EREF], e0 = globals_f[sim + PHYS_SIM_E0];
  const float drift = abs(E - e_ref) / max(abs(e_ref), 1e-3 * globals_f[sim + PHYS_SIM_SCALE]);
  const float drift0 = abs(E - e0) / max(abs(e0), 1e-3 * globals_f[sim + PHYS_SIM_SCALE0]);
  uint step = globals_u[sim + PHYS_SIM_STEP];
  if (pc.args.counts_step != 0u) {
    step += 1u;
    globals_u[sim + PHYS_SIM_STEP] = step;
  }

  const float vmax = s_f[5][0];
  weft_outbox_f(PHYS_MSG_ENERGY, E);
  weft_outbox_f(PHYS_MSG_KINETIC, K);
  weft_outbox_f(PHYS_MSG_POTENTIAL, U);
  weft_outbox_f(PHYS_MSG_DRIFT, drift);
  weft_outbox_f(PHYS_MSG_DRIFT0, drift0);
  weft_outbox_f(PHYS_MSG_MAX_SPEED, vmax);
  weft_outbox_f(PHYS_MSG_PX, s_f[2][0]);
  weft_outbox_f(PHYS_MSG_PY, s_f[3][0]);
  weft_outbox_f(PHYS_MSG_PZ, s_f[4][0]);
  weft_outbox_f(PHYS_MSG_DT, dt);
  weft_outbox_u(PHYS_MSG_VIOLATIONS, s_u[0][0]);
  weft_outbox_u(PHYS_MSG_WALL_HITS, s_u[1][0]);
  weft_outbox_u(PHYS_MSG_STEP, step);

  const uint me = pc.header.instance;
  metrics[me].counters[PHYS_CTR_STEP] = step;
  metrics[me].counters[PHYS_CTR_VIOLATIONS] = s_u[0][0];
  metrics[me].counters[PHYS_CTR_WALL_HITS] = s_u[1][0];
  metrics[me].counters[PHYS_CTR_ENERGY] = floatBitsToUint(E);
  metrics[me].counters[PHYS_CTR_KINETIC] = floatBitsToUint(K);
  metrics[me].counters[PHYS_CTR_POTENTIAL] = floatBitsToUint(U);
  metrics[me].counters[PHYS_CTR_DRIFT0] = floatBitsToUint(drift0);
  metrics[me].counters[PHYS_CTR_PX] = floatBitsToUint(s_f[2][0]);
  metrics[me].counters[PHYS_CTR_PY] = floatBitsToUint(s_f[3][0]);
  metrics[me].counters[PHYS_CTR_PZ] = floatBitsToUint(s_f[4][0]);
  weft_message_write(drift, vmax, s_u[0][0] != 0u ? WEFT_STATUS_ATTENTION : WEFT_STATUS_OK, weft_ticks_since(start));
}
