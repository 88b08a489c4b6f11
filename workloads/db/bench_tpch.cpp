#include "bench_tpch.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench.h"
#include "cli.h"
#include "generator.h"
#include "harness.h"
#include "node_peer.h"

namespace weft::db {

std::string top_stage_kinds(DeviceQuery& query, size_t n) {
  std::vector<KindTime> kinds = stage_times_by_kind(query.executable().program(), query.executable().timings());
  std::sort(kinds.begin(), kinds.end(), [](const KindTime& x, const KindTime& y) { return x.ns > y.ns; });
  std::string top;
  for (size_t k = 0; k < std::min(n, kinds.size()); ++k) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), "%s%s %.2f ms", k ? ", " : "", kinds[k].kind.c_str(), kinds[k].ns / 1e6);
    top += buf;
  }
  return top;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double best(const std::vector<double>& v) { return v.empty() ? NAN : *std::min_element(v.begin(), v.end()); }

// One full query on Weft with the tables already loaded on the host: plan (its derived tables
// and subqueries run on the device then), build (program, pipelines, upload of the columns it
// reads), one run and read-back. The only place that puts a query on the device, so that a
// resident-table session can take over here: today every DeviceQuery uploads its own columns,
// which the build time therefore includes; replay() afterwards reruns the recorded program on
// the uploaded tables.
struct WeftQuery {
  std::unique_ptr<DeviceQuery> query;
  ResultSet rows;
  double plan_ms = 0, build_ms = 0, run_ms = 0;
  double wall_ms() const { return plan_ms + build_ms + run_ms; }
};

// With `options.resident` the base tables are on the device already (ResidentTables, as a
// Session holds them): planning's passes and the query read them there, no build uploads them.
WeftQuery run_on_weft(Device& device, Database& database, const std::string& sql, const QueryOptions& options) {
  WeftQuery w;
  auto t = std::chrono::steady_clock::now();
  Plan plan = prepare_sql(sql, database, device, options);
  w.plan_ms = ms_since(t);
  t = std::chrono::steady_clock::now();
  w.query = std::make_unique<DeviceQuery>(device, database, std::move(plan), options);
  w.build_ms = ms_since(t);
  t = std::chrono::steady_clock::now();
  w.rows = w.query->run();
  w.run_ms = ms_since(t);
  return w;
}

// The specification's primary and foreign keys (clause 1.4.2), the indexes TPC-H allows: with
// them SQLite answers a correlated subquery by lookups instead of a scan per outer row.
void add_key_indexes(Sqlite& peer) {
  const char* keys[][2] = {
      {"region", "r_regionkey"},        {"nation", "n_nationkey"},  {"nation", "n_regionkey"},
      {"supplier", "s_suppkey"},        {"supplier", "s_nationkey"}, {"customer", "c_custkey"},
      {"customer", "c_nationkey"},      {"part", "p_partkey"},       {"partsupp", "ps_partkey, ps_suppkey"},
      {"partsupp", "ps_suppkey"},       {"orders", "o_orderkey"},    {"orders", "o_custkey"},
      {"lineitem", "l_orderkey, l_linenumber"}, {"lineitem", "l_partkey, l_suppkey"}, {"lineitem", "l_suppkey"},
  };
  int n = 0;
  for (const auto& [table, columns] : keys)
    peer.query("CREATE INDEX key_index_" + std::to_string(n++) + " ON " + table + " (" + columns + ")");
}

// Whether planning `sql` runs work on the device (derived tables, WITH entries, subqueries):
// planned without a device, such a query is refused. Their passes are not in the replayed
// program, so its GPU time then covers only the last part of the query.
bool planning_runs_device_passes(const std::string& sql, Database& database) {
  try {
    prepare_sql(sql, database);
    return false;
  } catch (const Error&) {
    return true;
  }
}

