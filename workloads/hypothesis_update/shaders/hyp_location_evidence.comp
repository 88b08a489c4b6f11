// Spec §3.2 and §3.5 for every hypothesis of every graph of the LM, stacked: displace
// L <- L + R d, then for hypotheses at or above their graph's threshold the exact K nearest nodes
// (tiled brute force through shared memory, float32 squared distances, ties to the lower node
// index) and each channel's location evidence max_k(pose + fe). Untested and padding rows get
// +inf so the min reduction that follows skips them.
//
// Each workgroup covers 64 hypotheses of ONE graph (graph blocks are padded to 64), so all its
// invocations scan the same nodes and share each tile. Every invocation takes part in every
// barrier; only the per-thread work is predicated.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "weft.glsl"
#include "hyp_common.glsl"
layout(local_size_x = 64) in;

shared vec3 tile[HYP_WG];

vec3 load3g(uint w) { return vec3(globals_f[w], globals_f[w + 1u], globals_f[w + 2u]); }
vec3 load3h(uint w) { return vec3(heap_f[w], heap_f[w + 1u], heap_f[w + 2u]); }

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint h = gl_WorkGroupID.x * HYP_WG + t;  // row in the stacked arrays
  const uint g = heap_u[off_wg_graph() + gl_WorkGroupID.x];
  const uint local_h = h - graph_hyp_off(g);
  const bool valid = local_h < graph_hyp_count(g);
  const uint node0 = graph_node_off(g), nodes = graph_node_count(g);

  vec3 rows[3] = vec3[3](vec3(0.0), vec3(0.0), vec3(0.0));
  vec3 L = vec3(0.0);
  bool tested = false;
  if (valid) {
    for (uint i = 0u; i < 3u; ++i) rows[i] = load3g(off_R() + h * 9u + i * 3u);
    const vec3 d = load3g(off_input());
    L = load3g(off_L() + h * 3u);
    // Same association as the CPU reference: l + (r0 d0 + r1 d1 + r2 d2).
    for (uint i = 0u; i < 3u; ++i) L[i] = L[i] + (rows[i].x * d.x + rows[i].y * d.y + rows[i].z * d.z);
    globals_f[off_L() + h * 3u + 0u] = L.x;
    globals_f[off_L() + h * 3u + 1u] = L.y;
    globals_f[off_L() + h * 3u + 2u] = L.z;
    tested = globals_f[off_E() + h] >= globals_f[stat_word(g, S_THR)];
  }

  const uint k = min(param_u(P_K), nodes);
  tested = tested && k > 0u;
  float bd[HYP_MAX_K];
  uint bi[HYP_MAX_K];
  for (uint i = 0u; i < HYP_MAX_K; ++i) { bd[i] = HYP_INF; bi[i] = 0u; }
  const bool uniform_any = nodes > 0u;  // the tile loop below is uniform over the workgroup
  for (uint base = 0u; uniform_any && base < nodes; base += HYP_WG) {
    if (base + t < nodes) tile[t] = load3h(off_pos() + (node0 + base + t) * 3u);
    barrier();
    if (tested) {
      const uint span = min(HYP_WG, nodes - base);
      for (uint j = 0u; j < span; ++j) {
        const vec3 delta = tile[j] - L;
        const float d2 = dot(delta, delta);
        if (d2 < bd[k - 1u]) {  // strict: an equal distance keeps the earlier (lower) node
          uint i = k - 1u;
          while (i > 0u && d2 < bd[i - 1u]) { bd[i] = bd[i - 1u]; bi[i] = bi[i - 1u]; --i; }
          bd[i] = d2;
          bi[i] = base + j;
        }
      }
    }
    barrier();
  }

  const uint channels = input_channels();
  const float mmd = param_f(P_MMD), sn_w = param_f(P_SN_W), cd_w = param_f(P_CD_W);
  const bool trace = off_trace() != WEFT_NONE;
  for (uint c = 0u; c < channels; ++c) {
    float best = -HYP_INF;
    if (tested) {
      const vec3 ssn = load3g(channel_word(c, C_SN));
      const vec3 scd = load3g(channel_word(c, C_CD1));
      const bool pfd = globals_u[channel_word(c, C_PFD)] != 0u;
      const float cscale = globals_f[channel_word(c, C_CSCALE)];
      const vec3 sn = vec3(dot(rows[0], ssn), dot(rows[1], ssn), dot(rows[2], ssn));
      const vec3 cd1 = vec3(dot(rows[0], scd), dot(rows[1], scd), dot(rows[2], scd));
      for (uint i = 0u; i < k; ++i) {
        const uint node = node0 + bi[i];
        const vec3 delta = load3h(off_pos() + node * 3u) - L;
        const float dist = sqrt(dot(delta, delta)) + abs(dot(delta, sn)) * cscale;
        float ev;
        if ((mmd - dist) / mmd <= 0.0) {  // Monty tests the sign of the distance weight
          ev = -1.0;
        } else {
          const vec3 nsn = load3h(off_pose() + node * 9u);
          // 0.5 - sin(acos(x)/2) = 0.5 - sqrt((1-x)/2)
          float pose = (0.5 - sqrt((1.0 - clamp(dot(nsn, sn), -1.0, 1.0)) / 2.0)) * sn_w;
          if (pfd) {
            const float y = clamp(dot(load3h(off_pose() + node * 9u + 3u), cd1), -1.0, 1.0);
            pose += (0.5 - sqrt(1.0 - y * y)) * (heap_f[off_pdf() + node] != 0.0 ? 1.0 : 0.0) * cd_w;
          }
          ev = pose + globals_f[off_fe() + c * total_nodes() + node];
        }
        best = max(best, ev);
        if (trace && c == 0u) {
          globals_u[off_trace() + h * HYP_TRACE_WORDS + i] = bi[i];
          globals_f[off_trace() + h * HYP_TRACE_WORDS + 16u + i] = dist;
        }
      }
      if (trace && c == 0u)
        for (uint i = 0u; i < 3u; ++i) globals_f[off_trace() + h * HYP_TRACE_WORDS + 32u + i] = sn[i];
    }
    globals_f[off_new() + c * padded_hyps() + h] = tested ? best : HYP_INF;
  }
}
