#version 450
#extension GL_GOOGLE_include_directive : require
// Readout (mean pooling): workgroup f writes m[f] = mean_i h[i][f] into this layer's outbox R30,
// the message the next instance sees as its R31. Tree reduction, no subgroup assumptions.
#include "gnn_args.h"
#define WEFT_ARGS GNN_READOUT_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;
shared float part[64];

void main() {
  const uint h = pc.args.h, nodes = pc.args.nodes, F = pc.args.features;
  const uint f = gl_WorkGroupID.x, t = gl_LocalInvocationIndex;
  float s = 0.0;
  for (uint i = t; i < nodes; i += 64u) s += globals_f[h + i * F + f];
  part[t] = s;
  barrier();
  for (uint k = 32u; k > 0u; k >>= 1) {
    if (t < k) part[t] += part[t + k];
    barrier();
  }
  if (t == 0u && f < F) weft_outbox_f(f, part[0] / float(nodes));
}