struct Settings {
  uint32_t runs = 3;
  // A query whose first run takes longer is timed by that run alone (no repetitions), so one
  // slow query does not hold the whole bench for `runs` times its length.
  double max_query_ms = 120e3;
  double sqlite_timeout_s = 0;  // SQLite's queries are interrupted past this (0: never)
  QueryOptions weft;              // resident tables where the device has bufferDeviceAddress
};

double positive_seconds(const cli::Args& a, const char* option, double fallback) {
  if (!a.options.count(option)) return fallback;
  const std::optional<double> v = parse_float(a.get(option));
  if (!v || !(*v > 0)) fail(ErrorCode::BadInput, std::string("--") + option + ": '" + a.get(option) + "' is not a positive number of seconds");
  return *v;
}

// SQLite: the first run gives the reference rows (and a time); `runs` more when it was quick.
struct SqliteTimes {
  ResultSet rows;
  std::vector<double> ms;
};

SqliteTimes time_sqlite(Sqlite& peer, const std::string& sql, const Settings& s) {
  SqliteTimes t;
  t.rows = peer.query(sql);
  t.ms.push_back(peer.last_seconds() * 1e3);
  if (t.ms[0] > s.max_query_ms) return t;
  t.ms.clear();
  for (uint32_t r = 0; r < s.runs; ++r) {
    peer.query(sql);
    t.ms.push_back(peer.last_seconds() * 1e3);
  }
  return t;
}

struct WeftTimes {
  double wall_ms = 0, plan_ms = 0, build_ms = 0, run_ms = 0;
  std::vector<double> gpu_ms;
  std::optional<std::string> diff;  // what differs from SQLite's rows; none without SQLite's
  std::string top_stages;
  bool prior_passes = false;  // planning ran derived tables or subqueries on the device
  size_t rows = 0;
  uint32_t rebuilds = 0;
};

// A cold full query (pipelines compiled, rows checked against SQLite's when there are some), a
// warm one whose wall time is reported, then `runs` replays of its program for the GPU-timestamp
// times.
WeftTimes time_weft(Device& device, Database& database, const std::string& sql, const ResultSet* reference, const Settings& s) {
  WeftTimes t;
  t.prior_passes = planning_runs_device_passes(sql, database);
  WeftQuery w = run_on_weft(device, database, sql, s.weft);
  t.rows = w.rows.rows.size();
  if (reference) t.diff = compare_results(w.rows, *reference, !w.query->plan().order.empty(), tpch::kFloatRel);
  if (w.wall_ms() <= s.max_query_ms) {
    w = WeftQuery{};  // the first query's device memory is freed before the second's upload
    w = run_on_weft(device, database, sql, s.weft);
    for (uint32_t r = 0; r < s.runs; ++r) {
      w.query->replay();
      t.gpu_ms.push_back(w.query->stats().gpu_ns * 1e-6);
    }
  } else {
    t.gpu_ms.push_back(w.query->stats().gpu_ns * 1e-6);
  }
  t.wall_ms = w.wall_ms(), t.plan_ms = w.plan_ms, t.build_ms = w.build_ms, t.run_ms = w.run_ms;
  t.rebuilds = w.query->stats().rebuilds;
  t.top_stages = top_stage_kinds(*w.query, 4);
  return t;
}

// DuckDB through its node peer: every query `runs` times after a warm-up, on tables loaded once
// from the CSV files. {"missing": why} when node or the package is not there.
nlohmann::json run_duckdb(const std::string& dir, const std::vector<tpch::QueryFile>& queries, uint32_t runs) {
  nlohmann::json request = {{"data", dir}, {"runs", runs}, {"queries", nlohmann::json::array()}};
  for (const tpch::QueryFile& q : queries) request["queries"].push_back({{"name", q.name}, {"sql", q.sql}});
  return cli::run_node_peer(WEFT_DB_DUCKDB_PEER, {}, request.dump());
}

