// Spec §3.6: the LM's most likely hypothesis, the global argmax of E over its graphs: the first
// graph (in the LM's order) with the largest evidence, and its first hypothesis with it. One
// workgroup; tree reduction in shared memory keyed by (evidence, stacked row): rows ascend with
// (graph, hypothesis), so the lower row wins ties exactly like the CPU reference.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "weft.glsl"
#include "hyp_common.glsl"
layout(local_size_x = 64) in;

shared float s_max[HYP_WG];
shared uint s_row[HYP_WG];

void main() {
  const uint t = gl_LocalInvocationID.x;
  float mx = -HYP_INF;
  uint row = 0xFFFFFFFFu;
  for (uint g = 0u; g < graph_count(); ++g) {
    const uint base = graph_hyp_off(g), count = graph_hyp_count(g);
    for (uint h = t; h < count; h += HYP_WG) {
      const float e = globals_f[off_E() + base + h];
      if (e > mx) { mx = e; row = base + h; }
    }
  }
  s_max[t] = mx;
  s_row[t] = row;
  barrier();
  for (uint s = HYP_WG / 2u; s > 0u; s >>= 1u) {
    if (t < s && (s_max[t + s] > s_max[t] || (s_max[t + s] == s_max[t] && s_row[t + s] < s_row[t]))) {
      s_max[t] = s_max[t + s];
      s_row[t] = s_row[t + s];
    }
    barrier();
  }
  if (t != 0u) return;
  uint graph = 0xFFFFFFFFu, local_h = 0xFFFFFFFFu;
  for (uint g = 0u; g < graph_count(); ++g)
    if (s_row[0] >= graph_hyp_off(g) && s_row[0] - graph_hyp_off(g) < graph_hyp_count(g)) {
      graph = g;
      local_h = s_row[0] - graph_hyp_off(g);
    }
  globals_u[off_mlh() + 0u] = graph;
  globals_u[off_mlh() + 1u] = local_h;
  globals_f[off_mlh() + 2u] = s_max[0];
}
