// The database workload on the device against SQLite on the same seeded tables: a fused
// scan+filter+group-by aggregate, a join under each strategy the cardinality rule can pick,
// ORDER BY + LIMIT, the COUNT = 0 anomaly rule, a comma join and IN / NOT IN subqueries (run
// first, each its own submission). Small tables (a few thousand rows).
//
// Tolerance: Int and Text values exact, NULLs exact, row multisets exact (in order with ORDER
// BY); Float SUM/AVG within 1e-9 relative: the device rounds the exact sum once
// (shaders/exact_sum.glsl), SQLite rounds after every term in row order (n = 2000 terms: ~n * eps
// = 4e-13 relative to the sum of magnitudes, and these sums are not near cancellation).
#include "conformance.h"
#include "db.h"

namespace weft::conformance {

namespace {

using namespace weft::db;

constexpr double kRel = 1e-9;

struct Fixture {
  Database db = random_database(2000, 120, 3, 11);
  Sqlite lite{db};
};

Fixture& fixture() {
  static Fixture f;
  return f;
}

// Runs `sql` on the device and in SQLite; fails with the first difference.
Result agree(Device& dev, const std::string& sql, QueryOptions opt, QueryStats* stats = nullptr) {
  if (!dev.info().shader_int64 || !dev.info().shader_float64) return Result::skip("device lacks shaderInt64/shaderFloat64");
  Fixture& f = fixture();
  const db::Plan plan = prepare_sql(sql, f.db, dev);
  DeviceQuery q(dev, f.db, plan, opt);
  const ResultSet rs = q.run();
  const std::string diff = compare_results(rs, f.lite.query(sql), !plan.order.empty(), kRel);
  if (!diff.empty()) return Result::fail(sql + ": " + diff);
  if (stats) *stats = q.stats();
  return Result::pass(std::to_string(rs.rows.size()) + " rows agree with SQLite");
}

Result scan_filter_aggregate(Device& d) {
  return agree(d,
               "SELECT region, COUNT(*), COUNT(amount), SUM(qty), SUM(amount), MIN(amount), MAX(amount), AVG(amount) "
               "FROM orders WHERE qty > 5 AND (amount < 800 OR region IS NULL) GROUP BY region",
               {});
}

Result join(Device& d, uint32_t threshold, uint32_t want) {
  QueryOptions o;
  o.join_threshold = threshold;
  QueryStats st;
  Result r = agree(d,
                   "SELECT c.tier, o.region, COUNT(*), SUM(o.qty * 2) FROM orders o JOIN customers c ON o.customer = c.id "
                   "WHERE c.id % 3 != 0 GROUP BY c.tier, o.region",
                   o, &st);
  if (r.outcome != Outcome::Pass) return r;
  if (st.join_strategy != want)
    return Result::fail("join strategy " + std::to_string(st.join_strategy) + ", expected " + std::to_string(want) +
                        " for " + std::to_string(st.join_build_rows) + " build rows and threshold " + std::to_string(threshold));
  return Result::pass(r.detail + "; " + (want == 1 ? "nested loop" : "hash join") + " as the rule chose");
}

Result order_limit(Device& d) {
  return agree(d, "SELECT id, amount, region FROM orders ORDER BY region DESC, amount, id LIMIT 25 OFFSET 10", {});
}

Result count_zero_rule(Device& d) {
  QueryStats st;
  Result r = agree(d, "SELECT COUNT(*), SUM(amount) FROM orders WHERE qty > 99", {}, &st);
  if (r.outcome != Outcome::Pass) return r;
  if (st.aggregate_status != WEFT_STATUS_ANOMALY || st.aggregate_rows_in != 0)
    return Result::fail("aggregate over no rows: status " + std::to_string(st.aggregate_status) + ", expected anomaly");
  Result r2 = agree(d, "SELECT id FROM orders WHERE qty > 99", {}, &st);
  if (r2.outcome != Outcome::Pass) return r2;
  if (st.output_status != WEFT_STATUS_ANOMALY) return Result::fail("empty result did not raise the anomaly status");
  return Result::pass("COUNT = 0 raised the anomaly status on the aggregate and the empty output");
}

Result comma_join(Device& d) {
  return agree(d,
               "SELECT c.tier, COUNT(*), SUM(o.qty) FROM orders o, customers c WHERE o.amount > 100 AND c.id = o.customer "
               "GROUP BY c.tier ORDER BY c.tier",
               {});
}

// IN and NOT IN over subqueries; the NULL regions (every 11th row) stay NULL in the IN test.
Result in_subquery(Device& d) {
  return agree(d,
               "SELECT region, region IN (SELECT region FROM orders WHERE id < 30), COUNT(*), SUM(qty) FROM orders "
               "WHERE customer IN (SELECT id FROM customers WHERE tier = 'gold') "
               "AND qty NOT IN (SELECT qty FROM orders WHERE region = 'north' AND id < 60) GROUP BY region",
               {});
}

// Text functions of a column (one lookup per row of a map made per distinct string), derived
// text compared with a literal and grouped; NULL regions stay NULL through them.
Result text_functions(Device& d) {
  return agree(d,
               "SELECT upper(substr(region, 1, 2)) || '-', length(region), COUNT(*), SUM(qty) FROM orders "
               "WHERE lower(region) < 'south' OR region IS NULL GROUP BY upper(substr(region, 1, 2)) || '-', length(region)",
               {});
}

}  // namespace

std::vector<Case> db_cases() {
  const std::string tol = "exact rows vs SQLite (ints, text, NULLs); float SUM/AVG within 1e-9 relative (summation order)";
  return {
      {"db.scan_filter_aggregate", tol, scan_filter_aggregate},
      {"db.join_nested_loop", tol + "; strategy exact", [](Device& d) { return join(d, 1u << 30, 1); }},
      {"db.join_hash_by_cardinality_rule", tol + "; strategy exact", [](Device& d) { return join(d, 16, 2); }},
      {"db.order_by_limit", tol + "; order exact", order_limit},
      {"db.count_zero_anomaly_rule", "exact status", count_zero_rule},
      {"db.comma_join", tol, comma_join},
      {"db.in_subquery", tol, in_subquery},
      {"db.text_functions", tol, text_functions},
  };
}

}  // namespace weft::conformance
