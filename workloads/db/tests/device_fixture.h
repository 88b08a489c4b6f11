// What the device tests of the database workload share: the suite-wide device and validation
// guard (tests/device_under_test.h), and a query checked against SQLite.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <string>

#include <weft/weft.h>

#include "db.h"
#include "device_under_test.h"

namespace weft::db::test {

// Float comparison bound for SUM/AVG of doubles (SQLite rounds after every term, the device
// once); see test_device.cpp.
inline constexpr double kFloatRel = 1e-9;

using weft::test::device;
using weft::test::ValidationClean;

// Runs `sql` on the device and in `peer` (SQLite over the same tables) and checks the rows agree
// (in order when the query has ORDER BY, as multisets otherwise). When a scan predicate ran as a
// term list (filter_terms), the query runs once more with the interpreter forced, so both scan
// kernels are held to SQLite on every query. On a device with bufferDeviceAddress every query
// also runs with its tables in far segments split over allocations of 4 KiB (how tables beyond
// the storage-buffer window run), so the far variants of the kernels are held to SQLite too;
// every other query reads them from resident memory (ResidentTables, what a Session imports).
// `sqlite_sql` is the same query in SQLite's syntax where Weft's form is one SQLite lacks
// (EXTRACT, substring(x FROM s FOR n)).
inline QueryStats check_query_as(Database& db, Sqlite& peer, const std::string& sql, const std::string& sqlite_sql,
                                 QueryOptions options = {}) {
  INFO(sql);
  const Plan plan = prepare_sql(sql, db, device());
  const ResultSet ref = peer.query(sqlite_sql);
  auto run = [&](const QueryOptions& o) {
    DeviceQuery q(device(), db, plan, o);
    const ResultSet dev = q.run();
    const std::string diff = compare_results(dev, ref, !plan.order.empty(), kFloatRel);
    CHECK_MESSAGE(diff.empty(), (o.interpret_filters ? "interpreted filters: " : "") << diff);
    return q.stats();
  };
  const QueryStats stats = run(options);
  if (stats.term_filters > 0 && !options.interpret_filters) {
    QueryOptions interpreted = options;
    interpreted.interpret_filters = true;
    CHECK(run(interpreted).term_filters == 0);
  }
  if (device().info().buffer_device_address && options.columns == QueryOptions::Columns::Auto) {
    const weft::test::ScopedEnv cap("WEFT_MAX_ALLOCATION_BYTES", "4096");
    QueryOptions far = options;
    far.columns = QueryOptions::Columns::Far;
    static uint64_t far_runs = 0;
    std::unique_ptr<ResidentTables> resident;
    if (far_runs++ % 2) {
      resident = std::make_unique<ResidentTables>(device());
      for (const Table& t : db.tables()) resident->hold(t.name);
      far.resident = resident.get();
    }
    INFO((far.resident ? "tables resident in far memory" : "tables in far segments"));
    run(far);
  }
  return stats;
}

inline QueryStats check_query(Database& db, Sqlite& peer, const std::string& sql, QueryOptions options = {}) {
  return check_query_as(db, peer, sql, sql, options);
}

// The message of the BadInput error planning `sql` on `db` gives (subqueries run on the device),
// or "(no error)" when it plans; another error code fails the check.
inline std::string prepare_error(Database& db, const std::string& sql) {
  try {
    prepare_sql(sql, db, device());
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    return e.what();
  }
  return "(no error)";
}

// check_query through both join strategies, the cardinality rule forced each way, checking which
// one ran: nested loop (the build side is never "too large") and hash (any build row is "too many").
inline void check_both_joins(Database& db, Sqlite& peer, const std::string& sql) {
  QueryOptions nested, hash;
  nested.join_threshold = 1u << 30;
  hash.join_threshold = 0;
  CHECK(check_query(db, peer, sql, nested).join_strategy == 1);
  CHECK(check_query(db, peer, sql, hash).join_strategy == 2);
}

}  // namespace weft::db::test
