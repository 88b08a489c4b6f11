// CASE of int and float values (TPC-H Q8, Q14: `CASE WHEN ... THEN price ELSE 0 END`): SQLite
// gives each row its branch's type; Weft holds the ints exactly in a float and lets the value
// reach only consumers whose answer is SQLite's either way. Each query is held to SQLite, NULLs
// included; what could show the difference is refused by name.
#include <doctest/doctest.h>

#include <string>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::check_query;
using weft::db::test::prepare_error;
using weft::db::test::ValidationClean;

namespace {

Database& mixed_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,g,k,f,s\n1,1,10,1.5,PROMO a\n2,1,,2.5,b\n3,2,30,,PROMO c\n4,2,40,4.0,\n5,3,50,-1.0,PROMO e\n"
                   "6,,60,6.5,f\n7,3,-7,0.25,g\n",
                   "t", "t.csv"));
    return d;
  }();
  return db;
}

Sqlite& mixed_peer() {
  static Sqlite peer(mixed_db());
  return peer;
}

void check(const std::string& sql) { check_query(mixed_db(), mixed_peer(), sql); }

std::string error_of(const std::string& sql) { return prepare_error(mixed_db(), sql); }

}  // namespace

TEST_CASE("db mixed case: SUM of a CASE of a float and 0 matches SQLite, NULL floats and NULL conditions included") {
  ValidationClean clean;
  check("SELECT 100.00 * SUM(CASE WHEN s LIKE 'PROMO%' THEN f * (1 - 0.5) ELSE 0 END) / SUM(f) FROM t");
  check("SELECT g, SUM(CASE WHEN k > 20 THEN f ELSE 0 END) / SUM(f) FROM t GROUP BY g ORDER BY g");
  // Only int branches taken in a group (g = 1: k > 40 never): SQLite's SUM is the int 0 there,
  // which times a float is the float 0.0 as Weft's.
  check("SELECT g, 1.0 * SUM(CASE WHEN k > 40 THEN f ELSE 0 END) FROM t GROUP BY g ORDER BY g");
  check("SELECT AVG(CASE WHEN f IS NULL THEN 7 WHEN k IS NULL THEN NULL ELSE f END), "
        "MAX(CASE WHEN f > 2 THEN f ELSE -3 END) * 1.0 FROM t");
}

TEST_CASE("db mixed case: a CASE of int and float values compares and filters as SQLite's") {
  ValidationClean clean;
  check("SELECT id FROM t WHERE CASE WHEN k > 30 THEN f ELSE 2 END >= 2 ORDER BY id");
  check("SELECT id, CASE WHEN k IS NULL THEN 1 ELSE f END = 1 FROM t ORDER BY id");
  check("SELECT id FROM t WHERE CASE WHEN g = 1 THEN 0 ELSE f END ORDER BY id");  // truth of 0 / 0.25
  check("SELECT id FROM t ORDER BY CASE WHEN g = 2 THEN 0 ELSE f END, id");
}

TEST_CASE("db mixed case: a CASE of int and float values shown, grouped by or mixed with ints is refused by name") {
  CHECK(error_of("SELECT CASE WHEN k > 30 THEN f ELSE 0 END FROM t") ==
        "bad input: sql:1:8: a CASE of int and float values as a result column is not supported ('CASE WHEN k > 30 "
        "THEN f ELSE 0 END': SQLite gives each row its branch's type; make the ints floats, e.g. 0.0)");
  CHECK(error_of("SELECT SUM(CASE WHEN k > 30 THEN f ELSE 0 END) FROM t") ==
        "bad input: sql:1:8: a CASE of int and float values as a result column is not supported ('SUM(CASE WHEN k > 30 "
        "THEN f ELSE 0 END)': SQLite gives each row its branch's type; make the ints floats, e.g. 0.0)");
  CHECK(error_of("SELECT COUNT(*) FROM t GROUP BY CASE WHEN g = 1 THEN f ELSE 1 END") ==
        "bad input: sql:1:33: a CASE of int and float values as a GROUP BY key is not supported ('CASE WHEN g = 1 THEN "
        "f ELSE 1 END': SQLite gives each row its branch's type; make the ints floats, e.g. 0.0)");
  CHECK(error_of("SELECT id FROM t WHERE (CASE WHEN g = 1 THEN f ELSE 1 END) / 2 > 0") ==
        "bad input: sql:1:25: '(CASE WHEN g = 1 THEN f ELSE 1 END) / 2' reads a CASE of int and float values, which "
        "is supported only in comparisons, conditions, SUM/MIN/MAX/AVG and arithmetic with a float (SQLite gives each "
        "row its branch's type)");
  CHECK(error_of("SELECT id FROM t WHERE abs(CASE WHEN g = 1 THEN f ELSE 1 END) > 0") ==
        "bad input: sql:1:24: 'abs(CASE WHEN g = 1 THEN f ELSE 1 END)' reads a CASE of int and float values, which "
        "is supported only in comparisons, conditions, SUM/MIN/MAX/AVG and arithmetic with a float (SQLite gives each "
        "row its branch's type)");
  CHECK(error_of("SELECT SUM(CASE WHEN g = 1 THEN f ELSE k END) * 1.0 FROM t") ==
        "bad input: sql:1:40: CASE values of int and float mix only where the int values are constants within +-2^53 "
        "('k' is not)");
}
