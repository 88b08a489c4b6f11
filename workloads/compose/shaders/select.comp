#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter DB -> GNN: the node ids a query selected become the GNN's node mask (1 selected, 0 not).
// R31 = the query output's result reference [perm word (DB_NONE here: no ORDER BY), first row,
// row count, error bits]; the selected ids are output column 0 (int64, row r at words 2r, 2r+1).
// One workgroup: clear the mask, barrier, set the selected words. An id outside 0..nodes-1 is
// not applied but counted. R30 = [rows selected, ids out of range, query error bits, 0].
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_SELECT_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

shared uint bad;

void main() {
  if (weft_halted()) return;
  const uint values = pc.args.ids, mask = pc.args.mask, nodes = pc.args.nodes;
  const uint first = weft_inbox_u(1u), count = weft_inbox_u(2u);
  if (gl_LocalInvocationID.x == 0u) bad = 0u;
  for (uint i = gl_LocalInvocationID.x; i < nodes; i += gl_WorkGroupSize.x) globals_u[mask + i] = 0u;
  memoryBarrierBuffer();
  barrier();
  for (uint k = gl_LocalInvocationID.x; k < count; k += gl_WorkGroupSize.x) {
    const uint row = first + k;
    const uint lo = globals_u[values + 2u * row], hi = globals_u[values + 2u * row + 1u];
    if (hi == 0u && lo < nodes) globals_u[mask + lo] = 1u;
    else atomicAdd(bad, 1u);
  }
  barrier();
  if (gl_LocalInvocationID.x == 0u) {
    weft_outbox_u(0u, count);
    weft_outbox_u(1u, bad);
    weft_outbox_u(2u, weft_inbox_u(3u));
    weft_outbox_u(3u, 0u);
    weft_message_write(float(count), float(bad), bad == 0u ? WEFT_STATUS_OK : WEFT_STATUS_ANOMALY, uvec2(0u));
  }
}