std::vector<tpch::QueryFile> selected_queries(const std::string& query_dir, const std::string& only) {
  std::vector<tpch::QueryFile> all = tpch::load_queries(query_dir), out;
  if (only.empty()) return all;
  std::stringstream list(only);
  std::string name;
  while (std::getline(list, name, ',')) {
    auto it = std::find_if(all.begin(), all.end(), [&](const tpch::QueryFile& q) { return q.name == name; });
    if (it == all.end()) fail(ErrorCode::BadInput, "--queries: '" + name + "' is not a TPC-H query name (q01 .. q22)");
    out.push_back(*it);
  }
  return out;
}

void add_sqlite(bench::Line& line, const SqliteTimes& lite) {
  line.num("sqlite_rows", double(lite.rows.rows.size()))
      .num("sqlite_ms_best", best(lite.ms))
      .num("sqlite_ms_median", bench::median(lite.ms))
      .num("sqlite_runs", double(lite.ms.size()));
}

void add_weft(bench::Line& line, const WeftTimes& w) {
  line.num("weft_rows", double(w.rows));
  if (w.diff) line.boolean("weft_matches_sqlite", w.diff->empty());
  line.num("weft_gpu_ms_best", best(w.gpu_ms))
      .num("weft_gpu_ms_median", bench::median(w.gpu_ms))
      .num("weft_gpu_runs", double(w.gpu_ms.size()))
      .num("weft_wall_ms", w.wall_ms)
      .num("weft_plan_ms", w.plan_ms)
      .num("weft_build_ms", w.build_ms)
      .num("weft_run_ms", w.run_ms)
      .num("weft_rebuilds", w.rebuilds)
      .boolean("weft_gpu_covers_query", !w.prior_passes)
      .str("weft_top_stages", w.top_stages);
  if (w.diff && !w.diff->empty()) line.str("weft_difference", *w.diff);
}

// DuckDB's figures for one query; its median (NaN when missing or failed).
double add_duckdb(bench::Line& line, const nlohmann::json& duck, const std::string& name, std::optional<size_t> sqlite_rows) {
  if (duck.contains("missing")) {
    line.str("duckdb", "missing: " + duck["missing"].get<std::string>());
    return NAN;
  }
  if (!duck.contains("queries") || !duck["queries"].contains(name)) {
    line.str("duckdb", "missing: the peer gave no answer for " + name + ": " + duck.dump().substr(0, 200));
    return NAN;
  }
  const nlohmann::json& q = duck["queries"][name];
  if (q.contains("error")) {
    line.str("duckdb_error", q["error"].get<std::string>());
    return NAN;
  }
  const size_t rows = q["rows"].get<size_t>();
  line.num("duckdb_rows", double(rows));
  if (sqlite_rows) line.boolean("duckdb_rows_match_sqlite", rows == *sqlite_rows);  // none when SQLite failed
  line.num("duckdb_ms_best", q["best_ms"].get<double>())
      .num("duckdb_ms_median", q["median_ms"].get<double>());
  if (q.contains("rewrites") && !q["rewrites"].empty()) line.str("duckdb_rewrites", q["rewrites"].dump());
  return q["median_ms"].get<double>();
}

