// Group-by keys, for the kernels that hash and compare them (group_claim): their arguments
// include nkeys, key_table (per key DB_DESC_WORDS: values word, nulls word, type, side) and the
// input's row-id table `ids`. Key columns are either base-table columns (reached through the
// row-id table) or computed columns (DB_SIDE_DIRECT, indexed by position).
#ifndef DB_GROUP_GLSL
#define DB_GROUP_GLSL
#include "db.glsl"

uint db_key_values(uint k) { return globals_u[pc.args.key_table + k * DB_DESC_WORDS]; }
uint db_key_nulls(uint k) { return globals_u[pc.args.key_table + k * DB_DESC_WORDS + 1u]; }
uint db_key_type(uint k) { return globals_u[pc.args.key_table + k * DB_DESC_WORDS + 2u]; }
uint db_key_side(uint k) { return globals_u[pc.args.key_table + k * DB_DESC_WORDS + 3u]; }

// GROUP BY puts NULLs in one group and 0.0 with -0.0.
bool db_keys_equal(uint a, uint b) {
  for (uint k = 0u; k < pc.args.nkeys; ++k) {
    const uint ra = db_tuple_row(pc.args.ids, db_key_side(k), a), rb = db_tuple_row(pc.args.ids, db_key_side(k), b);
    const bool an = db_bit(db_key_nulls(k), ra), bn = db_bit(db_key_nulls(k), rb);
    if (an != bn) return false;
    if (an) continue;
    const uvec2 x = db_value(db_key_values(k), ra), y = db_value(db_key_values(k), rb);
    if (db_key_type(k) == DB_KEY_FLOAT ? db_as_float(x) != db_as_float(y) : x != y) return false;
  }
  return true;
}

uint db_keys_hash(uint row) {
  uint h = 0x01000193u;
  for (uint k = 0u; k < pc.args.nkeys; ++k) {
    uvec2 v = uvec2(0x5bd1e995u, 0x1b873593u);  // NULL
    const uint r = db_tuple_row(pc.args.ids, db_key_side(k), row);
    if (!db_bit(db_key_nulls(k), r)) {
      v = db_value(db_key_values(k), r);
      if (db_key_type(k) == DB_KEY_FLOAT && db_as_float(v) == 0.0) v = uvec2(0u);
    }
    h = db_hash(v, h + k);
  }
  return h;
}
#endif
