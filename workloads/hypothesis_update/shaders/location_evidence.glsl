// Spec §3.2 and §3.5 for every retained hypothesis of every space with input, stacked: displace
// L <- L + R d, then for hypotheses at or above their space's threshold the K nearest nodes
// (float32 squared distances, ties to the lower node index) and each channel's location evidence
// max_k(pose + fe). Untested rows get +inf so the min reduction that follows skips them.
//
// Nearest nodes, two ways (one per program, uniform):
// - grid (the default): the K nearest among the nodes within the search radius (fewer than K that
//   close means the true K nearest hold a far node, which adds the far value -1; same evidence as
//   the exact search). Candidates come from the query's neighbour list (device_grid.h: one flat
//   run of records) or, outside the lists' box or without lists, from the grid cells the search
//   sphere touches; both rank the same float32 squared distances the same way.
// - exact tiled brute force when the kernel trace is on (Monty's nearest ids are compared):
//   each workgroup covers 64 rows of ONE space (space blocks are padded to 64), so all its
//   invocations scan the same nodes and share each tile. Every invocation takes part in every
// barrier; only the per-thread work is predicated. Workgroups past the space's retained rows
// leave at once (a uniform exit).
// One body, compiled once per nearest-neighbour network size: the generated wrappers
// (CMakeLists.txt) set HYP_NET_K, and a program runs the smallest that holds every LM's K.
#ifndef HYP_NET_K
#error "HYP_NET_K (slots of the nearest-neighbour network) must be defined by the wrapper"
#endif
#include "hypothesis_update_args.h"
#define WEFT_ARGS HYPOTHESIS_UPDATE_STEP_ARGS
#include "weft.glsl"
#include "hypothesis_update.glsl"
layout(local_size_x = 64) in;

shared vec3 tile[HYP_WG];
// Each invocation's nearest node ids, moved out of its registers for the evidence loop: that loop
// runs `found` times (a data-dependent trip count the driver ends when every lane is done), and
// indexing the private array inside it would move the whole array out of registers instead.
shared uint nearest[HYP_NET_K][HYP_WG];

// Merges (d2, n) into the HYP_NET_K smallest (squared distance, node id) pairs so far, kept in
// ascending order. Every slot is addressed by a constant index and chosen by a select, not a
// branch, so the arrays stay in registers and lanes never diverge (dynamically indexed private
// arrays and data-dependent loops cost a CPU driver such as lavapipe most of this kernel's time).
void keep_nearest(float d2, uint n, inout float bd[HYP_NET_K], inout uint bi[HYP_NET_K]) {
  [[unroll]] for (uint j = 0u; j < HYP_NET_K; ++j) {
    const bool before = d2 < bd[j] || (d2 == bd[j] && n < bi[j]);
    const float kept_d = bd[j];
    const uint kept_n = bi[j];
    bd[j] = before ? d2 : kept_d;
    bi[j] = before ? n : kept_n;
    d2 = before ? kept_d : d2;
    n = before ? kept_n : n;
  }
}

// The query's neighbour list as the absolute Heap words [first, end) of its records; false when
// the space has no lists or the query lies outside their box (or is not a number).
bool neighbour_list(uint gh, vec3 q, out uint first, out uint end) {
  first = 0u;
  end = 0u;
  if (heap_u[gh + G_LISTED] == 0u) return false;
  const vec3 f = (q - load3h(gh + G_LIST_ORIGIN)) * heap_f[gh + G_LIST_INVERSE_CELL];
  const uvec3 dims = uvec3(heap_u[gh + G_LIST_DIMS], heap_u[gh + G_LIST_DIMS + 1u], heap_u[gh + G_LIST_DIMS + 2u]);
  if (!all(greaterThanEqual(f, vec3(0.0))) || !all(lessThan(f, vec3(dims)))) return false;
  const uvec3 c = uvec3(f);
  const uint starts = heap_u[gh + G_LIST_STARTS] + (c.z * dims.y + c.y) * dims.x + c.x;
  const uint records = heap_u[gh + G_LIST_RECORDS];
  first = records + heap_u[starts] * 4u;
  end = records + heap_u[starts + 1u] * 4u;
  return true;
}