void bench_query(Device& device, Database& database, Sqlite& peer, const nlohmann::json& duck, const tpch::QueryFile& q,
                 double lineitem_rows, const Settings& s) {
  bench::Line line("db.tpch", device);
  line.str("query", q.name).num("lineitem_rows", lineitem_rows).num("runs", s.runs);
  std::optional<SqliteTimes> lite;
  try {
    lite = time_sqlite(peer, q.sql, s);
    add_sqlite(line, *lite);
  } catch (const Error& e) {
    line.str("sqlite_error", e.what());
  }
  // The ratios' Weft figure: the GPU time when the replayed program is the whole query, else
  // the wall time of a full query (the only one that includes the passes planning ran).
  double weft_ms = NAN, weft_wall_ms = NAN;
  try {
    const WeftTimes w = time_weft(device, database, q.sql, lite ? &lite->rows : nullptr, s);
    add_weft(line, w);
    weft_wall_ms = w.wall_ms;
    weft_ms = w.prior_passes ? w.wall_ms : bench::median(w.gpu_ms);
    line.str("weft_ratio_basis", w.prior_passes ? "wall" : "gpu");
  } catch (const Error& e) {
    line.str("weft_error", std::string(code_name(e.code())) + ": " + e.message());
  }
  const double duck_ms = add_duckdb(line, duck, q.name, lite ? std::optional<size_t>(lite->rows.rows.size()) : std::nullopt);
  const double lite_ms = lite ? bench::median(lite->ms) : NAN;
  line.num("sqlite_over_weft", lite_ms / weft_ms).num("duckdb_over_weft", duck_ms / weft_ms);
  line.num("sqlite_over_weft_wall", lite_ms / weft_wall_ms).num("duckdb_over_weft_wall", duck_ms / weft_wall_ms).print();
}

template <class F>
double timed_ms(F&& f) {
  const auto t = std::chrono::steady_clock::now();
  f();
  return ms_since(t);
}

}  // namespace

int bench_tpch(const cli::Args& a) {
  const std::string dir = a.get("tpch");
  const std::vector<tpch::QueryFile> queries = selected_queries(a.get("query-dir", "workloads/db/tpch/queries"), a.get("queries"));
  Settings s;
  s.runs = uint32_t(std::max<uint64_t>(a.get_uint("runs", s.runs), 1));
  s.max_query_ms = positive_seconds(a, "max-query-s", s.max_query_ms / 1e3) * 1e3;
  s.sqlite_timeout_s = positive_seconds(a, "sqlite-timeout-s", 0);
  // DuckDB first, in its own process, so its memory is gone before Weft and SQLite load.
  const nlohmann::json duck = run_duckdb(dir, queries, s.runs);
  Database database;
  const double weft_load_ms = timed_ms([&] { database = tpch::load(dir); });
  auto dev = open_device(a);
  require_features(*dev);
  std::unique_ptr<Sqlite> peer;
  const double sqlite_load_ms = timed_ms([&] { peer = std::make_unique<Sqlite>(database); });
  const bool indexes = a.flag("sqlite-indexes");
  const double index_ms = indexes ? timed_ms([&] { add_key_indexes(*peer); }) : 0;
  peer->set_time_limit(s.sqlite_timeout_s);
  const double lineitem_rows = double(database.table(size_t(database.find("lineitem"))).rows);
  bench::Line setup("db.tpch.setup", *dev);
  setup.str("data", dir).num("lineitem_rows", lineitem_rows).num("weft_csv_load_ms", weft_load_ms).num("sqlite_load_ms", sqlite_load_ms);
  setup.boolean("sqlite_key_indexes", indexes).num("sqlite_index_ms", index_ms);
  // The tables go to the device once, as a Session keeps them; every query reads them there.
  std::unique_ptr<ResidentTables> resident;
  if (dev->info().buffer_device_address) {
    resident = std::make_unique<ResidentTables>(*dev);
    for (const Table& t : database.tables()) resident->hold(t.name);
    setup.num("weft_resident_upload_ms", timed_ms([&] { resident->refresh(database); }));
    s.weft.resident = resident.get();
  }
  setup.boolean("weft_tables_resident", resident != nullptr);
  if (duck.contains("missing"))
    setup.str("duckdb", "missing: " + duck["missing"].get<std::string>());
  else
    setup.str("duckdb", duck.value("version", "?")).num("duckdb_threads", duck.value("threads", 0.0)).num("duckdb_load_ms", duck.value("load_ms", NAN));
  setup.print();
  for (const tpch::QueryFile& q : queries) bench_query(*dev, database, *peer, duck, q, lineitem_rows, s);
  return 0;
}

}  // namespace weft::db
