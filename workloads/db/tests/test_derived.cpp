// Derived tables (FROM (SELECT ...) alias) and WITH: each inner query runs first on the device and
// its rows become a table the outer query reads; every query is held to SQLite on the same
// tables, names of the result columns included: int, float and text columns (text from a column
// and from a text function), NULLs, empty results, derived tables beside base tables in comma
// joins and JOIN ... ON, nested ones, in subqueries, WITH entries named twice and read by later
// entries, and the refusals.
#include <doctest/doctest.h>

#include <string>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::check_query;
using weft::db::test::device;
using weft::db::test::prepare_error;
using weft::db::test::ValidationClean;

namespace {

// t: ints, floats and text with NULLs in each; u: a lookup table keyed by t.g.
Database& derived_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,g,k,f,s\n1,1,10,1.5,apple\n2,1,,2.5,banana\n3,2,30,,cherry\n4,2,40,4.0,\n5,3,50,-1.0,apple\n"
                   "6,,60,6.5,date\n7,3,70,0.0,banana\n",
                   "t", "t.csv"));
    d.add(load_csv("g,name\n1,one\n2,two\n3,three\n4,four\n", "u", "u.csv"));
    return d;
  }();
  return db;
}

Sqlite& derived_peer() {
  static Sqlite peer(derived_db());
  return peer;
}

void check(const std::string& sql) { check_query(derived_db(), derived_peer(), sql); }

std::string error_of(const std::string& sql) { return prepare_error(derived_db(), sql); }

}  // namespace

TEST_CASE("db derived: a derived table is grouped, filtered and ordered by the outer query as SQLite does") {
  ValidationClean clean;
  check("SELECT g2, SUM(v) AS total, COUNT(*) FROM (SELECT g * 2 AS g2, k AS v FROM t) AS d GROUP BY g2 ORDER BY g2");
  check("SELECT id, half FROM (SELECT id, f / 2 AS half FROM t WHERE f IS NOT NULL) d WHERE half > 0.5 ORDER BY id");
  check("SELECT * FROM (SELECT id, k, f, s FROM t)");  // no alias, SELECT *
  check("SELECT n, COUNT(*) FROM (SELECT g, COUNT(k) AS n FROM t GROUP BY g) AS per GROUP BY n ORDER BY n");
}

TEST_CASE("db derived: text columns stay text in the outer query: compared, grouped, sorted, LIKE and functions") {
  ValidationClean clean;
  check("SELECT s, COUNT(*) FROM (SELECT s FROM t) x GROUP BY s ORDER BY s");
  check("SELECT id FROM (SELECT id, s FROM t) x WHERE s > 'b' AND s LIKE '%an%' ORDER BY id");
  check("SELECT upper(s), length(s) FROM (SELECT s FROM t WHERE s IS NOT NULL) x ORDER BY 1");
  // Text a text function made inside, compared with a literal the outer query brings.
  check("SELECT p, SUM(k) FROM (SELECT substr(s, 1, 2) AS p, k FROM t) x WHERE p <> 'ba' GROUP BY p ORDER BY p");
}

TEST_CASE("db derived: NULLs and empty results pass through unchanged") {
  ValidationClean clean;
  check("SELECT id, k, f, s, k IS NULL FROM (SELECT id, k, f, s FROM t) x ORDER BY id");
  check("SELECT COUNT(*), SUM(k), MAX(s) FROM (SELECT k, s FROM t WHERE id > 100) x");
  check("SELECT * FROM (SELECT g, MAX(f) AS m FROM t WHERE f IS NULL GROUP BY g) x");
  check("SELECT m IS NULL, COUNT(*) FROM (SELECT g, MAX(f) AS m FROM t GROUP BY g) x GROUP BY m IS NULL");
  // A NaN the inner query computes (inf - inf) is NULL in its result, as SQLite stores it.
  check("SELECT id, n, n IS NULL FROM (SELECT id, f * 1e308 * 10 - f * 1e308 * 10 AS n FROM t) x ORDER BY id");
  check("SELECT COUNT(n), SUM(n) FROM (SELECT f * 1e308 * 10 - f * 1e308 * 10 AS n FROM t) x");
}