// The K nearest within the search radius of L: from the query's neighbour list or, outside the
// lists' box or without lists, the grid cells the search sphere touches. Returns how many are
// that close (at most k); the rest of the K nearest are far.
uint nearest_within_radius(uint gh, vec3 L, uint node0, uint k, inout float bd[HYP_NET_K], inout uint bi[HYP_NET_K]) {
  const float r = heap_f[gh + G_RADIUS];
  const float r2 = r * r;
  uint inside = 0u;
  uint first = 0u, end = 0u;
  const bool listed = neighbour_list(gh, L, first, end);
  // One flat loop over the query's list: every candidate merged without a branch.
  for (uint rec = first; rec < end; rec += 4u) {
    const vec3 delta = vec3(heap_f[rec], heap_f[rec + 1u], heap_f[rec + 2u]) - L;
    const float d2 = dot(delta, delta);
    inside += d2 < r2 ? 1u : 0u;
    keep_nearest(d2 < r2 ? d2 : HYP_INF, heap_u[rec + 3u], bd, bi);
  }
  if (!listed) {
    const vec3 origin = load3h(gh + G_ORIGIN);
    const float cell = heap_f[gh + G_CELL];
    const ivec3 dims = ivec3(heap_u[gh + G_DIMS], heap_u[gh + G_DIMS + 1u], heap_u[gh + G_DIMS + 2u]);
    const uint cs = heap_u[gh + G_CELL_START], cn = heap_u[gh + G_NODES], oPos = lay(L_POS);
    // A slightly larger box than the sphere, so float32 rounding cannot drop a cell.
    const float rq = r * 1.001;
    const ivec3 lo = clamp(ivec3(floor((L - vec3(rq) - origin) / cell)), ivec3(0), dims - 1);
    const ivec3 hi = clamp(ivec3(floor((L + vec3(rq) - origin) / cell)), ivec3(0), dims - 1);
    for (int z = lo.z; z <= hi.z; ++z)
      for (int y = lo.y; y <= hi.y; ++y)
        for (int x = lo.x; x <= hi.x; ++x) {
          const uint c = uint((z * dims.y + y) * dims.x + x);
          const uint cell_end = heap_u[cs + c + 1u];
          for (uint e = heap_u[cs + c]; e < cell_end; ++e) {
            const uint n = heap_u[cn + e];
            const vec3 delta = load3h(oPos + (node0 + n) * 3u) - L;
            const float d2 = dot(delta, delta);
            inside += d2 < r2 ? 1u : 0u;
            keep_nearest(d2 < r2 ? d2 : HYP_INF, n, bd, bi);
          }
        }
  }
  return min(inside, k);
}

// The exact K nearest of all the space's nodes, tile by tile through shared memory. Called by the
// whole workgroup (its barriers); `tested` only predicates each invocation's own work.
void nearest_exact(uint node0, uint nodes, bool tested, vec3 L, inout float bd[HYP_NET_K], inout uint bi[HYP_NET_K]) {
  const uint t = gl_LocalInvocationID.x, oPos = lay(L_POS);
  for (uint base = 0u; base < nodes; base += HYP_WG) {  // uniform over the workgroup
    if (base + t < nodes) tile[t] = load3h(oPos + (node0 + base + t) * 3u);
    barrier();
    if (tested) {
      const uint span = min(HYP_WG, nodes - base);
      for (uint j = 0u; j < span; ++j) {
        const vec3 delta = tile[j] - L;
        keep_nearest(dot(delta, delta), base + j, bd, bi);
      }
    }
    barrier();
  }
}

