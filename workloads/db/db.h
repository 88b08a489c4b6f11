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

struct QueryOptions;

// Parses, adds the query's string literals to the dictionary (so every literal has a code the
// output can decode) and plans. With a device, the query's derived tables and WITH entries run
// there first (core/derived.h; each result becomes a table of `db`, named "(derived N)"), then
// its subqueries (x IN (SELECT ...), EXISTS (SELECT ...), uncorrelated), each as a DeviceQuery
// of its own, and their values enter the plan; without a device all of them are refused.
Plan prepare_sql(const std::string& sql, Database& db);
Plan prepare_sql(const std::string& sql, Database& db, Device& device, const QueryOptions& options);
Plan prepare_sql(const std::string& sql, Database& db, Device& device);
// The same for a query already parsed.
Plan prepare_query(const Query& query, Database& db, Device& device, const QueryOptions& options);
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
  // A query running longer than `seconds` (0: no limit, the default) is interrupted and fails
  // with Timeout: benchmarks bound queries SQLite runs for hours without an index.
  void set_time_limit(double seconds) { time_limit_seconds_ = seconds; }

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  double last_seconds_ = 0;
  double time_limit_seconds_ = 0;
};

// Compares results: same names, same rows (as multisets unless `ordered`); Int and Text exact,
// Float within `float_rel` relative (of max(|a|, |b|, 1e-300)). Returns "" or what differs.
std::string compare_results(const ResultSet& device, const ResultSet& reference, bool ordered, double float_rel);

// ---- device ---------------------------------------------------------------------------------
// Base tables resident on one device: each column's values (8 bytes a row) and NULL bitmap in far
// memory of their own (far_memory.h; needs bufferDeviceAddress), uploaded once and imported by
// every query program that reads them, so a query uploads only its own small tables.
class ResidentTables {
 public:
  struct ColumnMemory {
    std::shared_ptr<FarSegmentMemory> values, nulls;  // nulls: only for a column with a NULL
  };
  // MissingFeature without bufferDeviceAddress (the device cannot import far memory).
  explicit ResidentTables(Device& device);
  // Keeps the table named so resident from the next refresh on (case-insensitive, as SQL names).
  void hold(const std::string& table);
  // Uploads what is missing or stale: a held table not uploaded yet or invalidated, and every
  // Text column once the database's dictionary has moved (encoding_generation()).
  void refresh(const Database& db);
  void invalidate(const std::string& table);  // its contents changed: uploaded again at refresh
  // The resident memory of a held, uploaded table's column, else null.
  const ColumnMemory* find(const std::string& table, size_t column) const;
  uint64_t uploaded_bytes() const { return uploaded_bytes_; }  // since construction
  uint64_t resident_bytes() const;

 private:
  struct Held {
    std::string name;
    bool uploaded = false;
    uint64_t text_generation = 0;  // the dictionary the Text columns were encoded with
    std::vector<ColumnMemory> columns;
  };
  void upload(const Table& t, Held& h, bool text_only);
  Held* held(const std::string& table);
  Device& device_;
  std::vector<Held> tables_;
  uint64_t uploaded_bytes_ = 0;
};

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
  // Tables held there are read from their resident memory (refreshed before each build) and not
  // uploaded; the query then places every column far. Null: every table is uploaded per query.
  ResidentTables* resident = nullptr;
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
  uint64_t uploaded_bytes = 0;    // what the last build uploaded (resident tables not included)
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
  uint64_t uploaded_bytes_ = 0;
};

// A database open on one device for many statements: the shell, the C ABI and weft.db use it.
// Base tables stay resident (ResidentTables) where the device has bufferDeviceAddress, else
// every query uploads the tables it reads (resident() says which). A query's plan and program
// are cached by its text and replayed when it comes again, until a table or the dictionary
// changes. Derived tables live for their query only.
class Session {
 public:
  explicit Session(Device& device, Database db = {}, QueryOptions options = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  void add_table(Table table);  // BadInput when the name is taken
  const Database& database() const { return db_; }
  // A SELECT's rows; an INSERT, UPDATE or DELETE (modify()) returns no rows and its count in
  // last_timing().rows_affected; either way a failure changes nothing.
  ResultSet query(const std::string& sql);
  Plan explain(const std::string& sql);  // the plan query() would run (its subqueries run)

  struct Timing {
    double plan_ms = 0;       // parse, plan, derived tables and subqueries (0 when cached)
    double build_ms = 0;      // program, pipelines and per-query uploads (0 when cached)
    double run_ms = 0;        // submit, wait and read back
    double gpu_ms = 0;        // GPU timestamps of the last run
    uint64_t uploaded_bytes = 0;  // to the device for this query, resident tables included
    bool cached = false;      // the plan and program came from the cache
    uint64_t rows_affected = 0;  // INSERT / UPDATE / DELETE (as SQLite's changes())
  };
  const Timing& last_timing() const { return last_; }
  bool resident() const { return resident_ != nullptr; }
  const ResidentTables* resident_tables() const { return resident_.get(); }
  size_t cached_queries() const;

 private:
  struct Cached;
  DeviceQuery* find_cached(const std::string& sql);
  Plan prepare(const std::string& sql, size_t base_tables);
  ResultSet modify_table(const std::string& sql);
  Device& device_;
  Database db_;
  QueryOptions options_;
  std::unique_ptr<ResidentTables> resident_;
  std::vector<std::unique_ptr<Cached>> cache_;  // most recently used last
  uint64_t tables_version_ = 0;                 // counts changes to the set or contents of tables
  Timing last_;
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
