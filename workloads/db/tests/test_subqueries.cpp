// Uncorrelated subqueries: x [NOT] IN (SELECT ...) and [NOT] EXISTS (SELECT ...), each subquery
// run first on the device (its own program and submission), each query held to SQLite on the
// same tables: SQLite's three-valued IN with NULLs on either side, empty subqueries, duplicates,
// int / float / text keys, IN nested in AND / OR / NOT / CASE, in joins and HAVING, subqueries
// of subqueries, the refusals (correlated, several columns, text against numbers), and a seeded
// differential of random IN / NOT IN queries.
#include <doctest/doctest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::check_query;
using weft::db::test::device;
using weft::db::test::ValidationClean;
using weft::db::test::prepare_error;

namespace {

// t: the outer table; u: the subqueries' (NULLs, duplicates, values t lacks, -0.0, 2^53 + 1);
// e: no rows; n: NULLs only.
Database& sub_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,k,f,s\n1,1,1.0,a\n2,2,2.5,b\n3,,3.0,c\n4,4,,\n5,5,0.0,a\n6,9007199254740993,9007199254740992.0,d\n"
                   "7,7,-1.5,e\n8,2,2.0,b\n",
                   "t", "t.csv"));
    d.add(load_csv("k,f,s\n1,2.0,a\n2,2.5,b\n2,-0.0,b\n,1.0,\n4,9007199254740992.0,z\n6,,c\n9007199254740992,4.0,a\n",
                   "u", "u.csv"));
    d.add(load_csv("k,f,s\n", "e", "e.csv", parse_schema("k:int,f:float,s:text")));
    d.add(load_csv("k,f,s\n,,\n,,\n", "n", "n.csv", parse_schema("k:int,f:float,s:text")));
    return d;
  }();
  return db;
}

Sqlite& sub_peer() {
  static Sqlite peer(sub_db());
  return peer;
}

void check(const std::string& sql) { check_query(sub_db(), sub_peer(), sql); }

std::string error_of(const std::string& sql) { return prepare_error(sub_db(), sql); }

}  // namespace

TEST_CASE("db subqueries: x IN / NOT IN (SELECT ...) follow SQLite's three-valued rule, NULLs on both sides") {
  ValidationClean clean;
  // In the select list the NULL results show: a NULL x, or a miss when the subquery has a NULL.
  check("SELECT id, k IN (SELECT k FROM u), k NOT IN (SELECT k FROM u) FROM t");
  check("SELECT id, k IN (SELECT k FROM u WHERE k IS NOT NULL), k NOT IN (SELECT k FROM u WHERE k IS NOT NULL) FROM t");
  check("SELECT id FROM t WHERE k IN (SELECT k FROM u)");
  check("SELECT id FROM t WHERE k NOT IN (SELECT k FROM u)");  // u.k has a NULL: no row passes
  check("SELECT id FROM t WHERE k NOT IN (SELECT k FROM u WHERE k IS NOT NULL)");
  // Only NULLs: IN is NULL for every x (never true, NOT IN never true either).
  check("SELECT id, k IN (SELECT k FROM n), k NOT IN (SELECT k FROM n), k IN (SELECT k FROM u WHERE k IS NULL) FROM t");
  check("SELECT NULL IN (SELECT k FROM u), NULL NOT IN (SELECT k FROM u), NULL IN (SELECT k FROM n) FROM t");
}

TEST_CASE("db subqueries: an empty subquery makes IN false and NOT IN true, even for a NULL x") {
  ValidationClean clean;
  check("SELECT id, k IN (SELECT k FROM e), k NOT IN (SELECT k FROM e), NULL IN (SELECT k FROM e), "
        "NULL NOT IN (SELECT k FROM e) FROM t");
  check("SELECT id, s IN (SELECT s FROM u WHERE k > 1000), f NOT IN (SELECT f FROM u WHERE k > 1000) FROM t");
  check("SELECT id FROM t WHERE k NOT IN (SELECT k FROM e)");
  check("SELECT id FROM t WHERE k IN (SELECT k FROM e)");
}

