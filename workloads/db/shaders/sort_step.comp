#version 450
#extension GL_GOOGLE_include_directive : require
// ORDER BY: one compare-exchange pass (k, j) of a bitonic sort of the permutation `perm` over the
// output rows. Rows are compared key by key (NULLs first, DESC reverses); positions >= n are
// padding that sorts last. Only the first m = nextpow2(n) positions take part, so passes with
// k > m return at once and the work follows the row count found on the device. Key table: 8
// words per key (values, nulls, type, desc).
#include "db_args.h"
#define WEFT_ARGS DB_SORT_STEP_ARGS
#include "weft.glsl"
#include "db.glsl"

WEFT_STREAMING_KERNEL;  // shaped by the engine per device (engine/kernel_shape.h)

int compare_rows(uint a, uint b, uint n) {
  if (a >= n || b >= n) return a >= n ? (b >= n ? 0 : 1) : -1;
  for (uint k = 0u; k < pc.args.nkeys; ++k) {
    const uint w = pc.args.key_table + 8u * k;
    const uint vals = globals_u[w], nulls = globals_u[w + 1u];
    int c = db_compare(db_load2(vals + 2u * a), db_bit(nulls, a), db_load2(vals + 2u * b), db_bit(nulls, b), globals_u[w + 2u]);
    if (globals_u[w + 3u] != 0u) c = -c;
    if (c != 0) return c;
  }
  return 0;
}

void main() {
  const uint n = globals_u[pc.args.count], perm = pc.args.perm, k = pc.args.k, j = pc.args.j;
  uint m = 1u;
  while (m < n) m <<= 1u;
  if (n < 2u || k > m) return;
  WEFT_FOR_EACH_UNIT(t, m / 2u) {
    const uint i0 = 2u * j * (t / j) + (t % j), i1 = i0 + j;
    const bool ascending = (i0 & k) == 0u;
    const uint a = globals_u[perm + i0], b = globals_u[perm + i1];
    const int c = compare_rows(a, b, n);
    if (ascending ? c > 0 : c < 0) {
      globals_u[perm + i0] = b;
      globals_u[perm + i1] = a;
    }
  }
}
