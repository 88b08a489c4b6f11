#version 450
#extension GL_GOOGLE_include_directive : require
// Feature transform, one invocation per (node, output feature):
//   z[i][o] = b[o] + sum_f (h[i][f] + sum_t agg_t[i][f]) * W[f][o]
// The self term h keeps a node's own features next to its neighbours' (GIN with eps = 0); the
// edge types' aggregates sum here, so their aggregation stages stay independent of each other.
// (A workgroup-per-node variant staging the input row in shared memory was slower on lavapipe,
// where barriers are costly; the row reads here hit cache on GPUs.)
#include "gnn_args.h"
#define WEFT_ARGS GNN_TRANSFORM_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint h = pc.args.h, agg = pc.args.agg, types = pc.args.types, stride = pc.args.stride;
  const uint W = pc.args.w, b = pc.args.b, z = pc.args.z, nodes = pc.args.nodes, F = pc.args.features;
  const uint count = nodes * F;
  for (uint k = gl_GlobalInvocationID.x; k < count; k += gl_NumWorkGroups.x * 64u) {
    const uint i = k / F, o = k - i * F;
    float acc = heap_f[b + o];
    for (uint f = 0u; f < F; ++f) {
      float in_f = globals_f[h + i * F + f];
      for (uint t = 0u; t < types; ++t) in_f += globals_f[agg + t * stride + i * F + f];
      acc += in_f * heap_f[W + f * F + o];
    }
    globals_f[z + k] = acc;
  }
}