TEST_CASE("db subqueries: duplicates in the subquery do not repeat outer rows") {
  ValidationClean clean;
  check("SELECT id, k FROM t WHERE k IN (SELECT k FROM u)");  // u.k holds 2 twice; t holds k = 2 twice
  check("SELECT COUNT(*), SUM(id) FROM t WHERE s IN (SELECT s FROM u)");
  check("SELECT id FROM t WHERE k IN (SELECT u.k FROM u, u x WHERE x.k = u.k)");  // the subquery's join fans out
}

TEST_CASE("db subqueries: int, float and text keys compare as SQLite compares them") {
  ValidationClean clean;
  // Int against float by value: 2 equals 2.0, 2^53 + 1 does not equal 2^53 as a double, -0.0 is 0.0.
  check("SELECT id, k IN (SELECT f FROM u), k NOT IN (SELECT f FROM u WHERE f IS NOT NULL) FROM t");
  check("SELECT id, f IN (SELECT k FROM u), f NOT IN (SELECT k FROM u WHERE k IS NOT NULL) FROM t");
  check("SELECT id, f IN (SELECT f FROM u), f NOT IN (SELECT f FROM u) FROM t");
  check("SELECT id, k IN (SELECT k FROM u WHERE k > 100) FROM t");  // 2^53 + 1 against 2^53
  check("SELECT id, s IN (SELECT s FROM u), s NOT IN (SELECT s FROM u WHERE s IS NOT NULL) FROM t");
  check("SELECT id, 'z' IN (SELECT s FROM u), 'zz' IN (SELECT s FROM u) FROM t");  // 'zz' is no data string
  check("SELECT id, k * 2 IN (SELECT k + 2 FROM u), f / 2 IN (SELECT f FROM u) FROM t");
}

TEST_CASE("db subqueries: IN nested in AND, OR, NOT and CASE, in joins, groups and HAVING") {
  ValidationClean clean;
  const char* queries[] = {
      "SELECT id FROM t WHERE NOT (k IN (SELECT k FROM u)) OR s = 'a'",
      "SELECT id FROM t WHERE k NOT IN (SELECT k FROM u WHERE k IS NOT NULL) AND f > 0",
      "SELECT id FROM t WHERE NOT (k NOT IN (SELECT k FROM u)) AND (s IN (SELECT s FROM u) OR f IS NULL)",
      "SELECT id, CASE WHEN k IN (SELECT k FROM u) THEN 'in' WHEN k NOT IN (SELECT k FROM u) THEN 'out' ELSE 'null' END FROM t",
      "SELECT s, COUNT(*) FROM t WHERE k IN (SELECT k FROM u) GROUP BY s ORDER BY s",
      "SELECT s, COUNT(*) FROM t GROUP BY s HAVING COUNT(*) IN (SELECT k FROM u) ORDER BY s",
      "SELECT k IN (SELECT k FROM u), COUNT(*) FROM t GROUP BY k IN (SELECT k FROM u)",
      "SELECT t.id, x.id FROM t JOIN t x ON x.s = t.s WHERE x.k IN (SELECT k FROM u) AND t.f NOT IN (SELECT f FROM e)",
      "SELECT t.id, x.id FROM t JOIN t x ON x.s = t.s AND x.k IN (SELECT k FROM u) AND t.k NOT IN (SELECT k FROM u WHERE k > 3)",
      "SELECT t.id, u.k FROM t LEFT JOIN u ON u.k = t.k AND u.s IN (SELECT s FROM t WHERE id < 4)",
      // The subqueries' own clauses: GROUP BY, HAVING, DISTINCT, ORDER BY with LIMIT, and a
      // subquery inside a subquery.
      "SELECT id FROM t WHERE k IN (SELECT k FROM u GROUP BY k HAVING COUNT(*) > 1)",
      "SELECT id FROM t WHERE k IN (SELECT DISTINCT k FROM u WHERE k IS NOT NULL ORDER BY k DESC LIMIT 2)",
      "SELECT id FROM t WHERE s IN (SELECT s FROM u WHERE k IN (SELECT k FROM t WHERE f > 1))",
      "SELECT id FROM t WHERE k IN (SELECT MAX(k) FROM u)",
  };
  for (const char* sql : queries) check(sql);
}

