// Spec §3.5 evidence update: E <- past E + present total, total = sum over channels of the
// hypothesis's location evidence (tested) or its graph's floor (untested). Graphs where nothing
// was tested keep their evidence. One invocation per stacked hypothesis row.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "weft.glsl"
#include "hyp_common.glsl"
layout(local_size_x = 64) in;

void main() {
  const uint h = gl_GlobalInvocationID.x;
  const uint g = heap_u[off_wg_graph() + gl_WorkGroupID.x];
  if (h - graph_hyp_off(g) >= graph_hyp_count(g)) return;
  if (globals_u[stat_word(g, S_TESTED)] == 0u) return;
  float total = 0.0;
  for (uint c = 0u; c < input_channels(); ++c) {
    const float v = globals_f[off_new() + c * padded_hyps() + h];
    total += v != HYP_INF ? v : globals_f[stat_word(g, S_FLOOR + c)];
  }
  globals_f[off_E() + h] = globals_f[off_E() + h] * param_f(P_PAST) + total * param_f(P_PRESENT);
}
