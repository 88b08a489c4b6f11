// The expression interpreter: runs bytecode (db_ops.h) stored in Globals for one row. Rows of
// the base tables' sides come through the stage's row-id table (db_tuple_row); DB_SIDE_DIRECT
// (computed columns) is indexed by the row's position. Types are fixed by the planner, so each op knows
// how to read its 64-bit operands. SQL semantics: NULL propagates through arithmetic and
// comparisons, AND/OR use three-valued logic, x/0 and x%0 are NULL, a NaN float result is NULL
// (SQLite's rule), Int vs Float compares exactly, integer overflow sets
// DB_ERROR_OVERFLOW (the query then fails, as SUM overflow does in SQLite).
#ifndef DB_EVAL_GLSL
#define DB_EVAL_GLSL
#include "db.glsl"

const int64_t DB_INT64_MIN = int64_t(0x8000000000000000ul);

// Truncating division on magnitudes (C and SQLite semantics, whatever the SPIR-V rounding).
int64_t db_div_trunc(int64_t x, int64_t y) {
  const uint64_t ax = x < 0 ? uint64_t(0) - uint64_t(x) : uint64_t(x);
  const uint64_t ay = y < 0 ? uint64_t(0) - uint64_t(y) : uint64_t(y);
  const uint64_t q = ax / ay;
  return ((x < 0) != (y < 0)) ? -int64_t(q) : int64_t(q);
}

// Whether x is among the n sorted values at word `at` (DB_OP_IN_VALUES): a binary search, about
// log2(n) steps, far below the driver's loop cap.
bool db_in_values(uint at, uint n, uvec2 x, bool is_float) {
  uint lo = 0u, hi = n;
  while (lo < hi) {
    const uint mid = lo + (hi - lo) / 2u;
    const uvec2 v = uvec2(globals_u[at + 2u * mid], globals_u[at + 2u * mid + 1u]);
    const int c = is_float ? db_compare_floats(db_as_float(v), db_as_float(x)) : db_compare_ints(db_as_int(v), db_as_int(x));
    if (c == 0) return true;
    if (c < 0) lo = mid + 1u;
    else hi = mid;
  }
  return false;
}

// The result of the entry for Text code x among the n entries at word `at` (DB_OP_MAP), sorted
// by code: a binary search; false when x has none (the function's value is NULL).
bool db_map_lookup(uint at, uint n, int64_t x, out uvec2 result) {
  uint lo = 0u, hi = n;
  while (lo < hi) {
    const uint mid = lo + (hi - lo) / 2u;
    const uint w = at + 4u * mid;
    const int c = db_compare_ints(db_as_int(uvec2(globals_u[w], globals_u[w + 1u])), x);
    if (c == 0) {
      result = uvec2(globals_u[w + 2u], globals_u[w + 3u]);
      return true;
    }
    if (c < 0) lo = mid + 1u;
    else hi = mid;
  }
  result = uvec2(0u);
  return false;
}