TEST_CASE("db subqueries: uncorrelated EXISTS and NOT EXISTS") {
  ValidationClean clean;
  check("SELECT id FROM t WHERE EXISTS (SELECT * FROM u WHERE k > 3)");
  check("SELECT id FROM t WHERE NOT EXISTS (SELECT * FROM u WHERE k > 3)");
  check("SELECT id, EXISTS (SELECT k FROM e), NOT EXISTS (SELECT k FROM e), EXISTS (SELECT k FROM n) FROM t");
  check("SELECT id FROM t WHERE EXISTS (SELECT k FROM e) OR k = 2");
}

TEST_CASE("db subqueries: the subquery runs while planning; its distinct values enter the plan, the query is one submission") {
  ValidationClean clean;
  const db::Plan plan = prepare_sql("SELECT id FROM t WHERE k NOT IN (SELECT k FROM u) OR f IN (SELECT k FROM u)", sub_db(), device());
  const std::string explain = plan.explain(sub_db());
  INFO(explain);
  // u.k: 7 rows, one NULL, 2 twice: 5 distinct ints; as doubles 9007199254740992 still is one.
  CHECK(explain.find("(t.k NOT IN (SELECT ...): 7 rows, 5 distinct values, NULL)") != std::string::npos);
  CHECK(explain.find("(t.f IN (SELECT ...): 7 rows, 5 distinct values, NULL)") != std::string::npos);
  DeviceQuery q(device(), sub_db(), plan);
  CHECK(compare_results(q.run(), sub_peer().query("SELECT id FROM t WHERE k NOT IN (SELECT k FROM u) OR f IN (SELECT k FROM u)"),
                        false, 0) == "");
  CHECK(q.stats().submissions == 1);
}

TEST_CASE("db subqueries: sets of thousands of values (every binary-search path) agree with SQLite") {
  ValidationClean clean;
  // big: 4000 rows, k = 0..3999, f = k / 4, s = one of 997 strings; mult: every 3rd k (2100
  // values, past big's range too), halves, and the even-numbered strings.
  Database db;
  std::ostringstream big, mult;
  big << "k,f,s\n";
  for (int i = 0; i < 4000; ++i) big << i << "," << i / 4.0 << ",w" << (i * 31) % 997 << "\n";
  mult << "k,f,s\n";
  for (int i = 0; i < 2100; ++i) mult << 3 * i << "," << i * 0.5 << ",w" << i % 500 * 2 << "\n";
  db.add(load_csv(big.str(), "big", "big.csv"));
  db.add(load_csv(mult.str(), "mult", "mult.csv"));
  Sqlite peer(db);
  for (const char* sql : {"SELECT COUNT(*), SUM(k) FROM big WHERE k IN (SELECT k FROM mult)",
                          "SELECT COUNT(*), SUM(k) FROM big WHERE k NOT IN (SELECT k FROM mult)",
                          "SELECT COUNT(*), SUM(k) FROM big WHERE f IN (SELECT f FROM mult)",
                          "SELECT COUNT(*), SUM(k) FROM big WHERE k IN (SELECT f FROM mult) OR f IN (SELECT k FROM mult)",
                          "SELECT COUNT(DISTINCT s), MIN(s), MAX(s) FROM big WHERE s NOT IN (SELECT s FROM mult)",
                          "SELECT COUNT(*), MIN(s) FROM big WHERE s IN (SELECT s FROM mult)"}) {
    INFO(sql);
    check_query(db, peer, sql);
    CHECK(peer.query(sql).rows[0][0].i > 0);  // none vacuous: every IN matches, every NOT IN keeps rows
  }
}

