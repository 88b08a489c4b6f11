// Shared by the join kernels: the key of a row (int64 or Text code; NULL never matches) and, for
// the kernels that emit joined rows (join_nested, join_probe: they define DB_JOIN_EMIT and their
// arguments include probe_ids, out_count, out_ids, build_side, capacity and err), the output of
// one joined tuple, counted even past the capacity so the host can size a rebuild.
//
// A join step joins side `build_side` to tuples of the sides before it: the probe rows are the
// positions of a row set (row-id table `probe_ids`), its key a column of side `probe_side` read
// through that table; the output tuple copies the probe tuple's rows and adds the build row.
#ifndef DB_JOIN_GLSL
#define DB_JOIN_GLSL
#include "db.glsl"

bool db_join_key(uint values, uint nulls, uint row, out uvec2 key) {
  key = db_value(values, row);
  return !db_bit(nulls, row);
}
#ifdef DB_JOIN_EMIT
// The probe row set's size: its count word, at most its lists' capacity (a join step's output
// count is clamped already, count_clamp.comp; this bounds the reads of the lists on its own).
uint db_join_probe_count() { return min(globals_u[pc.args.probe_count], pc.args.probe_limit); }
// The key of probe position p (its row of side probe_side, through the probe's row-id table).
bool db_join_probe_key(uint p, out uvec2 key) {
  return db_join_key(pc.args.probe_values, pc.args.probe_nulls, db_tuple_row(pc.args.probe_ids, pc.args.probe_side, p), key);
}
// Copies the probe tuple's row of side s (when the tuple has one) into output position k.
void db_join_copy_side(uint s, uint k, uint probe_pos) {
  if (s < pc.args.build_side) globals_u[globals_u[pc.args.out_ids + s] + k] = db_tuple_row(pc.args.probe_ids, s, probe_pos);
}
void db_join_emit(uint probe_pos, uint build_row) {
  const uint k = atomicAdd(globals_u[pc.args.out_count], 1u);
  if (k < pc.args.capacity) {
    // Unrolled, not a loop: llvmpipe counts every loop iteration of an invocation against its
    // cap, and the kernels' step counts (loop_budget) count their own loops only. The build side
    // is at most DB_MAX_SIDES - 1, so the probe sides are 0 .. DB_MAX_SIDES - 2.
    db_join_copy_side(0u, k, probe_pos);
    db_join_copy_side(1u, k, probe_pos);
    db_join_copy_side(2u, k, probe_pos);
    db_join_copy_side(3u, k, probe_pos);
    db_join_copy_side(4u, k, probe_pos);
    db_join_copy_side(5u, k, probe_pos);
    db_join_copy_side(6u, k, probe_pos);
    globals_u[globals_u[pc.args.out_ids + pc.args.build_side] + k] = build_row;
  } else {
    db_error(pc.args.err, DB_ERROR_JOIN_CAPACITY);
  }
}
#endif
#endif
