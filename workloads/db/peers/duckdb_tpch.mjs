// DuckDB's times for the TPC-H queries, for `weft bench db --tpch DIR` (workloads/db/bench_tpch.cpp),
// through npm's @duckdb/node-api (`npm install --prefix build/peers @duckdb/node-api`).
//
// stdin:  {"data": DIR, "runs": R, "queries": [{"name": "q01", "sql": "..."}, ...]}
// stdout: {"version": "v1.x", "threads": N, "load_ms": ms,
//          "queries": {"q01": {"rows": n, "best_ms": ms, "median_ms": ms, "rewrites": [...]}
//                      or {"error": message}, ...}}
//
// The 8 tables are created with the TPC-H specification's column types (clause 1.4: identifiers
// INTEGER, money and quantities DECIMAL(15,2), dates DATE, fixed text CHAR, which DuckDB stores
// as VARCHAR without padding) and filled from DIR/NAME.csv as `weft db tpch-gen` writes them:
// a header row (checked against the column names here), RFC 4180 quoting, an empty field quoted
// ("" is the empty string, not NULL: there are no NULLs in TPC-H). Each query runs once as a
// warm-up, then R times; a time covers running the query and reading its rows into JS.
import { closeSync, openSync, readFileSync, readSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const require = createRequire(join(process.cwd(), "noop.js"));
let DuckDBInstance;
try {
  ({ DuckDBInstance } = require("@duckdb/node-api"));
} catch (e) {
  // The bench prints this as "duckdb": "missing: ...".
  process.stdout.write(JSON.stringify({ missing: "npm package @duckdb/node-api not found in NODE_PATH " +
    `(${process.env.NODE_PATH}; npm install --prefix build/peers @duckdb/node-api)` }) + "\n");
  process.exit(0);
}

const id = "INTEGER", money = "DECIMAL(15,2)";
const tables = {
  region: [["r_regionkey", id], ["r_name", "CHAR(25)"], ["r_comment", "VARCHAR(152)"]],
  nation: [["n_nationkey", id], ["n_name", "CHAR(25)"], ["n_regionkey", id], ["n_comment", "VARCHAR(152)"]],
  supplier: [["s_suppkey", id], ["s_name", "CHAR(25)"], ["s_address", "VARCHAR(40)"], ["s_nationkey", id],
             ["s_phone", "CHAR(15)"], ["s_acctbal", money], ["s_comment", "VARCHAR(101)"]],
  customer: [["c_custkey", id], ["c_name", "VARCHAR(25)"], ["c_address", "VARCHAR(40)"], ["c_nationkey", id],
             ["c_phone", "CHAR(15)"], ["c_acctbal", money], ["c_mktsegment", "CHAR(10)"], ["c_comment", "VARCHAR(117)"]],
  part: [["p_partkey", id], ["p_name", "VARCHAR(55)"], ["p_mfgr", "CHAR(25)"], ["p_brand", "CHAR(10)"],
         ["p_type", "VARCHAR(25)"], ["p_size", "INTEGER"], ["p_container", "CHAR(10)"], ["p_retailprice", money],
         ["p_comment", "VARCHAR(23)"]],
  partsupp: [["ps_partkey", id], ["ps_suppkey", id], ["ps_availqty", "INTEGER"], ["ps_supplycost", money],
             ["ps_comment", "VARCHAR(199)"]],
  orders: [["o_orderkey", id], ["o_custkey", id], ["o_orderstatus", "CHAR(1)"], ["o_totalprice", money],
           ["o_orderdate", "DATE"], ["o_orderpriority", "CHAR(15)"], ["o_clerk", "CHAR(15)"],
           ["o_shippriority", "INTEGER"], ["o_comment", "VARCHAR(79)"]],
  lineitem: [["l_orderkey", id], ["l_partkey", id], ["l_suppkey", id], ["l_linenumber", "INTEGER"],
             ["l_quantity", money], ["l_extendedprice", money], ["l_discount", money], ["l_tax", money],
             ["l_returnflag", "CHAR(1)"], ["l_linestatus", "CHAR(1)"], ["l_shipdate", "DATE"], ["l_commitdate", "DATE"],
             ["l_receiptdate", "DATE"], ["l_shipinstruct", "CHAR(25)"], ["l_shipmode", "CHAR(10)"],
             ["l_comment", "VARCHAR(44)"]],
};

// The query texts are written in SQLite's dialect (workloads/db/tpch/README.md); two of its
// forms have no DuckDB equivalent under the same spelling, so they are rewritten, and every
// rewrite is reported with the query's times.
const rewrites = [
  // SQLite's date('D', '+N unit') is the specification's date 'D' + interval 'N' unit (DuckDB's
  // interval text takes no '+').
  { what: "date('D', '+N unit') -> CAST(DATE 'D' + INTERVAL 'N unit' AS DATE)",
    from: /date\('(\d{4}-\d\d-\d\d)',\s*'\+?(-?\d+ \w+)'\)/g, to: "CAST(DATE '$1' + INTERVAL '$2' AS DATE)" },
  // substr() of a DATE column (the year, for extract(year from d)) needs its text.
  { what: "substr(x_date, ...) -> substr(CAST(x_date AS VARCHAR), ...)",
    from: /substr\((\w+date)\s*,/g, to: "substr(CAST($1 AS VARCHAR)," },
];

function duckdb_text(sql) {
  const applied = [];
  for (const r of rewrites) {
    const out = sql.replace(r.from, r.to);
    if (out !== sql) applied.push(r.what);
    sql = out;
  }
  return { sql, applied };
}

function check_header(path, columns) {
  const fd = openSync(path, "r");
  const start = Buffer.alloc(4096);
  const n = readSync(fd, start, 0, start.length, 0);
  closeSync(fd);
  const header = start.subarray(0, n).toString("utf8").split("\n")[0].trim();
  const expected = columns.map((c) => c[0]).join(",");
  if (header !== expected) throw new Error(`${path}: header '${header}' is not the TPC-H columns '${expected}'`);
}

async function load(connection, dir) {
  for (const [name, columns] of Object.entries(tables)) {
    const path = join(dir, name + ".csv");
    check_header(path, columns);
    await connection.run(`CREATE TABLE ${name} (${columns.map(([c, t]) => `${c} ${t}`).join(", ")})`);
    await connection.run(`COPY ${name} FROM '${path.replaceAll("'", "''")}' (FORMAT csv, HEADER true, QUOTE '"', ESCAPE '"', ALLOW_QUOTED_NULLS false)`);
  }
}

const now = () => Number(process.hrtime.bigint()) / 1e6;

async function time_query(connection, sql, runs) {
  let rows = (await connection.runAndReadAll(sql)).getRows().length;  // warm-up
  const ms = [];
  for (let r = 0; r < runs; r++) {
    const t0 = now();
    rows = (await connection.runAndReadAll(sql)).getRows().length;
    ms.push(now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { rows, best_ms: ms[0], median_ms: ms[Math.floor(ms.length / 2)] };  // the bench's median: upper middle
}

const req = JSON.parse(readFileSync(0, "utf8"));
const instance = await DuckDBInstance.create(":memory:");
const connection = await instance.connect();
const settings = (await connection.runAndReadAll("SELECT version(), current_setting('threads')")).getRows()[0];
const t0 = now();
await load(connection, req.data);
const out = { version: settings[0], threads: Number(settings[1]), load_ms: now() - t0, queries: {} };
for (const q of req.queries) {
  const { sql, applied } = duckdb_text(q.sql);
  try {
    out.queries[q.name] = { ...(await time_query(connection, sql, Math.max(1, req.runs))), rewrites: applied };
  } catch (e) {
    out.queries[q.name] = { error: String(e.message ?? e), rewrites: applied };
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
connection.closeSync?.();