// Evaluates `ninstr` instructions at word `code` for position `pos` of the row set whose
// row-id table is at `ids`.
void db_eval(uint code, uint ninstr, uint desc_word, uint err_word, uint ids, uint pos,
             out uvec2 result, out bool result_null) {
  uvec2 sv[DB_STACK];
  bool sn[DB_STACK];
  int sp = 0;
  for (uint k = 0u; k < ninstr; ++k) {
    const uint w = code + k * DB_INSTR_WORDS;
    const uint op = globals_u[w], a = globals_u[w + 1u], b = globals_u[w + 2u], c = globals_u[w + 3u];
    if (op == DB_OP_CONST || op == DB_OP_LOAD) {
      if (sp >= int(DB_STACK)) {
        db_error(err_word, DB_ERROR_STACK);
        result_null = true;
        return;
      }
      if (op == DB_OP_CONST) {
        sv[sp] = uvec2(a, b);
        sn[sp] = c != 0u;
      } else {
        const uint row = db_tuple_row(ids, db_desc_side(desc_word, a), pos);
        sv[sp] = db_value(db_desc_values(desc_word, a), row);
        sn[sp] = db_bit(db_desc_nulls(desc_word, a), row);
      }
      ++sp;
      continue;
    }
    if (op == DB_OP_TOFLOAT) {
      if (!sn[sp - 1]) sv[sp - 1] = db_float_bits(double(db_as_int(sv[sp - 1])));
      continue;
    }
    if (op == DB_OP_NEG_I) {
      const int64_t x = db_as_int(sv[sp - 1]);
      if (!sn[sp - 1] && x == DB_INT64_MIN) db_error(err_word, DB_ERROR_OVERFLOW);
      sv[sp - 1] = db_int_bits(-x);
      continue;
    }
    if (op == DB_OP_TOINT) {
      const double x = db_as_float(sv[sp - 1]);
      const int64_t i = x >= 9223372036854775808.0lf ? int64_t(0x7FFFFFFFFFFFFFFFul)
                      : x <= -9223372036854775808.0lf ? DB_INT64_MIN : int64_t(x);
      sv[sp - 1] = db_int_bits(i);
      continue;
    }
    if (op == DB_OP_ABS_I) {
      const int64_t x = db_as_int(sv[sp - 1]);
      if (!sn[sp - 1] && x == DB_INT64_MIN) db_error(err_word, DB_ERROR_OVERFLOW);
      sv[sp - 1] = db_int_bits(x < 0l ? -x : x);
      continue;
    }
    if (op == DB_OP_ABS_F) {
      const double x = db_as_float(sv[sp - 1]);
      sv[sp - 1] = db_float_bits(x < 0.0 ? -x : x);
      continue;
    }
    if (op == DB_OP_ROUND_F) {
      const double x = db_as_float(sv[sp - 1]);
      const bool whole = x < -4503599627370496.0lf || x > 4503599627370496.0lf;  // beyond 2^52: no fraction
      sv[sp - 1] = db_float_bits(whole ? x : double(int64_t(x + (x < 0.0 ? -0.5 : 0.5))));
      continue;
    }
    if (op == DB_OP_CHOOSE) {  // otherwise at sp-3, condition at sp-2, value at sp-1
      if (!sn[sp - 2] && db_as_int(sv[sp - 2]) != 0l) {
        sv[sp - 3] = sv[sp - 1];
        sn[sp - 3] = sn[sp - 1];
      }
      sp -= 2;
      continue;
    }
    if (op == DB_OP_IN_SET) {  // LIKE: the code's bit in the matching set (db_ops.h)
      const int64_t x = db_as_int(sv[sp - 1]);
      const bool in_set = (x & 1l) == 0l && x >= 0l && uint64_t(x >> 1) < uint64_t(b) &&
                          ((globals_u[code + a + uint(x >> 6)] >> uint((x >> 1) & 31l)) & 1u) != 0u;
      sv[sp - 1] = db_int_bits(in_set != (c != 0u) ? 1l : 0l);
      continue;
    }
    if (op == DB_OP_IN_VALUES) {  // IN (SELECT ...): SQLite's three-valued rule (db_ops.h)
      const bool negated = (c & DB_IN_NEGATED) != 0u;
      bool is_null = false, holds = false;
      if ((c & DB_IN_ROWS) == 0u) holds = false;
      else if (sn[sp - 1]) is_null = true;
      else if (db_in_values(code + a, b, sv[sp - 1], (c & DB_IN_FLOAT) != 0u)) holds = true;
      else is_null = (c & DB_IN_ANY_NULL) != 0u;
      sv[sp - 1] = db_int_bits(holds != negated ? 1l : 0l);
      sn[sp - 1] = is_null;
      continue;
    }
    if (op == DB_OP_MAP) {  // a text function: the code's entry, NULL when it has none
      uvec2 mapped = uvec2(0u);
      const bool found = !sn[sp - 1] && db_map_lookup(code + a, b, db_as_int(sv[sp - 1]), mapped);
      sv[sp - 1] = mapped;
      sn[sp - 1] = !found;
      continue;
    }
    if (op == DB_OP_NEG_F) {
      sv[sp - 1] = db_float_bits(-db_as_float(sv[sp - 1]));
      continue;
    }
    if (op == DB_OP_NOT) {
      sv[sp - 1] = db_int_bits(db_as_int(sv[sp - 1]) == 0l ? 1l : 0l);
      continue;
    }
    if (op == DB_OP_ISNULL) {
      const bool is_null = sn[sp - 1];
      sv[sp - 1] = db_int_bits((is_null != (a != 0u)) ? 1l : 0l);
      sn[sp - 1] = false;
      continue;
    }
    // binary ops: left at sp-2, right at sp-1, result at sp-2
    const uvec2 lv = sv[sp - 2], rv = sv[sp - 1];
    const bool ln = sn[sp - 2], rn = sn[sp - 1];
    --sp;
    uvec2 res = uvec2(0u);
    bool rnull = ln || rn;
    if (op == DB_OP_AND || op == DB_OP_OR) {
      const bool lt = db_as_int(lv) != 0l, rt = db_as_int(rv) != 0l;
      if (op == DB_OP_AND) {
        if ((!ln && !lt) || (!rn && !rt)) rnull = false, res = db_int_bits(0l);
        else res = db_int_bits(1l);
      } else {
        if ((!ln && lt) || (!rn && rt)) rnull = false, res = db_int_bits(1l);
        else res = db_int_bits(0l);
      }
    } else if (!rnull) {
      if (op == DB_OP_CMP_I || op == DB_OP_CMP_F || op == DB_OP_CMP_IF) {
        int cmp;
        if (op == DB_OP_CMP_I) cmp = db_compare_ints(db_as_int(lv), db_as_int(rv));
        else if (op == DB_OP_CMP_F) cmp = db_compare_floats(db_as_float(lv), db_as_float(rv));
        else if (b == 0u) cmp = db_compare_int_float(db_as_int(lv), db_as_float(rv));
        else cmp = -db_compare_int_float(db_as_int(rv), db_as_float(lv));
        res = db_int_bits(db_cmp_holds(a, cmp) ? 1l : 0l);
      } else if (op == DB_OP_ARITH_I) {
        const int64_t x = db_as_int(lv), y = db_as_int(rv);
        int64_t r = 0l;
        bool overflow = false;
        if (a == DB_ARITH_ADD) {
          r = x + y;
          overflow = ((x ^ r) & (y ^ r)) < 0l;
        } else if (a == DB_ARITH_SUB) {
          r = x - y;
          overflow = ((x ^ y) & (x ^ r)) < 0l;
        } else if (a == DB_ARITH_MUL) {
          r = x * y;
          overflow = (x == -1l && y == DB_INT64_MIN) || (y == -1l && x == DB_INT64_MIN) ||
                     (x != 0l && y != -1l && y != 0l && db_div_trunc(r, y) != x) ||
                     (x != 0l && y == -1l && r != -x);
        } else if (y == 0l) {
          rnull = true;  // x / 0 and x % 0 are NULL
        } else if (a == DB_ARITH_DIV) {
          overflow = x == DB_INT64_MIN && y == -1l;
          r = overflow ? 0l : db_div_trunc(x, y);
        } else {
          r = y == -1l ? 0l : x - db_div_trunc(x, y) * y;
        }
        if (overflow) db_error(err_word, DB_ERROR_OVERFLOW);
        res = db_int_bits(r);
      } else {  // DB_OP_ARITH_F
        const double x = db_as_float(lv), y = db_as_float(rv);
        double r = 0.0;
        if (a == DB_ARITH_ADD) r = x + y;
        else if (a == DB_ARITH_SUB) r = x - y;
        else if (a == DB_ARITH_MUL) r = x * y;
        else if (y == 0.0) rnull = true;
        else r = x / y;
        if (isnan(r)) rnull = true;  // inf - inf, 0 * inf, inf / inf: NULL, as in SQLite
        res = db_float_bits(rnull ? 0.0 : r);
      }
    }
    sv[sp - 1] = res;
    sn[sp - 1] = rnull;
  }
  result = sv[0];
  result_null = sn[0];
}
#endif
