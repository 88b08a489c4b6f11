#version 450
#extension GL_GOOGLE_include_directive : require
// Group-by, pass 6: one workgroup per group (dispatched indirectly with the group count the
// scan found, grid-striding past 65535) reduces every aggregate over the group's members with a
// shared-memory tree, then writes the group's key values (from its representative row) and
// aggregate results. Integer SUM is exact int64 with overflow detection (an error, as in
// SQLite); SUM/AVG of floats and AVG of ints add exactly and round once (exact_sum.glsl), so
// they do not depend on the order of the members.
//
// Aggregate table: 8 words each (fn, arg values, arg nulls, out values, out nulls, arg side);
// key table: 8 words each (src values, src nulls, out values, out nulls, src side). Columns of a
// table's side are base-table columns reached through the input's row-id table; DB_SIDE_DIRECT
// computed columns are indexed by input position.
#include "db_args.h"
#define WEFT_ARGS DB_GROUP_REDUCE_ARGS
#include "weft.glsl"
#include "db.glsl"
#include "exact_sum.glsl"

layout(local_size_x = 64) in;

shared int64_t sh_i[64];
shared i64vec4 sh_sum[64];
shared uvec2 sh_b[64];
shared uint sh_c[64];
shared uint sh_o[64];
// Float sums (exact_sum.glsl): the group's largest exponent and its infinite terms.
shared uint sh_anchor, sh_pos_inf, sh_neg_inf;

bool add_overflows(int64_t x, int64_t y, out int64_t r) {
  r = x + y;
  return ((x ^ r) & (y ^ r)) < 0l;
}

bool better(uint fn, uvec2 cand, uvec2 cur) {
  if (fn == DB_AGG_MIN_I) return db_as_int(cand) < db_as_int(cur);
  if (fn == DB_AGG_MAX_I) return db_as_int(cand) > db_as_int(cur);
  if (fn == DB_AGG_MIN_F) return db_as_float(cand) < db_as_float(cur);
  return db_as_float(cand) > db_as_float(cur);
}

bool float_sum(uint fn) { return fn == DB_AGG_SUM_F || fn == DB_AGG_AVG_F || fn == DB_AGG_AVG_I; }
double sum_term(uint fn, uvec2 v) { return fn == DB_AGG_AVG_I ? double(db_as_int(v)) : db_as_float(v); }

// First pass of a float sum: the largest exponent of the group's finite terms and the count of
// each infinity, into the shared words (max and sums: the same whatever the order).
void float_sum_anchor(uint fn, uint vals, uint nulls, uint side, uint begin, uint size, inout uint steps) {
  uint anchor = 0u, pos_inf = 0u, neg_inf = 0u;
  for (uint m = gl_LocalInvocationID.x; m < size; m += 64u) {
    if (++steps > pc.args.loop_budget) {
      db_error(pc.args.err, DB_ERROR_LOOP_LIMIT);
      break;
    }
    const uint row = db_tuple_row(pc.args.ids, side, db_row(pc.args.members, begin + m));
    if (db_bit(nulls, row)) continue;
    const double x = sum_term(fn, db_value(vals, row));
    if (isinf(x)) {
      if (x > 0.0) ++pos_inf;
      else ++neg_inf;
    } else {
      anchor = max(anchor, db_sum_exponent(x));
    }
  }
  atomicMax(sh_anchor, anchor);
  atomicAdd(sh_pos_inf, pos_inf);
  atomicAdd(sh_neg_inf, neg_inf);
  barrier();
}

// A float sum's total: NULL when it holds both infinities (NaN, as SQLite makes it).
bool float_sum_total(out double total) {
  if (sh_pos_inf > 0u && sh_neg_inf > 0u) return false;
  const double inf = packDouble2x32(uvec2(0u, 0x7FF00000u));
  total = sh_pos_inf > 0u ? inf : sh_neg_inf > 0u ? -inf : db_sum_round(sh_sum[0], sh_anchor);
  return true;
}

