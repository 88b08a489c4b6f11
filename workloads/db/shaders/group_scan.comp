#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 4 (one workgroup): exclusive prefix sum of the group sizes -> offsets and fill
// cursors; sizes the reduce stage's indirect dispatch to the number of groups found.
#include "db_args.h"
#define WEFT_ARGS DB_GROUP_SCAN_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 256) in;

shared uint partial[256];

void main() {
  const uint G = min(globals_u[pc.args.groups], pc.args.capacity), t = gl_LocalInvocationID.x;
  const uint chunk = (G + 255u) / 256u, begin = min(t * chunk, G), end = min(begin + chunk, G);
  uint sum = 0u;
  for (uint g = begin; g < end; ++g) sum += globals_u[pc.args.sizes + g];
  partial[t] = sum;
  barrier();
  for (uint off = 1u; off < 256u; off <<= 1u) {  // Hillis-Steele inclusive scan
    const uint v = t >= off ? partial[t - off] : 0u;
    barrier();
    partial[t] += v;
    barrier();
  }
  uint run = partial[t] - sum;
  for (uint g = begin; g < end; ++g) {
    globals_u[pc.args.offsets + g] = run;
    globals_u[pc.args.cursor + g] = run;
    run += globals_u[pc.args.sizes + g];
  }
  if (t == 0u) {
    globals_u[pc.args.groups_kept] = G;
    weft_set_control_word(pc.args.reduce_slot, min(G, 65535u));
  }
}
