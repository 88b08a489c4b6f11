// weft db query|shell|demo|bench: the database workload (workloads/db) on one device, with SQLite as
// the peer.
//
//   weft db query --table NAME=FILE.csv [--table ...] [--schema NAME=col:type,...] [--db FILE.wdb] "SQL"
//                 [--format table|csv] [--header] [--explain] [--check] [--join-threshold N]
//                 [--load-time] [--device SEL]
//     loads the CSV files as tables (types inferred, or from --schema) beside the tables of a .wdb
//     file (core/wdb.h; --load-time prints the load's seconds on stderr), runs the query on the
//     device and prints its rows: `--format csv` prints exactly what `sqlite3 -csv` prints (no
//     header unless --header). --explain prints the plan instead of running it (its subqueries,
//     which planning runs, excepted); --check also runs the query in SQLite and says whether the
//     rows agree.
//   weft db shell [--table NAME=FILE.csv ...] [--schema ...] [--format table|csv] [--header] [--timer]
//                 [--device SEL] [FILE.sql]
//     statements from FILE.sql or stdin in one Session (shell.h): tables resident on the device
//     across statements, programs cached by query text.
//   weft db demo  [--orders N] [--customers M] [--seed S] [--device SEL]
//   weft db bench [--rows 1e5,1e6] [--runs R] [--seed S] [--device SEL]   (= weft bench db)
//   weft db bench --tpch DIR [--queries q01,q06] [--runs R] [--query-dir DIR] [--max-query-s S]
//                 [--sqlite-timeout-s T] [--sqlite-indexes]
//     the TPC-H queries on DIR's tables against SQLite and DuckDB (bench_tpch.h).
//   weft db save --table NAME=FILE.csv [--table ...] [--schema ...] [--db FILE.wdb] --out FILE.wdb
//     loads the tables as query does and writes them to one .wdb file.
//   weft db tpch-gen --sf 0.01 [--seed N] [--format csv|wdb] --out DIR
//     writes the 8 TPC-H tables as DIR/NAME.csv (tpch/generator.h); --format wdb also saves them
//     as DIR/tpch.wdb.
//   weft db tpch --data DIR | --db FILE.wdb [--queries DIR] [--expected FILE] [--only q01,q06] [--device SEL]
//     runs the 22 TPC-H queries through Weft and SQLite and prints query | rows | status |
//     message; exit 1 when a query gives a wrong answer, or (with --expected) when an outcome is
//     not what the expected-refusal list allows.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <weft/weft.h>

#include "bench.h"
#include "bench_tpch.h"
#include "cli.h"
#include "db.h"
#include "generator.h"
#include "harness.h"
#include "shell.h"
#include "wdb.h"

