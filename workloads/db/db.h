// Database workload on Weft: columnar tables (Int, Float, Text via a sorted dictionary) in
// Globals, a SQL subset (core/sql.h) planned by core/plan.h and run as one program of device
// stages recorded into one command buffer:
//
//   fill (per-run resets) -> scan+filter[side] -> [one join step per table after the first:
//   report build rows -> regulator (cardinality rule) -> nested loop | hash build + probe, by
//   indirect slots; rows are tuples of row ids, one per table] -> residual filter
//   -> [group-by: project keys/args -> claim -> number -> count -> scan (sizes the reduce
//   dispatch) -> fill -> reduce] -> project outputs -> [bitonic sort] -> finish (LIMIT/OFFSET,
//   R30 result reference) -> regulator (COUNT = 0 -> anomaly status).
//
// Instances: scan0 [scan1 .. scanN-1, join join2 .. joinN-1] filter [aggregate] [having] output.
// Each has a Metrics record with rows in / rows out / error bits (DB_COUNTER_* in
// shaders/db_ops.h); each join step's also the strategy that ran.
// The output instance's R30 is the result reference: perm word (or DB_NONE), first row, row
// count, error bits.
//
// Device values are 64-bit: int64 through GL_EXT_shader_explicit_arithmetic_types_int64 and
// double arithmetic (shaderInt64 + shaderFloat64 are required: MissingFeature without them).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "bytecode.h"
#include "csv.h"
#include "plan.h"
#include "sql.h"
#include "table.h"

namespace weft::db {

struct Value {
  bool null = true;
  Type type = Type::Int;
  int64_t i = 0;
  double f = 0;
  std::string s;
};
using Row = std::vector<Value>;

struct ResultSet {
  std::vector<std::string> names;
  std::vector<Row> rows;
};

// Parses, adds the query's string literals to the dictionary (so every literal has a code the
// output can decode) and plans. With a device, the query's derived tables and WITH entries run
// there first (core/derived.h; each result becomes a table of `db`, named "(derived N)"), then
// its subqueries (x IN (SELECT ...), EXISTS (SELECT ...), uncorrelated), each as a DeviceQuery
// of its own, and their values enter the plan; without a device all of them are refused.
Plan prepare_sql(const std::string& sql, Database& db);
Plan prepare_sql(const std::string& sql, Database& db, Device& device);
// The same for a query already parsed.
Plan prepare_query(const Query& query, Database& db, Device& device);

// ---- modifications (modify.cpp) ---------------------------------------------------------------
// INSERT, UPDATE and DELETE (core/sql.h) of one table of `db`, with SQLite's semantics on Weft's
// typed columns (docs/db.md): every expression (SET values, WHERE, VALUES rows other than
// constants, INSERT's SELECT) runs on `device` as a query; the host then builds the table's new
// rows, converting each value to its column's type by SQLite's column affinity, and only then
// replaces the table. Any error (parse, plan, device, a value the column cannot hold) leaves `db`
// as it was: tables, rows and dictionary.
struct Modification {
  size_t table = 0;            // index of the modified table in db.tables()
  uint64_t rows_affected = 0;  // rows inserted, updated or deleted (SQLite's changes())
  // The shared dictionary changed (strings added or gone): the Text codes of every table may
  // have moved, not only the modified table's.
  bool dictionary_changed = false;
};
Modification modify(const std::string& sql, Database& db, Device& device);

// ---- output formatting ----------------------------------------------------------------------
// A REAL as SQLite prints it (its own "%!.15g", through sqlite3_snprintf).
std::string format_real(double v);
// Rows exactly as `sqlite3 -csv` prints them (NULL empty, text quoted when the shell would).
std::string format_csv(const ResultSet& r, bool header);
// An aligned table for people.
std::string format_table(const ResultSet& r);

// ---- the SQLite peer ------------------------------------------------------------------------
class Sqlite {
 public:
  explicit Sqlite(const Database& db);  // an in-memory database with the same typed tables
  ~Sqlite();
  Sqlite(const Sqlite&) = delete;
  Sqlite& operator=(const Sqlite&) = delete;
  ResultSet query(const std::string& sql);  // BadInput with SQLite's message on error
  double last_seconds() const { return last_seconds_; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  double last_seconds_ = 0;
};

// Compares results: same names, same rows (as multisets unless `ordered`); Int and Text exact,
// Float within `float_rel` relative (of max(|a|, |b|, 1e-300)). Returns "" or what differs.
std::string compare_results(const ResultSet& device, const ResultSet& reference, bool ordered, double float_rel);

// ---- device ---------------------------------------------------------------------------------
struct QueryOptions {
  // Expected build-side rows: above this the cardinality rule switches the join from the nested
  // loop to the hash join on the device.
  uint32_t join_threshold = 64;
  uint64_t join_capacity = 0;   // joined rows the output holds (0: rows of both sides)
  uint64_t group_capacity = 0;  // groups the group table holds (0: min(input rows, 65536))
  // Distinct (GROUP BY keys, x) values a COUNT(DISTINCT x) hash table holds (0: as many as the
  // group table's slots allow); a fuller table is rebuilt with the count it reached.
  uint64_t distinct_capacity = 0;
  // Scan predicates of the form `col <cmp> const AND col IS NULL AND ...` run as a term list
  // without the bytecode interpreter; true forces the interpreter (tests compare both).
  bool interpret_filters = false;
  // Where base-table column values live: in the bound Globals window, or in far segments of
  // their own (tables beyond the storage-buffer window; needs bufferDeviceAddress). Auto picks
  // the window when the whole query fits it.
  enum class Columns { Auto, InWindow, Far } columns = Columns::Auto;
};

struct QueryStats {
  uint64_t rows_scanned = 0;      // rows of the base tables read by the scans
  uint32_t join_build_rows = 0;   // filtered build side
  uint32_t join_strategy = 0;     // 0 no join, 1 nested loop, 2 hash
  uint32_t joined_rows = 0;
  // Every join step (the first is the one above), in table order: a multi-way join has one per
  // table after the first, each under its own cardinality rule.
  struct JoinStep {
    uint32_t build_rows = 0, joined_rows = 0, strategy = 0;
  };
  std::vector<JoinStep> join_steps;
  uint32_t groups = 0;            // aggregate queries
  uint32_t aggregate_rows_in = 0;
  uint32_t aggregate_status = 0;  // Metrics status of the aggregate instance (1: anomaly)
  uint32_t rows_out = 0;
  uint32_t output_status = 0;     // Metrics status of the output instance (1: anomaly)
  uint32_t rebuilds = 0;          // program rebuilt with a larger join output or group table
  uint32_t submissions = 0;       // command-buffer submissions of the last run() (1 unless rebuilt)
  uint32_t term_filters = 0;      // scans whose predicate ran as a term list, not interpreted
  double gpu_ns = 0;              // GPU-timestamp time of the last run
};

// Throws MissingFeature unless the device has shaderInt64 and shaderFloat64.
void require_features(const Device& device);

struct BuiltQuery;

class DeviceQuery {
 public:
  DeviceQuery(Device& device, const Database& db, Plan plan, QueryOptions options = {});
  ~DeviceQuery();
  ResultSet run();   // one run (rebuilt larger when the join output overflows) and read back
  void replay();     // one more run of the recorded program, no read back (benchmarks)
  QueryStats stats();
  const Plan& plan() const { return plan_; }
  Executable& executable();

