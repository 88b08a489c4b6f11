// Shared by the join kernels: the key of a row (int64 or Text code; NULL never matches) and the
// output of one joined pair, counted even past the capacity so the host can size a rebuild.
#ifndef DB_JOIN_GLSL
#define DB_JOIN_GLSL
#include "db.glsl"

// push: 0 probe count word, 1 probe ids, 2 build count word, 3 build ids, 4 probe key values,
// 5 probe key nulls, 6 build key values, 7 build key nulls, 8 out count word, 9 out ids0,
// 10 out ids1, 11 capacity, 12 error word, 13 hash heads, 14 hash mask, 15 hash next
bool db_join_key(uint values, uint nulls, uint row, out uvec2 key) {
  key = db_load2(values + 2u * row);
  return !db_bit(nulls, row);
}
void db_join_emit(uint probe_row, uint build_row) {
  const uint k = atomicAdd(globals_u[pc.user[8]], 1u);
  if (k < pc.user[11]) {
    globals_u[pc.user[9] + k] = probe_row;
    globals_u[pc.user[10] + k] = build_row;
  } else {
    db_error(pc.user[12], DB_ERROR_JOIN_CAPACITY);
  }
}
#endif