namespace {

using namespace weft;
using namespace weft::db;

const char* kDbUsage =
    "usage: weft db query --table NAME=FILE.csv [--table ...] [--schema NAME=col:type,...] [--db FILE.wdb] \"SQL\"\n"
    "                     [--format table|csv] [--header] [--explain] [--check] [--join-threshold N] [--load-time] [--device SEL]\n"
    "       weft db save  --table NAME=FILE.csv [--table ...] [--schema ...] [--db FILE.wdb] --out FILE.wdb\n"
    "       weft db shell [--table NAME=FILE.csv ...] [--schema ...] [--db FILE.wdb] [--format table|csv] [--header]\n"
    "                     [--timer] [--device SEL] [FILE.sql]\n"
    "       weft db demo  [--orders N] [--customers M] [--seed S] [--device SEL]\n"
    "       weft db bench [--rows N,N,...] [--runs R] [--seed S] [--device SEL]\n"
    "       weft db bench --tpch DIR [--queries q01,q06,...] [--runs R] [--query-dir DIR] [--max-query-s S]\n"
    "                     [--sqlite-timeout-s T] [--sqlite-indexes] [--device SEL]\n"
    "       weft db tpch-gen --sf 0.01 [--seed N] [--format csv|wdb] --out DIR\n"
    "       weft db tpch --data DIR | --db FILE.wdb [--queries DIR] [--expected FILE] [--only q01,q06,...] [--device SEL]\n"
    "  query: CSV tables (types inferred, or int|float|text from --schema) queried on the device;\n"
    "         --format csv prints rows exactly like `sqlite3 -csv` (--header adds the column names);\n"
    "         --explain prints the plan; --check runs the query in SQLite too and compares the rows;\n"
    "         --db adds the tables of a .wdb file (written by save), reloaded without parsing text\n"
    "  save:  the tables query would load, written to one .wdb file\n"
    "  shell: statements (ending in ';') from FILE.sql or stdin in one session, tables resident on the\n"
    "         device across them; .tables .schema .timer .load .mode .headers .help .quit\n"
    "  demo:  a seeded orders/customers pair, a few queries on the device and in SQLite, agreement\n"
    "  tpch-gen: the 8 TPC-H tables at scale factor 0.01 .. 10 as DIR/NAME.csv, deterministic by seed\n"
    "         (--format wdb: also DIR/tpch.wdb)\n"
    "  tpch:  the 22 TPC-H queries (default --queries workloads/db/tpch/queries) through Weft and SQLite,\n"
    "         a table of query, rows, status (match, refused, WRONG) and message\n"
    "  bench: JSON lines, rows/s of scan-filter-aggregate and join queries, ratio to SQLite in the same run;\n"
    "         a size whose query does not fit the device's storage-buffer window prints a \"skipped\" line;\n"
    "         with --tpch DIR the TPC-H queries on DIR's tables (loaded once), per query Weft's GPU and wall\n"
    "         times, SQLite's and DuckDB's (a node peer, when @duckdb/node-api is installed), rows checked\n";

// --table and --schema may repeat, so they are taken out before the common parser sees argv.
struct Repeated {
  std::vector<std::pair<std::string, std::string>> tables, schemas;
  std::vector<char*> rest;
};

std::pair<std::string, std::string> split_eq(const std::string& opt, const std::string& v) {
  const size_t eq = v.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
    fail(ErrorCode::BadInput, "--" + opt + " expects NAME=VALUE, got '" + v + "'");
  return {v.substr(0, eq), v.substr(eq + 1)};
}

Repeated take_repeated(int argc, char** argv) {
  Repeated r;
  for (int i = 0; i < argc; ++i) {
    std::string s = argv[i];
    for (const char* opt : {"table", "schema"}) {
      const std::string flag = std::string("--") + opt;
      std::string value;
      bool hit = false;
      if (s == flag) {
        if (i + 1 >= argc) fail(ErrorCode::BadInput, flag + " needs a value");
        value = argv[++i];
        hit = true;
      } else if (s.rfind(flag + "=", 0) == 0) {
        value = s.substr(flag.size() + 1);
        hit = true;
      }
      if (hit) {
        (std::strcmp(opt, "table") == 0 ? r.tables : r.schemas).push_back(split_eq(opt, value));
        s.clear();
        break;
      }
    }
    if (!s.empty()) r.rest.push_back(argv[i]);
  }
  return r;
}

// The tables of --db FILE.wdb, then those of each --table (with its --schema); the load's seconds
// on stderr when `report_time`.
Database load_tables(const Repeated& rep, const cli::Args& a, const char* verb, bool report_time) {
  if (rep.tables.empty() && !a.options.count("db"))
    fail(ErrorCode::BadInput, std::string("db ") + verb + " needs --db FILE.wdb or at least one --table NAME=FILE.csv");
  const auto start = std::chrono::steady_clock::now();
  Database database = a.options.count("db") ? load_database(a.get("db", "")) : Database();
  for (const auto& [name, file] : rep.tables) {
    std::optional<std::vector<SchemaColumn>> schema;
    for (const auto& [sname, text] : rep.schemas)
      if (iequals(sname, name)) schema = parse_schema(text);
    database.add(load_csv_file(file, name, schema));
  }
  for (const auto& [sname, text] : rep.schemas)
    if (database.find(sname) < 0) fail(ErrorCode::BadInput, "--schema names table '" + sname + "', which no --table loads");
  if (report_time)
    std::fprintf(stderr, "load: %.3f s\n", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return database;
}

// Statements from FILE or stdin in one Session (tables from --db and --table, or none: .load
// adds them); exit 1 when any failed.
int shell(int argc, char** argv) {
  Repeated rep = take_repeated(argc, argv);
  cli::Args a = cli::parse(int(rep.rest.size()), rep.rest.data(), 1, {"device", "format", "db"}, {"header", "timer", "validation"});
  if (a.positional.size() > 1) fail(ErrorCode::BadInput, std::string("db shell takes at most one FILE\n") + kDbUsage);
  ShellOptions o;
  o.mode = a.get("format", "table");
  if (o.mode != "table" && o.mode != "csv") fail(ErrorCode::BadInput, "--format must be table or csv");
  o.headers = a.flag("header");
  o.timer = a.flag("timer");
  const bool tables = !rep.tables.empty() || a.options.count("db");
  Database database = tables ? load_tables(rep, a, "shell", o.timer) : Database();
  auto dev = open_device(a);
  Session session(*dev, std::move(database));
  int failures = 0;
  if (a.positional.empty()) {
    o.interactive = isatty(fileno(stdin)) != 0;
    failures = run_shell(session, std::cin, std::cout, o);
  } else {
    std::istringstream in(read_text_file(a.positional[0], "cannot read the SQL file"));
    failures = run_shell(session, in, std::cout, o);
  }
  return failures ? 1 : 0;
}

int query(int argc, char** argv) {
  Repeated rep = take_repeated(argc, argv);
  cli::Args a = cli::parse(int(rep.rest.size()), rep.rest.data(), 1, {"format", "device", "join-threshold", "db"},
                           {"header", "explain", "check", "validation", "load-time"});
  if (a.positional.size() != 1) fail(ErrorCode::BadInput, std::string("db query expects one SQL argument\n") + kDbUsage);
  const std::string format = a.get("format", "table");
  if (format != "table" && format != "csv") fail(ErrorCode::BadInput, "--format must be table or csv");
  Database database = load_tables(rep, a, "query", a.flag("load-time"));
  const std::string sql = a.positional[0];
  auto dev = open_device(a);  // subqueries run while planning, --explain included
  db::Plan plan = prepare_sql(sql, database, *dev);
  if (a.flag("explain")) {
    std::fputs(plan.explain(database).c_str(), stdout);
    return 0;
  }
  QueryOptions qo;
  qo.join_threshold = uint32_t(a.get_uint("join-threshold", qo.join_threshold));
  DeviceQuery q(*dev, database, plan, qo);
  const ResultSet rs = q.run();
  std::fputs(format == "csv" ? format_csv(rs, a.flag("header")).c_str() : format_table(rs).c_str(), stdout);
  if (a.flag("check")) {
    Sqlite peer(database);
    const std::string diff = compare_results(rs, peer.query(sql), !plan.order.empty(), 1e-12);
    std::fprintf(stderr, "sqlite: %s\n", diff.empty() ? "same rows" : ("DIFFERENT: " + diff).c_str());
    if (!diff.empty()) return 1;
  }
  return 0;
}

// Floats: SUM/AVG add in another order than SQLite; 1e-9 relative is ~1e7 ulps of slack for
// sums of ~1e6 terms of similar magnitude (worst-case growth n * eps = 2e-10 at n = 1e6).
constexpr double kFloatRel = 1e-9;

const char* kDemoQueries[] = {
    "SELECT region, COUNT(*) AS orders, SUM(qty) AS items, ROUND_AVG FROM orders WHERE amount > 0 GROUP BY region ORDER BY region",
    "SELECT c.tier, COUNT(*), SUM(o.qty), MIN(o.amount), MAX(o.amount) FROM orders o JOIN customers c ON o.customer = c.id "
    "WHERE o.qty >= 10 GROUP BY c.tier ORDER BY 2 DESC",
    "SELECT o.id, c.name, o.amount * o.qty AS total FROM orders o JOIN customers c ON o.customer = c.id "
    "WHERE c.tier = 'gold' AND o.region = 'north' ORDER BY total DESC, o.id LIMIT 5",
    "SELECT COUNT(*), COUNT(amount), AVG(amount) FROM orders WHERE region IS NULL OR qty = 0",
    "SELECT id, amount FROM orders WHERE amount > 1e9",
};

std::string demo_sql(const char* q) {
  std::string s = q;
  const size_t at = s.find("ROUND_AVG");
  if (at != std::string::npos) s.replace(at, 9, "AVG(amount) AS mean_amount");
  return s;
}

int demo(int argc, char** argv) {
  cli::Args a = cli::parse(argc, argv, 1, {"orders", "customers", "seed", "device"}, {"validation"});
  const uint64_t orders = a.get_uint("orders", 20000), customers = a.get_uint("customers", 500);
  Database database = random_database(orders, customers, uint32_t(a.get_uint("seed", 7)), 97);
  auto dev = open_device(a);
  require_features(*dev);
  std::printf("weft db demo on %s: orders(%llu rows) x customers(%llu rows), seeded, every 97th amount/region NULL\n\n",
              dev->info().name.c_str(), (unsigned long long)orders, (unsigned long long)customers);
  Sqlite peer(database);
  int bad = 0;
  for (const char* q : kDemoQueries) {
    const std::string sql = demo_sql(q);
    db::Plan plan = prepare_sql(sql, database);
    DeviceQuery dq(*dev, database, plan);
    const ResultSet rs = dq.run();
    const QueryStats st = dq.stats();
    const ResultSet ref = peer.query(sql);
    const std::string diff = compare_results(rs, ref, !plan.order.empty(), kFloatRel);
    std::printf("%s\n%s", sql.c_str(), format_table(rs).c_str());
    std::printf("  device: %.3f ms GPU, %llu rows scanned", st.gpu_ns / 1e6, (unsigned long long)st.rows_scanned);
    if (st.join_strategy)
      std::printf(", join build side %u rows -> %s", st.join_build_rows, st.join_strategy == 1 ? "nested loop" : "hash join");
    if (st.output_status == WEFT_STATUS_ANOMALY) std::printf(", COUNT = 0 rule: anomaly status raised");
    std::printf("\n  SQLite: %.3f ms; rows agree: %s\n\n", peer.last_seconds() * 1e3, diff.empty() ? "yes" : diff.c_str());
    bad += !diff.empty();
  }
  std::printf("%s\n", bad ? "SOME QUERIES DISAGREE WITH SQLITE" : "all queries agree with SQLite");
  return bad ? 1 : 0;
}

std::vector<uint64_t> parse_sizes(const std::string& s) {
  std::vector<uint64_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const std::optional<double> v = parse_float(item);
    if (!v || *v < 1 || *v > 1e9 || std::floor(*v) != *v) fail(ErrorCode::BadInput, "--rows: '" + item + "' is not a row count");
    out.push_back(uint64_t(*v));
  }
  if (out.empty()) fail(ErrorCode::BadInput, "--rows is empty");
  return out;
}

int run_bench(int argc, char** argv) {
  cli::Args a = cli::parse(argc, argv, 1, {"rows", "runs", "seed", "device", "tpch", "queries", "query-dir", "max-query-s",
                                                          "sqlite-timeout-s"},
                           {"validation", "sqlite-indexes"});
  if (a.options.count("tpch")) return bench_tpch(a);
  const std::vector<uint64_t> sizes = parse_sizes(a.get("rows", "1e5,1e6"));
  const uint32_t runs = uint32_t(std::max<uint64_t>(a.get_uint("runs", 5), 1));
  auto dev = open_device(a);
  require_features(*dev);
  struct Q {
    const char* name;
    const char* sql;
  } queries[] = {
      {"scan_filter_aggregate",
       "SELECT region, COUNT(*), SUM(qty), AVG(amount), MIN(amount), MAX(amount) FROM orders WHERE qty > 10 AND amount < 500 GROUP BY region"},
      {"join_aggregate",
       "SELECT c.tier, COUNT(*), SUM(o.amount) FROM orders o JOIN customers c ON o.customer = c.id WHERE o.qty > 10 GROUP BY c.tier"},
  };
  for (uint64_t n : sizes) {
    Database database = random_database(n, std::max<uint64_t>(n / 100, 10), uint32_t(a.get_uint("seed", 1)));
    std::unique_ptr<Sqlite> peer;  // loaded once the first query fits on the device
    for (const Q& q : queries) {
      db::Plan plan = prepare_sql(q.sql, database);
      std::unique_ptr<DeviceQuery> made;
      try {
        made = std::make_unique<DeviceQuery>(*dev, database, plan);
      } catch (const Error& e) {
        // A size over the device's storage-buffer window (128 MiB on lavapipe) is reported as
        // skipped, so one --rows list serves small and large devices.
        if (e.code() != ErrorCode::BadInput) throw;
        weft::bench::Line(std::string("db.") + q.name, *dev).num("rows", double(n)).str("skipped", e.what()).print();
        continue;
      }
      DeviceQuery& dq = *made;
      if (!peer) peer = std::make_unique<Sqlite>(database);
      const ResultSet rs = dq.run();  // warm-up and check
      const std::string diff = compare_results(rs, peer->query(q.sql), false, kFloatRel);
      std::vector<double> gpu, lite;
      for (uint32_t r = 0; r < runs; ++r) {
        dq.replay();
        gpu.push_back(dq.stats().gpu_ns * 1e-9);
        peer->query(q.sql);
        lite.push_back(peer->last_seconds());
      }
      std::sort(gpu.begin(), gpu.end());
      std::sort(lite.begin(), lite.end());
      const double g = gpu[gpu.size() / 2], s = lite[lite.size() / 2];
      const QueryStats st = dq.stats();
      weft::bench::Line(std::string("db.") + q.name, *dev)
          .num("rows", double(n))
          .num("gpu_ms", g * 1e3)
          .num("rows_per_s", double(n) / g)
          .num("sqlite_ms", s * 1e3)
          .num("sqlite_rows_per_s", double(n) / s)
          .num("speedup_vs_sqlite", s / g)
          .num("join_strategy", st.join_strategy)
          .num("join_build_rows", st.join_build_rows)
          .num("groups", st.groups)
          .boolean("agrees_with_sqlite", diff.empty())
          .num("runs", runs)
          .str("top_stages", top_stage_kinds(dq, 3))  // where the GPU time goes
          .print();
    }
  }
  return 0;
}

int save(int argc, char** argv) {
  Repeated rep = take_repeated(argc, argv);
  cli::Args a = cli::parse(int(rep.rest.size()), rep.rest.data(), 1, {"db", "out"}, {"load-time"});
  if (!a.options.count("out") || !a.positional.empty())
    fail(ErrorCode::BadInput, std::string("db save takes tables and --out FILE.wdb, no other argument\n") + kDbUsage);
  const Database database = load_tables(rep, a, "save", a.flag("load-time"));
  save_database(database, a.get("out", ""));
  return 0;
}

int tpch_gen(int argc, char** argv) {
  cli::Args a = cli::parse(argc, argv, 1, {"sf", "seed", "out", "format"}, {});
  if (!a.options.count("sf") || !a.options.count("out")) fail(ErrorCode::BadInput, std::string("db tpch-gen needs --sf and --out\n") + kDbUsage);
  const std::optional<double> sf = parse_float(a.get("sf", ""));
  if (!sf) fail(ErrorCode::BadInput, "--sf: '" + a.get("sf", "") + "' is not a number");
  tpch::Options o;
  o.scale = *sf;
  o.seed = a.get_uint("seed", o.seed);
  const std::string format = a.get("format", "csv");
  if (format != "csv" && format != "wdb") fail(ErrorCode::BadInput, "--format must be csv or wdb");
  for (const tpch::Written& w : tpch::generate(o, a.get("out", "")))
    std::printf("%-9s %10llu rows  %s\n", w.table.c_str(), (unsigned long long)w.rows, w.path.c_str());
  if (format == "wdb") {
    const std::string path = a.get("out", "") + "/tpch.wdb";
    const Database database = tpch::load(a.get("out", ""));
    save_database(database, path);
    std::printf("%-9s %10zu tables  %s\n", "(all)", database.tables().size(), path.c_str());
  }
  return 0;
}

int tpch_run(int argc, char** argv) {
  cli::Args a = cli::parse(argc, argv, 1, {"data", "db", "queries", "expected", "only", "device"}, {"validation"});
  if (a.options.count("data") == a.options.count("db"))
    fail(ErrorCode::BadInput, std::string("db tpch needs --data DIR or --db FILE.wdb (made by weft db tpch-gen)\n") + kDbUsage);
  Database database = a.options.count("db") ? load_database(a.get("db", "")) : tpch::load(a.get("data", ""));
  const std::string only = a.get("only", "");
  auto dev = open_device(a);
  require_features(*dev);
  Sqlite peer(database);
  std::map<std::string, std::string> expected;
  if (a.options.count("expected")) expected = tpch::load_expected_refusals(a.get("expected", ""));
  std::vector<tpch::Outcome> outcomes;
  int bad = 0;
  for (const tpch::QueryFile& q : tpch::load_queries(a.get("queries", "workloads/db/tpch/queries"))) {
    if (!only.empty() && ("," + only + ",").find("," + q.name + ",") == std::string::npos) continue;
    outcomes.push_back(tpch::run_query(*dev, database, peer, q));
    const std::string verdict = tpch::judge(outcomes.back(), expected);
    bad += outcomes.back().status == tpch::Status::Wrong || (a.options.count("expected") && !verdict.empty());
  }
  std::fputs(tpch::summary_table(outcomes).c_str(), stdout);
  return bad ? 1 : 0;
}

}  // namespace