// Channel c's location evidence of the row at L with rotation rows R: the best over its `found`
// nearest nodes (nearest[..][t]) of pose plus feature evidence, or -1 for a node past the match
// distance; -1 also when fewer than K were within the radius. Records channel 0's trace.
float channel_evidence(uint c, uint m, uint s, uint h, vec3 L, vec3 R[3], uint found, uint k) {
  const uint t = gl_LocalInvocationID.x;
  const uint node0 = sp(s, SP_NODE_OFF), nodes = sp(s, SP_NODES), fe0 = sp(s, SP_FE_OFF);
  const uint oPos = lay(L_POS), oPose = lay(L_POSE);
  const float mmd = param_f(m, P_MMD), sn_w = param_f(m, P_SN_W), cd_w = param_f(m, P_CD_W);
  const bool trace = lay(L_TRACE) != WEFT_NONE && c == 0u;
  const vec3 ssn = load3g(channel_word(m, c, C_SN));
  const vec3 scd = load3g(channel_word(m, c, C_CD1));
  const bool pfd = globals_u[channel_word(m, c, C_PFD)] != 0u;
  const float cscale = globals_f[channel_word(m, c, C_CSCALE)];
  const vec3 sn = vec3(dot(R[0], ssn), dot(R[1], ssn), dot(R[2], ssn));
  const vec3 cd1 = vec3(dot(R[0], scd), dot(R[1], scd), dot(R[2], scd));
  float best = found < k ? -1.0 : -HYP_INF;
  for (uint i = 0u; i < found; ++i) {
    const uint node = node0 + nearest[i][t];
    const vec3 delta = load3h(oPos + node * 3u) - L;
    const float dist = sqrt(dot(delta, delta)) + abs(dot(delta, sn)) * cscale;
    float ev;
    if ((mmd - dist) / mmd <= 0.0) {  // Monty tests the sign of the distance weight
      ev = -1.0;
    } else {
      const vec3 nsn = load3h(oPose + node * 9u);
      // 0.5 - sin(acos(x)/2) = 0.5 - sqrt((1-x)/2)
      float pose = (0.5 - sqrt((1.0 - clamp(dot(nsn, sn), -1.0, 1.0)) / 2.0)) * sn_w;
      if (pfd) {
        const float y = clamp(dot(load3h(oPose + node * 9u + 3u), cd1), -1.0, 1.0);
        pose += (0.5 - sqrt(1.0 - y * y)) * (heap_f[lay(L_PDF) + node] != 0.0 ? 1.0 : 0.0) * cd_w;
      }
      ev = pose + globals_f[fe0 + c * nodes + nearest[i][t]];
    }
    best = max(best, ev);
    if (trace) {
      hyp_set_trace_u(h, i, nearest[i][t]);
      hyp_set_trace_f(h, 16u + i, dist);
    }
  }
  if (trace)
    for (uint i = 0u; i < 3u; ++i) hyp_set_trace_f(h, 32u + i, sn[i]);
  return best;
}

void main() {
  const uint t = gl_LocalInvocationID.x;
  if (!row_wg_valid()) return;
  const uint h = row_h();  // row in the stacked arrays
  const uint s = wg_space(row_wg());
  const uint m = sp(s, SP_LM);
  if (!lm_active(m) || lm_first(m)) return;
  const uint row0 = sp(s, SP_ROW_OFF);
  const uint retained = globals_u[stat_word(s, S_RETAINED)];
  if (row_wg() * HYP_WG - row0 >= retained) return;
  const bool valid = h - row0 < retained;
  const uint node0 = sp(s, SP_NODE_OFF), nodes = sp(s, SP_NODES);

  vec3 R[3] = vec3[3](vec3(0.0), vec3(0.0), vec3(0.0));
  vec3 L = vec3(0.0);
  bool tested = false;
  if (valid) {
    for (uint i = 0u; i < 3u; ++i) R[i] = hyp_R_row(h, i);
    const vec3 d = load3g(in_word(m, 0u));
    L = hyp_L3(h);
    // Same association as the CPU reference: l + (r0 d0 + r1 d1 + r2 d2).
    for (uint i = 0u; i < 3u; ++i) L[i] = L[i] + (R[i].x * d.x + R[i].y * d.y + R[i].z * d.z);
    hyp_set_L(h, 0u, L.x);
    hyp_set_L(h, 1u, L.y);
    hyp_set_L(h, 2u, L.z);
    tested = hyp_E(h) >= globals_f[stat_word(s, S_THR)];
  }
  const uint k = min(param_u(m, P_K), nodes);
  tested = tested && k > 0u;

  float bd[HYP_NET_K];
  uint bi[HYP_NET_K];
  [[unroll]] for (uint i = 0u; i < HYP_NET_K; ++i) { bd[i] = HYP_INF; bi[i] = 0u; }
  uint found = k;  // neighbours in bd/bi; fewer than k: the rest of the K nearest are far
  const uint oGrid = lay(L_GRID);
  if (oGrid != WEFT_NONE)
    found = tested ? nearest_within_radius(oGrid + s * HYP_GRID_WORDS, L, node0, k, bd, bi) : 0u;
  else
    nearest_exact(node0, nodes, tested, L, bd, bi);
  [[unroll]] for (uint j = 0u; j < HYP_NET_K; ++j) nearest[j][t] = bi[j];

  for (uint c = 0u; c < input_channels(m); ++c)
    hyp_set_new(c, h, tested ? channel_evidence(c, m, s, h, L, R, found, k) : HYP_INF);
  weft_require_loops_whole();
}