TEST_CASE("db subqueries: an uncorrelated scalar subquery is a value, NULL when it has no row, as SQLite") {
  ValidationClean clean;
  check("SELECT id FROM t WHERE f > (SELECT AVG(f) FROM u)");                       // a float aggregate
  check("SELECT id, k - (SELECT MIN(k) FROM u) FROM t");                           // in the select list
  check("SELECT id FROM t WHERE k = (SELECT MAX(k) FROM u WHERE k < 5)");          // an int
  check("SELECT id FROM t WHERE s = (SELECT s FROM u WHERE k = 6)");                // text, one row
  check("SELECT id FROM t WHERE k = (SELECT k FROM e) OR k IS NULL");               // no row: NULL
  check("SELECT id, (SELECT k FROM n LIMIT 1) IS NULL FROM t");                     // a NULL row
  check("SELECT id FROM t WHERE f < (SELECT SUM(f) FROM u WHERE f IS NOT NULL) / 4");
  check("SELECT s, COUNT(*) FROM t GROUP BY s HAVING COUNT(*) >= (SELECT COUNT(*) FROM u WHERE s = 'a')");
  check("SELECT id FROM t WHERE k IN (SELECT k FROM u WHERE k > (SELECT MIN(k) FROM u))");  // nested
}

TEST_CASE("db subqueries: a scalar subquery of several rows, or columns, or reading the outer query is refused by name") {
  CHECK(error_of("SELECT id FROM t WHERE k = (SELECT k FROM u)") ==
        "bad input: sql:1:28: the scalar subquery returned 7 rows; Weft takes at most one (SQLite would take the first, which is "
        "not defined without a total ORDER BY)");
  CHECK(error_of("SELECT id FROM t WHERE k = (SELECT k, f FROM u WHERE k = 1)") ==
        "bad input: sql:1:28: a scalar subquery must select one column, not 2");
  // Correlated by a float key (correlated scalar subqueries: test_correlated.cpp).
  CHECK(error_of("SELECT id FROM t WHERE k = (SELECT MAX(k) FROM u WHERE u.f = t.f)") ==
        "bad input: sql:1:56: a correlated equality on float ('u.f') is not supported (only int = int or text = text)");
}

// Correlated IN subqueries of equalities inner = outer are decorrelated (test_correlated.cpp).
TEST_CASE("db subqueries: IN subqueries correlated otherwise, several columns and text against numbers are refused by name") {
  CHECK(error_of("SELECT id FROM t WHERE k IN (SELECT k FROM u WHERE u.f = t.f)") ==
        "bad input: sql:1:52: a correlated equality on float ('u.f') is not supported (only int = int or text = text)");
  CHECK(error_of("SELECT id FROM t WHERE k IN (SELECT k FROM u WHERE id > 1)") ==
        "bad input: sql:1:52: correlated condition 'id > 1' is not supported (each side must read only the subquery's tables "
        "or only the enclosing query's)");
  CHECK(error_of("SELECT id FROM t WHERE k IN (SELECT k FROM u WHERE s IN (SELECT s FROM e WHERE e.k = t.id))") ==
        "bad input: sql:1:86: correlated subqueries are not supported ('t.id' reads a table of the enclosing query)");
  CHECK(error_of("SELECT id FROM t WHERE k IN (SELECT k, f FROM u)") ==
        "bad input: sql:1:24: IN (SELECT ...) must select one column, not 2");
  CHECK(error_of("SELECT id FROM t WHERE s IN (SELECT k FROM u)") ==
        "bad input: sql:1:24: cannot compare text with int in 's IN (SELECT k FROM u)'");
  CHECK(error_of("SELECT id FROM t WHERE k IN (SELECT k FROM nowhere)").find("no table 'nowhere'") != std::string::npos);
}

