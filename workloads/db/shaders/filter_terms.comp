#version 450
#extension GL_GOOGLE_include_directive : require
// Fused scan+filter for the common predicate shape, a conjunction of `column <cmp> constant` and
// `column IS [NOT] NULL` terms, without the bytecode interpreter: the interpreter keeps its
// operand stack in a dynamically indexed private array, which a CPU driver (lavapipe) turns
// into per-lane memory traffic (about 0.1 us per instruction and row there). Same outputs as
// filter.comp on a scan: the compacted row ids.
// Term table: DB_TERM_WORDS per term (db_ops.h).
#include "db_args.h"
#define WEFT_ARGS DB_FILTER_TERMS_ARGS
#include "weft.glsl"
#include "db.glsl"

layout(local_size_x = 64) in;

bool term_true(uint t, uint row) {
  const uint base = pc.args.terms + t * DB_TERM_WORDS;
  const uint kind = globals_u[base + 2u];
  const bool is_null = db_bit(globals_u[base + 1u], row);
  if (kind == DB_TERM_IS_NULL) return is_null;
  if (kind == DB_TERM_IS_NOT_NULL) return !is_null;
  if (is_null) return false;
  const uvec2 v = db_value(globals_u[base], row);
  const uvec2 c = uvec2(globals_u[base + 4u], globals_u[base + 5u]);
  int cmp;
  if (kind == DB_TERM_INT) cmp = db_compare_ints(db_as_int(v), db_as_int(c));
  else if (kind == DB_TERM_FLOAT) cmp = db_compare_floats(db_as_float(v), db_as_float(c));
  else if (kind == DB_TERM_INT_VS_FLOAT) cmp = db_compare_int_float(db_as_int(v), db_as_float(c));
  else cmp = -db_compare_int_float(db_as_int(c), db_as_float(v));  // DB_TERM_FLOAT_VS_INT
  return db_cmp_holds(globals_u[base + 3u], cmp);
}

void main() {
  const uint n = pc.args.rows, nterms = pc.args.nterms;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < n; i += stride) {
    bool pass = true;
    for (uint t = 0u; t < nterms && pass; ++t) pass = term_true(t, i);
    if (pass) globals_u[pc.args.out_ids + atomicAdd(globals_u[pc.args.out_count], 1u)] = i;
  }
}
