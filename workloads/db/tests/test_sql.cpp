// The SQL front end: what it accepts (and how it plans it), every error with sql:line:col, and
// the inputs the fuzzers once found, replayed through the same calls as the fuzz targets.
#include <doctest/doctest.h>

#include <bit>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <weft/error.h>

#include "bytecode.h"
#include "csv.h"
#include "db_ops.h"
#include "plan.h"

using namespace weft;
using namespace weft::db;

namespace {

Database small_db() {
  Database d;
  d.add(load_csv("id,name,price,qty\n1,apple,1.5,3\n2,pear,,4\n3,,2.25,\n", "items", "items.csv"));
  d.add(load_csv("item,region,amount\n1,north,10\n3,south,-2\n", "sales", "sales.csv"));
  return d;
}

std::string error_of(const std::string& sql) {
  const Database db = small_db();
  try {
    plan_sql(sql, db);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    const std::string m = e.what(), prefix = "bad input: ";
    return m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m;
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("db sql: a multi-way join plans one step per table, each keyed on an earlier table") {
  Database db = small_db();
  db.add(load_csv("region,manager\nnorth,ann\nsouth,bob\n", "regions", "regions.csv"));
  const Plan p = plan_sql("SELECT i.name, r.manager FROM items i JOIN sales s ON s.item = i.id AND s.amount > i.qty "
                          "JOIN regions r ON s.region = r.region JOIN items j ON j.id = i.id WHERE r.manager <> 'x'",
                          db);
  REQUIRE(p.tables.size() == 4);
  REQUIRE(p.joins.size() == 3);
  CHECK(p.joins[0].probe_side == 0);
  CHECK(p.joins[0].build_side == 1);
  CHECK(p.joins[1].probe_side == 1);  // sales.region
  CHECK(p.joins[1].probe_column == 1);
  CHECK(p.joins[1].build_side == 2);  // regions.region
  CHECK(p.joins[1].build_column == 0);
  CHECK(p.joins[2].probe_side == 0);  // a star step: items i again
  CHECK(p.joins[2].build_side == 3);
  CHECK(p.scan_filters[2] != nullptr);  // r.manager <> 'x' goes down to the regions scan
  CHECK(p.residual != nullptr);         // s.amount > i.qty reads two tables: after the joins
  const std::string plan = p.explain(db);
  CHECK(plan.find("join s.region = r.region (build side r;") != std::string::npos);
  CHECK(plan.find("join i.id = j.id (build side j;") != std::string::npos);
}

TEST_CASE("db sql: the subset parses and plans (pushdown, join key, groups, order, limit)") {
  const Database db = small_db();
  const Plan p = plan_sql(
      "select i.name, sum(s.amount) as total, count(*) from items i inner join sales s on s.item = i.id "
      "where i.price > 1 and s.region = 'north' and i.qty + s.amount > 0 group by i.name order by total desc, 1 limit 5 offset 1;",
      db);
  REQUIRE(p.joins.size() == 1);
  CHECK(p.joins[0].probe_column == 0);  // items.id
  CHECK(p.joins[0].build_column == 0);  // sales.item
  CHECK(p.scan_filters[0] != nullptr);
  CHECK(p.scan_filters[1] != nullptr);
  CHECK(p.residual != nullptr);  // i.qty + s.amount > 0 needs both sides
  CHECK(p.aggregate);
  CHECK(p.keys.size() == 1);
  CHECK(p.aggs.size() == 2);
  CHECK(p.names == std::vector<std::string>{"name", "total", "count(*)"});
  REQUIRE(p.order.size() == 2);
  CHECK(p.order[0].output == 1);
  CHECK(p.order[0].desc);
  CHECK(p.order[1].output == 0);
  CHECK(*p.limit == 5);
  CHECK(p.offset == 1);
  const std::string e = p.explain(db);
  CHECK(e.find("join i.id = s.item") != std::string::npos);
  CHECK(e.find("aggregate group by") != std::string::npos);
}

TEST_CASE("db sql: types follow SQLite on typed columns") {
  const Database db = small_db();
  const Plan p = plan_sql("SELECT qty / 2, price * qty, qty > price, -qty, AVG(qty) FROM items GROUP BY qty, price", db);
  CHECK(p.outputs[0]->type == Type::Int);
  CHECK(p.outputs[1]->type == Type::Float);
  CHECK(p.outputs[2]->type == Type::Int);
  CHECK(p.outputs[3]->type == Type::Int);
  CHECK(p.outputs[4]->type == Type::Float);
}

TEST_CASE("db sql: malformed or unsupported SQL names line and column") {
  CHECK(error_of("SELECT id items") == "sql:1:16: expected FROM at the end of the query");
  CHECK(error_of("SELECT id FROM") == "sql:1:15: expected a table name at the end of the query");
  CHECK(error_of("SELECT id,\n  FROM items") == "sql:2:3: expected an expression, got keyword 'FROM'");
  CHECK(error_of("SELECT 'abc FROM items") == "sql:1:8: unterminated string literal");
  CHECK(error_of("SELECT id FROM items WHERE id # 2") == "sql:1:31: unexpected character '#'");
  CHECK(error_of("SELECT nope FROM items") == "sql:1:8: no column 'nope'");
  CHECK(error_of("SELECT id FROM nope") == "sql:1:16: no table 'nope' (tables: items, sales)");
  CHECK(error_of("SELECT name + 1 FROM items") == "sql:1:8: cannot apply '+' to text in 'name + 1'");
  CHECK(error_of("SELECT id FROM items WHERE name = 3") == "sql:1:28: cannot compare text with int in 'name = 3'");
  CHECK(error_of("SELECT id FROM items WHERE COUNT(*) > 1") == "sql:1:28: aggregates are not allowed in WHERE");
  CHECK(error_of("SELECT name, COUNT(*) FROM items") == "sql:1:8: column 'name' must appear in GROUP BY or inside an aggregate");
  CHECK(error_of("SELECT id FROM items ORDER BY 2") == "sql:1:31: ORDER BY term 2 is out of range (1..1)");
  CHECK(error_of("SELECT id FROM items i JOIN sales s ON i.qty > s.amount") ==
        "sql:1:40: JOIN ... ON needs an equality between a column of each table (t1.a = t2.b)");
  CHECK(error_of("SELECT id FROM items i JOIN sales s ON i.price = s.amount") ==
        "sql:1:40: join keys must both be int or both be text (got float and int)");
  CHECK(error_of("SELECT SUM(SUM(id)) FROM items") == "sql:1:8: aggregates cannot be nested");
  CHECK(error_of("SELECT FOO(id) FROM items") == "sql:1:8: unknown function 'FOO' (COUNT, SUM, MIN, MAX, AVG, abs, round, coalesce, ifnull, nullif, lower, upper, "
        "length, substr, substring, instr, date, strftime)");
  CHECK(error_of("SELECT id FROM items LIMIT x") == "sql:1:28: LIMIT expects a non-negative integer, got 'x'");
  CHECK(error_of("SELECT id FROM items extra junk") == "sql:1:28: unexpected 'junk' after the end of the query");
  CHECK(error_of("SELECT 12abc FROM items") == "sql:1:10: malformed number '12a'");
  CHECK(error_of("SELECT " + std::string(300, '(') + "1" + std::string(300, ')') + " FROM items")
            .find("nested too deeply") != std::string::npos);
}

TEST_CASE("db sql: every SQL form outside the subset is refused by name with line and column") {
  CHECK(error_of("SELECT CAST(id AS TEXT) FROM items") == "sql:1:8: CAST to TEXT is not supported (only to INTEGER or REAL types)");
  CHECK(error_of("SELECT CAST(name AS REAL) FROM items") == "sql:1:8: CAST of text AS REAL is not supported (only AS INTEGER)");
  CHECK(error_of("SELECT CASE id WHEN 1 THEN 2 ELSE 2.5 END FROM items") ==
        "sql:1:8: a CASE of int and float values as a result column is not supported ('CASE id WHEN 1 THEN 2 ELSE 2.5 "
        "END': SQLite gives each row its branch's type; make the ints floats, e.g. 0.0)");
  CHECK(error_of("SELECT CASE id WHEN 1 THEN 'a' ELSE 2.5 END FROM items") ==
        "sql:1:8: CASE values of different types (text and float) are not supported");
  CHECK(error_of("SELECT CASE id END FROM items") == "sql:1:16: expected WHEN, got 'END'");
  CHECK(error_of("SELECT coalesce(qty, price) FROM items") ==
        "sql:1:8: coalesce values of different types (int and float) are not supported");
  CHECK(error_of("SELECT coalesce(qty) FROM items") == "sql:1:8: coalesce() takes 2 or more arguments, not 1");
  CHECK(error_of("SELECT round(price, 2) FROM items") ==
        "sql:1:21: round() to digits after the point is not supported (only round(x) and round(x, 0))");
  CHECK(error_of("SELECT abs(name) FROM items") == "sql:1:8: abs() of text is not supported");
  CHECK(error_of("SELECT id FROM items HAVING name > 'a'") ==
        "sql:1:29: column 'name' must appear in GROUP BY or inside an aggregate");
  CHECK(error_of("SELECT id FROM items WHERE EXISTS (SELECT id FROM items)") ==
        "sql:1:28: subqueries need a device to run them first (IN (SELECT ...), EXISTS, (SELECT ...))");
  CHECK(error_of("SELECT (SELECT MAX(id) FROM items) FROM items") ==
        "sql:1:8: subqueries need a device to run them first (IN (SELECT ...), EXISTS, (SELECT ...))");
  CHECK(error_of("SELECT id FROM items, items i2 JOIN items i3 ON i3.id = i2.id") ==
        "sql:1:32: comma joins mixed with JOIN in one FROM are not supported (list every table with commas, or join every "
        "table with JOIN ... ON)");
  CHECK(error_of("SELECT id FROM items JOIN items i2 ON i2.id = items.id, items i3") ==
        "sql:1:55: comma joins mixed with JOIN in one FROM are not supported (list every table with commas, or join every "
        "table with JOIN ... ON)");
  CHECK(error_of("SELECT id FROM items WHERE name NOT LIKE price") ==
        "sql:1:42: NOT LIKE with a pattern other than a string literal is not supported");
  CHECK(error_of("SELECT id FROM items WHERE qty LIKE '3'") == "sql:1:32: LIKE of int is not supported (only of text)");
  CHECK(error_of("SELECT id FROM items WHERE name GLOB 'a*'") == "sql:1:33: GLOB is not supported");
  CHECK(error_of("SELECT SUM(DISTINCT id) FROM items") == "sql:1:12: SUM(DISTINCT ...) is not supported");
  CHECK(error_of("SELECT id FROM items UNION SELECT id FROM items") == "sql:1:22: UNION is not supported");
  CHECK(error_of("SELECT id FROM items EXCEPT SELECT id FROM items") == "sql:1:22: EXCEPT is not supported");
  CHECK(error_of("WITH RECURSIVE x AS (SELECT id FROM items) SELECT id FROM x") ==
        "sql:1:6: WITH RECURSIVE is not supported (only non-recursive WITH)");
  CHECK(error_of("WITH x AS (SELECT id FROM items) SELECT id FROM x") == "sql:1:6: WITH needs a device to run its tables first");
  const std::string modification = " changes a table, and a query is one SELECT: run it in `weft db shell` (or Session::query, weft.db)";
  CHECK(error_of("WITH x AS (SELECT id FROM items) DELETE FROM x") == "sql:1:34: DELETE" + modification);
  CHECK(error_of("DELETE FROM items") == "sql:1:1: DELETE" + modification);
  CHECK(error_of("CREATE TABLE x (a int)") == "sql:1:1: CREATE is not supported (one SELECT statement only)");
  CHECK(error_of("SELECT name || name FROM items") ==
        "sql:1:8: '||' of two non-constant values is not supported (only a value with constant text: x || 'lit')");
  CHECK(error_of("SELECT COUNT(*) OVER () FROM items") ==
        "sql:1:17: window functions and aggregate FILTER (OVER) are not supported");
  CHECK(error_of("SELECT id distinct FROM items") == "sql:1:11: expected FROM, got 'distinct'");
}

TEST_CASE("db sql: /* */ comments and ALL are accepted, as in SQLite") {
  const Database db = small_db();
  const Plan p = plan_sql("SELECT /* the key */ ALL id, /* a\nmultiline */ SUM(ALL qty) -- total\nFROM items GROUP BY id /* open", db);
  CHECK(p.names == std::vector<std::string>{"id", "SUM(ALL qty)"});
  CHECK(p.aggs.size() == 1);
  CHECK(error_of("SELECT id /* x */ nope FROM items /* y */ WHERE") == "sql:1:48: expected an expression at the end of the query");
}

// Operator chains are parsed by loops, so their height is bounded separately: a chain of 60000
// terms overflowed the stack in the planner (and kept one copy of its text per node) before.
TEST_CASE("db sql: long operator chains are refused with line and column, not a stack overflow") {
  auto chain = [](const std::string& op, size_t n) {
    std::string s = "1";
    for (size_t k = 1; k < n; ++k) s += op + "1";
    return s;
  };
  const std::string deep = "(more than 1000 levels of operators)";
  CHECK(error_of("SELECT " + chain("+", 60000) + " FROM items") == "sql:1:8: expression nested too deeply " + deep);
  CHECK(error_of("SELECT id FROM items\nWHERE " + chain(" AND ", 20000)) == "sql:2:7: expression nested too deeply " + deep);
  CHECK(error_of("SELECT id FROM items ORDER BY " + chain("<", 5000)) == "sql:1:31: expression nested too deeply " + deep);
  CHECK(error_of("SELECT SUM(" + chain("*", 3000) + ") FROM items") == "sql:1:12: expression nested too deeply " + deep);
  // Below the bound the chain parses, and the bytecode limit refuses it.
  const Database db = small_db();
  const Plan p = plan_sql("SELECT " + chain("-", 900) + " FROM items", db);
  CHECK_THROWS_WITH_AS(compile_expr(*p.outputs[0], [](uint32_t s, uint32_t c) { return s * 64 + c; }),
                       doctest::Contains("more than 256"), Error);
}

// The fuzz targets' calls (workloads/db/fuzz): any input plans or throws weft::Error.
TEST_CASE("db sql/csv: fuzz regressions load or fail cleanly") {
  namespace fs = std::filesystem;
  const Database db = small_db();
  size_t n = 0;
  for (const auto& entry : fs::directory_iterator(WEFT_DB_FUZZ_REGRESSIONS)) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str(), name = entry.path().filename().string();
    if (name.rfind("wdb-", 0) == 0) continue;  // .wdb files: test_wdb.cpp replays them
    INFO(name);
    if (name.rfind("sql-", 0) == 0) {
      try {
        const Plan p = plan_sql(text, db);
        for (const auto& o : p.outputs) compile_expr(*o, [](uint32_t s, uint32_t c) { return s * 64 + c; });
        (void)p.explain(db);
      } catch (const Error&) {
      }
    } else {
      try {
        Database d;
        d.add(load_csv(text, "t", "fuzz.csv"));
      } catch (const Error&) {
      }
    }
    ++n;
  }
  CHECK(n > 0);
}

// LIKE is a set test over the dictionary: the pattern runs on the host once per distinct string,
// and the bytecode holds one instruction and a bitmap, whatever the dictionary's size.
TEST_CASE("db sql: LIKE compiles to one set test over the dictionary, COUNT(DISTINCT) to a distinct aggregate") {
  Table t;
  t.name = "big";
  t.rows = 100000;
  Column c;
  c.name = "s";
  c.type = Type::Text;
  c.nulls.assign(t.rows, 0);
  for (size_t r = 0; r < t.rows; ++r) c.strings.push_back(std::string("w").append(std::to_string(r)));
  t.columns.push_back(std::move(c));
  Database db;
  db.add(std::move(t));
  const Plan p = plan_sql("SELECT s LIKE '%9', COUNT(DISTINCT s), COUNT(s) FROM big WHERE s NOT LIKE 'W1%' GROUP BY s LIKE '%9'", db);
  REQUIRE(p.scan_filters[0]);
  CHECK(p.scan_filters[0]->kind == BExpr::InSet);
  CHECK(p.scan_filters[0]->negated);
  REQUIRE(p.keys.size() == 1);
  const BExpr& like = *p.keys[0];
  REQUIRE(like.kind == BExpr::InSet);
  CHECK(!like.negated);
  size_t matches = 0;
  for (uint32_t w : *like.set) matches += size_t(std::popcount(w));
  CHECK(matches == 10000);  // w9, w19, ..., w99999
  const Bytecode b = compile_expr(like, [](uint32_t, uint32_t c) { return c; });
  CHECK(b.instructions == 2);  // load, set test
  CHECK(b.words.size() == 2 * DB_INSTR_WORDS + (100000 + 31) / 32);
  REQUIRE(p.aggs.size() == 2);
  CHECK(p.aggs[0].distinct);
  CHECK(!p.aggs[1].distinct);
  const std::string plan = p.explain(db);
  CHECK(plan.find("key0=(big.s LIKE '%9')") != std::string::npos);
  CHECK(plan.find("agg0=COUNT(DISTINCT big.s)") != std::string::npos);
}