void main() {
  const uint G = globals_u[pc.args.groups_kept], t = gl_LocalInvocationID.x;
  const uint members = pc.args.members, naggs = pc.args.naggs, aggs = pc.args.agg_table;
  const uint nkeys = pc.args.nkeys, keys = pc.args.keycopy_table;
  // Every loop iteration of this invocation, counted against the budget: past it the driver
  // may stop the loops silently (llvmpipe after 65535), so the reduction reports instead.
  uint steps = 0u;
  for (uint g = gl_WorkGroupID.x; g < G; g += gl_NumWorkGroups.x) {
    const uint begin = globals_u[pc.args.offsets + g], size = globals_u[pc.args.sizes + g];
    for (uint a = 0u; a < naggs; ++a) {
      steps += 8u;  // this loop, the tree's six steps and the key copy
      const uint fn = globals_u[aggs + 8u * a], vals = globals_u[aggs + 8u * a + 1u], nulls = globals_u[aggs + 8u * a + 2u];
      const uint side = globals_u[aggs + 8u * a + 5u];
      int64_t si = 0l;
      i64vec4 sum = i64vec4(0l);
      uvec2 best = uvec2(0u);
      uint cnt = 0u, ovf = 0u;
      // COUNT(*) is the group's size: no pass over the members.
      if (fn == DB_AGG_COUNT_STAR) cnt = t == 0u ? size : 0u;
      if (t == 0u) sh_anchor = sh_pos_inf = sh_neg_inf = 0u;
      barrier();
      if (float_sum(fn)) float_sum_anchor(fn, vals, nulls, side, begin, size, steps);
      for (uint m = t; fn != DB_AGG_COUNT_STAR && m < size; m += 64u) {
        if (++steps > pc.args.loop_budget) {
          db_error(pc.args.err, DB_ERROR_LOOP_LIMIT);
          break;
        }
        const uint row = db_tuple_row(pc.args.ids, side, db_row(members, begin + m));
        if (db_bit(nulls, row)) continue;
        // COUNT reads no value: a COUNT(DISTINCT) mark column is a NULL bitmap alone.
        const uvec2 v = fn == DB_AGG_COUNT ? uvec2(0u) : db_value(vals, row);
        if (fn == DB_AGG_SUM_I) {
          int64_t r;
          if (add_overflows(si, db_as_int(v), r)) ovf = 1u;
          si = r;
        } else if (float_sum(fn)) {
          const double x = sum_term(fn, v);
          if (!isinf(x)) db_sum_add(sum, x, sh_anchor);
        } else if (fn != DB_AGG_COUNT) {
          if (cnt == 0u || better(fn, v, best)) best = v;
        }
        ++cnt;
      }
      sh_i[t] = si;
      sh_sum[t] = sum;
      sh_b[t] = best;
      sh_c[t] = cnt;
      sh_o[t] = ovf;
      barrier();
      for (uint s = 32u; s > 0u; s >>= 1u) {
        if (t < s) {
          const uint u = t + s;
          if (sh_c[u] > 0u) {
            if (fn == DB_AGG_SUM_I) {
              int64_t r;
              if (add_overflows(sh_i[t], sh_i[u], r)) sh_o[t] = 1u;
              sh_i[t] = r;
            }
            sh_sum[t] += sh_sum[u];
            if (fn >= DB_AGG_MIN_I && fn <= DB_AGG_MAX_F && (sh_c[t] == 0u || better(fn, sh_b[u], sh_b[t]))) sh_b[t] = sh_b[u];
          }
          sh_c[t] += sh_c[u];
          sh_o[t] |= sh_o[u];
        }
        barrier();
      }
      if (t == 0u) {
        const uint c = sh_c[0];
        uvec2 out_v = uvec2(0u);
        bool out_null = c == 0u;
        if (fn == DB_AGG_COUNT_STAR || fn == DB_AGG_COUNT) {
          out_v = db_int_bits(int64_t(c));
          out_null = false;
        } else if (fn == DB_AGG_SUM_I) {
          out_v = db_int_bits(sh_i[0]);
          if (sh_o[0] != 0u) db_error(pc.args.err, DB_ERROR_OVERFLOW);
        } else if (float_sum(fn)) {
          double total = 0.0;
          out_null = out_null || !float_sum_total(total);
          out_v = db_float_bits(fn == DB_AGG_SUM_F || c == 0u ? total : total / double(c));
        } else {
          out_v = sh_b[0];
        }
        db_store2(globals_u[aggs + 8u * a + 3u] + 2u * g, out_null ? uvec2(0u) : out_v);
        db_set_bit(globals_u[aggs + 8u * a + 4u], g, out_null);
      }
      barrier();
    }
    if (t == 0u) {
      const uint rep = globals_u[pc.args.rep + g];
      for (uint k = 0u; k < nkeys; ++k) {
        const uint src = globals_u[keys + 8u * k], src_nulls = globals_u[keys + 8u * k + 1u];
        const uint row = db_tuple_row(pc.args.ids, globals_u[keys + 8u * k + 4u], rep);
        const bool n = db_bit(src_nulls, row);
        db_store2(globals_u[keys + 8u * k + 2u] + 2u * g, n ? uvec2(0u) : db_value(src, row));
        db_set_bit(globals_u[keys + 8u * k + 3u], g, n);
      }
    }
  }
}
