/* Arguments of the GNN kernels, shared by C++ and GLSL (bindings_layout/weft_args.h). */
#ifndef GNN_ARGS_H
#define GNN_ARGS_H
#include "weft_args.h"

/* embed: h_0 = X (count = nodes * features words). */
#define GNN_EMBED_ARGS(X) X(WEFT_IN(Heap), x) X(WEFT_OUT(Globals), h) X(WEFT_U32, count)
/* aggregate (sum, mean, max): sums[i][f] = AGG over edges e of row i of w_e * h[col_e][f] for one
 * edge type's CSR; `mask` (u32 per node, an edge counts when both ends are nonzero) or absent. */
#define GNN_AGGREGATE_ARGS(X)                                                                   \
  X(WEFT_IN(Heap), rows) X(WEFT_IN(Heap), cols) X(WEFT_IN(Heap), weights) X(WEFT_IN(Globals), h) \
  X(WEFT_OUT(Globals), sums) X(WEFT_U32, nodes) X(WEFT_U32, features) X(WEFT_IN(Globals), mask)
/* transform: z[i][o] = b[o] + sum_f (h[i][f] + sum_t agg_t[i][f]) * W[f][o]; the edge types'
 * aggregates lie `stride` words apart from `agg` on. */
#define GNN_TRANSFORM_ARGS(X)                                                                      \
  X(WEFT_IN(Globals), h) X(WEFT_IN(Globals), agg) X(WEFT_U32, types) X(WEFT_U32, stride)           \
  X(WEFT_IN(Heap), w) X(WEFT_IN(Heap), b) X(WEFT_OUT(Globals), z) X(WEFT_U32, nodes) X(WEFT_U32, features)
/* activate: h_out = ReLU(z) + r * h_in, r a control word (a rule may change it in the run). */
#define GNN_ACTIVATE_ARGS(X) \
  X(WEFT_IN(Globals), z) X(WEFT_IN(Globals), h_in) X(WEFT_OUT(Globals), h_out) X(WEFT_U32, count) X(WEFT_IN(Control), residual)
/* readout: the layer's outbox m[f] = mean_i h[i][f]. */
#define GNN_READOUT_ARGS(X) X(WEFT_IN(Globals), h) X(WEFT_U32, nodes) X(WEFT_U32, features)
/* metric: the layer's convergence metrics (over-smoothing S, change, readout norm) into Metrics. */
#define GNN_METRIC_ARGS(X) \
  X(WEFT_IN(Globals), h_new) X(WEFT_IN(Globals), h_old) X(WEFT_U32, nodes) X(WEFT_U32, features) X(WEFT_U32, layer)

#ifdef __cplusplus
namespace weft::gnn {
WEFT_KERNEL_ARGS(EmbedArgs, GNN_EMBED_ARGS)
WEFT_KERNEL_ARGS(AggregateArgs, GNN_AGGREGATE_ARGS)
WEFT_KERNEL_ARGS(TransformArgs, GNN_TRANSFORM_ARGS)
WEFT_KERNEL_ARGS(ActivateArgs, GNN_ACTIVATE_ARGS)
WEFT_KERNEL_ARGS(ReadoutArgs, GNN_READOUT_ARGS)
WEFT_KERNEL_ARGS(MetricArgs, GNN_METRIC_ARGS)
}  // namespace weft::gnn
#endif
#endif /* GNN_ARGS_H */
