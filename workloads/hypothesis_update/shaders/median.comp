// Spec §3.1 "median" threshold on the device: the median of each space's live evidence by
// radix selection (four 8-bit histogram passes over order-preserving integer keys per order
// statistic), so no sort and no host round trip. Even counts average the two middle values as
// numpy does. One workgroup per space; histograms in shared memory.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

shared uint s_bins[256];
shared uint s_prefix;
shared uint s_rank;

uint sort_key(float f) {
  const uint b = floatBitsToUint(f);
  return (b & 0x80000000u) != 0u ? ~b : (b | 0x80000000u);
}
float key_value(uint k) { return uintBitsToFloat((k & 0x80000000u) != 0u ? (k & 0x7fffffffu) : ~k); }

// The value of rank `rank` (0-based, ascending) among rows [base, base + count).
float select_rank(uint base, uint count, uint rank) {
  const uint t = gl_LocalInvocationID.x;
  if (t == 0u) { s_prefix = 0u; s_rank = rank; }
  uint mask = 0u;
  for (int shift = 24; shift >= 0; shift -= 8) {
    for (uint b = t; b < 256u; b += HYP_WG) s_bins[b] = 0u;
    barrier();
    const uint prefix = s_prefix;
    for (uint h = t; h < count; h += HYP_WG) {
      const uint k = sort_key(hyp_E(base + h));
      if ((k & mask) == prefix) atomicAdd(s_bins[(k >> uint(shift)) & 255u], 1u);
    }
    barrier();
    if (t == 0u) {
      uint r = s_rank, b = 0u;
      while (r >= s_bins[b]) { r -= s_bins[b]; ++b; }
      s_rank = r;
      s_prefix = prefix | (b << uint(shift));
    }
    mask |= 255u << uint(shift);
    barrier();
  }
  return key_value(s_prefix);
}

void main() {
  const uint s = gl_WorkGroupID.x;
  const uint m = sp(s, SP_LM);
  if (!lm_active(m) || param_u(m, P_THR_MODE) != MODE_MEDIAN) return;
  const uint count = globals_u[stat_word(s, S_COUNT)];
  if (count == 0u) return;
  const uint base = sp(s, SP_ROW_OFF);
  float median;
  if ((count & 1u) != 0u) {
    median = select_rank(base, count, count / 2u);
  } else {
    const float lo = select_rank(base, count, count / 2u - 1u);
    barrier();
    const float hi = select_rank(base, count, count / 2u);
    median = (lo + hi) / 2.0;
  }
  if (gl_LocalInvocationID.x == 0u) globals_f[stat_word(s, S_MEDIAN)] = median;
  weft_require_loops_whole();
}
