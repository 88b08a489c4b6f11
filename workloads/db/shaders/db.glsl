// Shared helpers of the database kernels: 64-bit values in Globals (two words, int64 or double
// bits), NULL bitmaps, column descriptors and the query's error word. Needs shaderInt64 and
// shaderFloat64 (the host refuses devices without them with MissingFeature).
#ifndef DB_GLSL
#define DB_GLSL
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#include "weft.glsl"
#include "db_ops.h"

uvec2 db_load2(uint word) { return uvec2(globals_u[word], globals_u[word + 1u]); }
void db_store2(uint word, uvec2 v) {
  globals_u[word] = v.x;
  globals_u[word + 1u] = v.y;
}
// Row `row` of the column whose values `column` references (db_ops.h). Stages that read a far
// column declare it, so the engine runs their far variant (WEFT_FAR_ACCESS); the plain variant
// never sees a far reference.
// Row DB_NONE is the right side of a LEFT JOIN's unmatched row: NULL in every column.
uvec2 db_value(uint column, uint row) {
  if (row == DB_NONE) return uvec2(0u);
#ifdef WEFT_FAR_ACCESS
  if (weft_ref_is_far(column)) {
    const WeftFar f = weft_ref_far_globals(column);
    return uvec2(weft_far_u(f, row, 0u), weft_far_u(f, row, 1u));
  }
#endif
  return db_load2(column + 2u * row);
}
int64_t db_as_int(uvec2 v) { return int64_t(packUint2x32(v)); }
uvec2 db_int_bits(int64_t x) { return unpackUint2x32(uint64_t(x)); }
double db_as_float(uvec2 v) { return packDouble2x32(v); }
uvec2 db_float_bits(double d) { return unpackDouble2x32(d); }

// NULL bit of `row`; row DB_NONE (a LEFT JOIN's missing right row) is NULL in every column. A
// base column's bitmap may be a far segment of 4-byte records (db_ops.h), like its values.
bool db_bit(uint bitmap_word, uint row) {
  if (row == DB_NONE) return true;
  if (bitmap_word == DB_NONE) return false;
#ifdef WEFT_FAR_ACCESS
  if (weft_ref_is_far(bitmap_word)) return ((weft_far_u(weft_ref_far_globals(bitmap_word), row >> 5u, 0u) >> (row & 31u)) & 1u) != 0u;
#endif
  return ((globals_u[bitmap_word + (row >> 5u)] >> (row & 31u)) & 1u) != 0u;
}
// Sets or clears one NULL bit without a prior clear (other rows share the word).
void db_set_bit(uint bitmap_word, uint row, bool on) {
  const uint mask = 1u << (row & 31u);
  if (on) atomicOr(globals_u[bitmap_word + (row >> 5u)], mask);
  else atomicAnd(globals_u[bitmap_word + (row >> 5u)], ~mask);
}

// The row of `side` at position `pos` of the row set whose row-id table is at `ids` (db_ops.h);
// DB_SIDE_DIRECT columns are indexed by the position itself.
uint db_tuple_row(uint ids, uint side, uint pos) {
  if (ids == DB_NONE || side >= DB_MAX_SIDES) return pos;
  const uint list = globals_u[ids + side];
  return list == DB_NONE ? pos : globals_u[list + pos];
}

// Column descriptor d of the table at desc_word.
uint db_desc_values(uint desc_word, uint d) { return globals_u[desc_word + d * DB_DESC_WORDS]; }
uint db_desc_nulls(uint desc_word, uint d) { return globals_u[desc_word + d * DB_DESC_WORDS + 1u]; }
uint db_desc_side(uint desc_word, uint d) { return globals_u[desc_word + d * DB_DESC_WORDS + 2u]; }

void db_error(uint err_word, uint bit) { atomicOr(globals_u[err_word], bit); }

// A count that a stage reads from Globals (DB_NONE: the static count instead).
uint db_count(uint word, uint fallback) { return word == DB_NONE ? fallback : globals_u[word]; }
// A row id through an id list (DB_NONE: the identity).
uint db_row(uint ids_word, uint i) { return ids_word == DB_NONE ? i : globals_u[ids_word + i]; }

// 64-bit key -> 32-bit hash (a splitmix64-style finaliser on the two halves).
uint db_hash(uvec2 v, uint seed) {
  uint h = v.x * 0x9E3779B1u ^ (v.y + seed) * 0x85EBCA77u;
  h ^= h >> 15u;
  h *= 0x2C1B3C6Du;
  h ^= h >> 12u;
  h *= 0x297A2D39u;
  h ^= h >> 15u;
  return h;
}

// Three-way comparisons of non-NULL values: int64, double, and an int64 with a double compared
// exactly, as SQLite compares an INTEGER with a REAL (in double, 2^53 + 1 would equal 2^53).
// NaN never reaches them: arithmetic turns it into NULL.
int db_compare_ints(int64_t x, int64_t y) { return x < y ? -1 : (x > y ? 1 : 0); }
int db_compare_floats(double x, double y) { return x < y ? -1 : (x > y ? 1 : 0); }
int db_compare_int_float(int64_t i, double r) {
  if (r >= 9223372036854775808.0lf) return -1;  // beyond every int64 (+inf included)
  if (r < -9223372036854775808.0lf) return 1;
  const double whole = trunc(r);  // |whole| < 2^63: exact as an int64
  const int c = db_compare_ints(i, int64_t(whole));
  return c != 0 ? c : db_compare_floats(whole, r);  // equal integer parts: r's fraction decides
}
// Whether a three-way comparison satisfies the DB_CMP_* operator `op`.
bool db_cmp_holds(uint op, int cmp) {
  return op == DB_CMP_EQ ? cmp == 0 : op == DB_CMP_NE ? cmp != 0 : op == DB_CMP_LT ? cmp < 0
       : op == DB_CMP_LE ? cmp <= 0 : op == DB_CMP_GT ? cmp > 0 : cmp >= 0;
}

// Three-way comparison of two typed values with NULL smallest (SQLite's order).
int db_compare(uvec2 a, bool an, uvec2 b, bool bn, uint type) {
  if (an || bn) return an == bn ? 0 : (an ? -1 : 1);
  return type == DB_KEY_FLOAT ? db_compare_floats(db_as_float(a), db_as_float(b)) : db_compare_ints(db_as_int(a), db_as_int(b));
}
#endif