TEST_CASE("db derived: a derived table joins base tables with commas and with JOIN ... ON") {
  ValidationClean clean;
  check("SELECT name, total FROM u, (SELECT g, SUM(k) AS total FROM t GROUP BY g) AS s WHERE u.g = s.g ORDER BY name");
  check("SELECT u.name, x.id FROM (SELECT id, g FROM t WHERE k > 20) x JOIN u ON x.g = u.g ORDER BY x.id");
  check("SELECT u.name, x.n FROM u LEFT JOIN (SELECT g, COUNT(*) AS n FROM t GROUP BY g) x ON u.g = x.g ORDER BY u.g");
}

TEST_CASE("db derived: derived tables nest, and sit inside subqueries") {
  ValidationClean clean;
  check("SELECT MAX(t2) FROM (SELECT g, SUM(k2) AS t2 FROM (SELECT g, k * 2 AS k2 FROM t) a GROUP BY g) b");
  check("SELECT id FROM t WHERE g IN (SELECT g FROM (SELECT g, COUNT(*) AS c FROM t GROUP BY g) x WHERE c > 1) ORDER BY id");
  check("SELECT id FROM t WHERE k > (SELECT AVG(v) FROM (SELECT k AS v FROM t WHERE g = 2) x) ORDER BY id");
}

TEST_CASE("db derived: an inner ORDER BY with LIMIT chooses the rows the outer query reads") {
  ValidationClean clean;
  check("SELECT SUM(k), COUNT(*) FROM (SELECT k FROM t WHERE k IS NOT NULL ORDER BY k DESC LIMIT 3) x");
  check("SELECT s FROM (SELECT s, id FROM t ORDER BY id LIMIT 2 OFFSET 3) x ORDER BY s");
}

TEST_CASE("db derived: result columns are named by alias, bare column or expression text, as in SQLite") {
  ValidationClean clean;
  check("SELECT * FROM (SELECT t.id, k + 1, f AS ff FROM t) x");
  check("SELECT \"k + 1\" FROM (SELECT k + 1 FROM t) x");  // an unnamed expression is named by its text
  CHECK(error_of("SELECT k1 FROM (SELECT k + 1 FROM t) x") == "bad input: sql:1:8: no column 'k1'");
}

TEST_CASE("db with: a common table is read like a table, twice in one query, and by later entries") {
  ValidationClean clean;
  check("WITH big AS (SELECT id, k FROM t WHERE k > 20) SELECT id FROM big ORDER BY id");
  // Named in FROM and in a scalar subquery (TPC-H Q15's shape), with a column list.
  check("WITH r (grp, total) AS (SELECT g, SUM(k) FROM t GROUP BY g) "
        "SELECT name, total FROM u, r WHERE u.g = grp AND total = (SELECT MAX(total) FROM r)");
  check("WITH a AS (SELECT g, k FROM t WHERE k IS NOT NULL), b AS (SELECT g, COUNT(*) AS n FROM a GROUP BY g) "
        "SELECT b.g, n, name FROM b JOIN u ON b.g = u.g ORDER BY b.g");
  check("WITH a AS (SELECT s FROM t) SELECT x.s, y.s FROM a x JOIN a y ON x.s = y.s ORDER BY x.s");
  check("WITH u AS (SELECT g + 10 AS g, s AS name FROM t WHERE id < 3) SELECT * FROM u");  // a common table hides a table of its name
}

TEST_CASE("db with: WITH RECURSIVE, column lists of another length and duplicate names are refused by name") {
  CHECK(error_of("WITH RECURSIVE c(x) AS (SELECT 1) SELECT x FROM c") ==
        "bad input: sql:1:6: WITH RECURSIVE is not supported (only non-recursive WITH)");
  CHECK(error_of("WITH r (a, b, c) AS (SELECT g, k FROM t) SELECT a FROM r") ==
        "bad input: sql:1:6: table r has 2 values for 3 columns");
  CHECK(error_of("SELECT * FROM (SELECT k, k FROM t) x") ==
        "bad input: sql:1:15: the derived table has two columns named 'k' (give them distinct aliases)");
}

TEST_CASE("db derived: without a device a derived table or WITH is refused, not planned") {
  Database db = derived_db();
  CHECK_THROWS_WITH(prepare_sql("SELECT * FROM (SELECT id FROM t) x", db),
                    "bad input: sql:1:15: derived tables and WITH need a device to run them first");
  CHECK_THROWS_WITH(prepare_sql("WITH a AS (SELECT id FROM t) SELECT * FROM a", db),
                    "bad input: sql:1:6: derived tables and WITH need a device to run them first");
  CHECK_THROWS_WITH(plan_sql("SELECT * FROM (SELECT id FROM t) x", db),
                    "bad input: sql:1:15: derived tables need a device to run them first");
}
