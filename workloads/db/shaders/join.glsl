// Shared by the join kernels: the key of a row (int64 or Text code; NULL never matches) and, for
// the kernels that emit pairs (join_nested, join_probe: they define DB_JOIN_EMIT and their
// arguments include out_count, out_ids0, out_ids1, capacity and err), the output of one joined
// pair, counted even past the capacity so the host can size a rebuild.
#ifndef DB_JOIN_GLSL
#define DB_JOIN_GLSL
#include "db.glsl"

bool db_join_key(uint values, uint nulls, uint row, out uvec2 key) {
  key = db_value(values, row);
  return !db_bit(nulls, row);
}
#ifdef DB_JOIN_EMIT
void db_join_emit(uint probe_row, uint build_row) {
  const uint k = atomicAdd(globals_u[pc.args.out_count], 1u);
  if (k < pc.args.capacity) {
    globals_u[pc.args.out_ids0 + k] = probe_row;
    globals_u[pc.args.out_ids1 + k] = build_row;
  } else {
    db_error(pc.args.err, DB_ERROR_JOIN_CAPACITY);
  }
}
#endif
#endif