static int weft_cmd_db(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "help")) {
    std::fputs(kDbUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string sub = argv[1];
  if (sub == "query") return query(argc - 1, argv + 1);
  if (sub == "shell") return shell(argc - 1, argv + 1);
  if (sub == "demo") return demo(argc - 1, argv + 1);
  if (sub == "bench") return run_bench(argc - 1, argv + 1);
  if (sub == "save") return save(argc - 1, argv + 1);
  if (sub == "tpch-gen") return tpch_gen(argc - 1, argv + 1);
  if (sub == "tpch") return tpch_run(argc - 1, argv + 1);
  std::fprintf(stderr, "weft db: unknown subcommand '%s'\n%s", sub.c_str(), kDbUsage);
  return 2;
}

// `weft help` lines of this command.
const char* const kHelpLines =
    "  db query --table NAME=FILE.csv ... \"SQL\" [--format table|csv] [--header] [--explain] [--check]\n"
    "  db shell [--table NAME=FILE.csv ...] [FILE.sql]   statements in one session, tables resident\n"
    "  db save --table NAME=FILE.csv ... --out FILE.wdb  tables in a typed columnar file (query --db FILE.wdb)\n"
    "  db tpch-gen --sf 0.01 --out DIR / db tpch --data DIR  TPC-H tables and the 22 queries against SQLite\n"
    "  db demo|bench [--orders N] [--rows N,N]  SQL on CSV tables on the device, checked against SQLite\n";

WEFT_CLI_COMMAND(db) {
  // Each verb parses its own options (argv[1] is the verb).
  return {.name = "db",
          .usage = kHelpLines, .run = weft_cmd_db, .bench = true};
}