// Random outer and inner tables (int, float and text columns over few values, NULLs, an empty
// table now and then) and random queries with one or two IN / NOT IN subqueries of matching type.
namespace {

Database random_sub_tables(std::mt19937& rng) {
  Database db;
  const char* words[] = {"p", "q", "r", "s"};
  for (int t = 0; t < 3; ++t) {
    std::ostringstream csv;
    csv << "a,b,f,s\n";
    const int rows = rng() % 10 == 0 ? 0 : 3 + int(rng() % 12);
    auto val = [&](int range) { return rng() % 7 == 0 ? std::string() : std::to_string(int(rng() % range)); };
    for (int r = 0; r < rows; ++r) {
      const std::string f = rng() % 7 == 0 ? std::string() : std::to_string(int(rng() % 8) - 2) + (rng() % 2 ? ".5" : ".0");
      csv << val(6) << "," << val(10) << "," << f << "," << (rng() % 7 == 0 ? "" : words[rng() % 4]) << "\n";
    }
    db.add(load_csv(csv.str(), "t" + std::to_string(t), "t.csv", parse_schema("a:int,b:int,f:float,s:text")));
  }
  return db;
}

std::string random_in(std::mt19937& rng) {
  auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
  auto table = [&] { return "t" + std::to_string(pick(3)); };
  const char* numbers[] = {"a", "b", "f"};
  const bool text = pick(4) == 0;
  auto operand = [&] { return text ? std::string("s") : std::string(numbers[pick(3)]); };
  std::string inner = "SELECT " + operand() + " FROM " + table();
  switch (pick(5)) {
    case 0: inner += " WHERE a > " + std::to_string(pick(5)); break;
    case 1: inner += " WHERE " + operand() + " IS NOT NULL"; break;
    case 2: inner += " WHERE b < 0"; break;  // empty
    default: break;
  }
  return operand() + (pick(2) ? " NOT IN (" : " IN (") + inner + ")";
}

std::string random_sub_query(std::mt19937& rng) {
  auto pick = [&](int n) { return int(rng() % uint32_t(n)); };
  std::string cond = random_in(rng);
  if (pick(3) == 0) cond = (pick(2) ? "NOT (" : "(") + cond + ")" + (pick(2) ? " OR " : " AND ") + random_in(rng);
  const std::string from = " FROM t" + std::to_string(pick(3));
  switch (pick(3)) {
    case 0: return "SELECT a, b, f, s, " + cond + from;  // the truth values, NULLs shown
    case 1: return "SELECT s, COUNT(*), SUM(b) " + from + " WHERE " + cond + " GROUP BY s";
    default: return "SELECT a, f, s" + from + " WHERE " + cond;
  }
}

}  // namespace

TEST_CASE("db subqueries: 300 random IN / NOT IN subquery queries agree with SQLite row for row") {
  ValidationClean clean;
  std::mt19937 rng(20261129);
  int queries = 0, nonempty = 0, nulls = 0;
  for (int d = 0; d < 30; ++d) {
    Database db = random_sub_tables(rng);
    Sqlite peer(db);
    for (int k = 0; k < 10; ++k, ++queries) {
      const std::string sql = random_sub_query(rng);
      QueryOptions o;
      if (queries % 5) o.columns = QueryOptions::Columns::InWindow;
      check_query(db, peer, sql, o);
      const ResultSet ref = peer.query(sql);
      nonempty += ref.rows.empty() ? 0 : 1;
      for (const Row& r : ref.rows) nulls += r.size() == 5 && r[4].null;
      if (getenv("WEFT_DB_SHOW_RANDOM_SUBQUERIES")) MESSAGE(ref.rows.size() << " rows: " << sql);
    }
  }
  CHECK(queries == 300);
  MESSAGE(nonempty << " of 300 random subquery queries return rows; " << nulls << " NULL truth values shown");
  CHECK(nonempty >= 150);  // not mostly empty
  CHECK(nulls >= 50);      // the three-valued cases are exercised
}
