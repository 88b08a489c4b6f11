// Neighbour aggregation over one edge type's CSR, one invocation per (node, feature):
//   out[i][f] = AGG over edges e of row i of  w_e * h[col_e][f]
// GNN_AGG selects the reduction (set by the aggregate_<kind>.comp wrappers): 0 sum, 1 mean (sum
// divided by the row's edge count), 2 max. A row without edges gives 0 for all three.
#include "gnn_args.h"
#define WEFT_ARGS GNN_AGGREGATE_ARGS
#include "weft.glsl"

#ifndef GNN_AGG
#error "define GNN_AGG (0 sum, 1 mean, 2 max)"
#endif

layout(local_size_x = 64) in;

void main() {
  const uint rows = pc.args.rows, cols = pc.args.cols, wts = pc.args.weights, h = pc.args.h, out_w = pc.args.sums;
  const uint nodes = pc.args.nodes, F = pc.args.features;
  const uint count = nodes * F;
  // Consecutive invocations take consecutive features of one node, so the gathers of h[col]
  // read contiguous words.
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    const uint i = k / F, f = k - i * F;
    const uint mask = pc.args.mask;
    const uint e0 = heap_u[rows + i], e1 = heap_u[rows + i + 1u];
    const bool row_kept = mask == 0xFFFFFFFFu || globals_u[mask + i] != 0u;
    uint kept = 0u;
#if GNN_AGG == 2
    float acc = -3.402823466e38;
#else
    float acc = 0.0;
#endif
    for (uint e = e0; row_kept && e < e1; ++e) {
      const uint j = heap_u[cols + e];
      if (mask != 0xFFFFFFFFu && globals_u[mask + j] == 0u) continue;
      ++kept;
      const float v = heap_f[wts + e] * globals_f[h + j * F + f];
#if GNN_AGG == 2
      acc = max(acc, v);
#else
      acc += v;
#endif
    }
#if GNN_AGG == 1
    if (kept > 0u) acc /= float(kept);
#endif
#if GNN_AGG == 2
    if (kept == 0u) acc = 0.0;
#endif
    globals_f[out_w + k] = acc;
  }
}
