// SQL forms beyond the first subset, each against SQLite on a table with NULLs in every column
// type and floats whose arithmetic makes NaN (NULL in SQLite): BETWEEN, IN (list) and DISTINCT.
#include <doctest/doctest.h>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::ValidationClean;

namespace {

Database& dialect_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,k,f,s\n"
                   "1,1,1.5,a\n"
                   "2,,2.5,b\n"
                   "3,2,,\n"
                   "4,2,-4.0,\"\"\n"
                   "5,,,a\n"
                   "6,3,1e300,\n"
                   "7,1,-1e300,b\n"
                   "8,4,8.0,\"\"\n"
                   "9,,-9.5,c\n"
                   "10,3,2.5,c\n"
                   "11,9007199254740993,9007199254740992.0,a\n",
                   "t", "t.csv"));
    return d;
  }();
  return db;
}

QueryStats check(const std::string& sql) {
  static Sqlite peer(dialect_db());
  return weft::db::test::check_query(dialect_db(), peer, sql);
}

std::string error_of(const std::string& sql) {
  try {
    prepare_sql(sql, dialect_db());
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("db dialect: [NOT] BETWEEN agrees with SQLite, NULLs and NaN included") {
  ValidationClean clean;
  check("SELECT id FROM t WHERE k BETWEEN 1 AND 2");
  check("SELECT id FROM t WHERE k NOT BETWEEN 1 AND 2");
  check("SELECT id FROM t WHERE f BETWEEN -5 AND 2.5 AND id > 1");
  check("SELECT id FROM t WHERE s BETWEEN 'a' AND 'b'");
  check("SELECT id, k BETWEEN NULL AND 3, k BETWEEN 0 AND NULL, f BETWEEN k AND 10, NOT k BETWEEN 2 AND 3 FROM t");
  check("SELECT id, f * f - f * f BETWEEN -1 AND 1, k BETWEEN 9007199254740992.0 AND 9007199254740992.5 FROM t");
  check("SELECT k BETWEEN 1 AND 2 AS b, COUNT(*) FROM t GROUP BY k BETWEEN 1 AND 2 ORDER BY b");
}

TEST_CASE("db dialect: [NOT] IN (list) agrees with SQLite, NULLs and NaN included") {
  ValidationClean clean;
  check("SELECT id FROM t WHERE k IN (1, 3, 5)");
  check("SELECT id FROM t WHERE k NOT IN (1, 3, 5)");
  check("SELECT id FROM t WHERE k NOT IN (1, NULL)");  // never true: NULL in the list
  check("SELECT id, k IN (2, NULL), k IN (2), f IN (2.5, -4), s IN ('a', 'c'), s NOT IN ('', 'b') FROM t");
  check("SELECT id FROM t WHERE f * f - f * f IN (0.0, 1.0) OR f IN (k, id)");
  check("SELECT id FROM t WHERE k IN (9007199254740992.0) OR k IN (9007199254740993)");
  check("SELECT COUNT(*), SUM(f) FROM t WHERE id IN (1, 2, 3, 4, 6, 7) AND s NOT IN ('b')");
  CHECK(error_of("SELECT id FROM t WHERE k IN ()") == "bad input: sql:1:30: an empty IN list is not supported");
  CHECK(error_of("SELECT id FROM t WHERE k IN (SELECT k FROM t)") == "bad input: sql:1:30: IN (subquery) is not supported");
}

TEST_CASE("db dialect: SELECT DISTINCT agrees with SQLite (NULLs one row, NaN is NULL)") {
  ValidationClean clean;
  check("SELECT DISTINCT k FROM t");
  check("SELECT DISTINCT s FROM t ORDER BY s");
  check("SELECT DISTINCT k, s FROM t ORDER BY k DESC, s");
  check("SELECT DISTINCT f * f - f * f AS x FROM t ORDER BY x");
  check("SELECT DISTINCT k % 2, s IS NULL FROM t ORDER BY 1, 2 LIMIT 3");
  check("SELECT DISTINCT 1, k > 1 FROM t WHERE id < 9");
  CHECK(error_of("SELECT DISTINCT * FROM t") == "bad input: sql:1:8: SELECT DISTINCT * (name the columns) is not supported");
  CHECK(error_of("SELECT DISTINCT COUNT(*) FROM t") ==
        "bad input: sql:1:8: SELECT DISTINCT with GROUP BY or aggregates is not supported");
  CHECK(error_of("SELECT DISTINCT k FROM t ORDER BY id") ==
        "bad input: sql:1:35: ORDER BY of SELECT DISTINCT must name a selected expression ('id' is not one)");
}