 private:
  void build();
  Device& device_;
  const Database& db_;
  Plan plan_;
  QueryOptions options_;
  std::unique_ptr<BuiltQuery> built_;
  std::unique_ptr<Executable> exe_;
  uint32_t rebuilds_ = 0;
  uint32_t submissions_ = 0;
};

// For compositions (docs/compose.md): the query's stages appended to a caller's program, so
// the query runs in the same command buffer as other workloads. The output instance's R30 is the
// result reference (perm word or DB_NONE, first row, row count, error bits) and output column c's
// values (8 bytes per row, row r at word values + 2 r) are at Globals word output_values[c].
// No rebuild happens here: a join or group table that overflows sets the error counter only.
struct AppendedQuery {
  AppendedQuery(Program program, const Database& db, const Plan& plan, QueryOptions options = {});
  ~AppendedQuery();
  Program take_program();          // the caller's program with the query appended (once)
  void upload(Executable& exe) const;  // the tables and the plan's host tables, as DeviceQuery does
  InstanceId output() const;
  std::vector<uint32_t> output_values;  // Globals word per visible output column
  std::vector<Range> output_ranges;     // the Globals range of each visible column's values
  uint32_t error_word = 0;              // Globals word of the error bits (DB_ERROR_*)
 private:
  const Database& db_;
  Plan plan_;
  std::unique_ptr<BuiltQuery> built_;
};

// Seeded table pair for demos, tests and benchmarks: orders(id, customer, amount, qty, region)
// and customers(id, name, tier); `null_every` > 0 makes every n-th amount and region NULL.
Database random_database(uint64_t orders, uint64_t customers, uint32_t seed, uint32_t null_every = 0);

}  // namespace weft::db
