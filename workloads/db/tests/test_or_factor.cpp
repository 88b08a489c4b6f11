// A conjunct every branch of an OR holds is factored out before join planning (TPC-H Q19: the
// join key inside each of three branches): the rewrite itself, and queries that now plan as
// joins held to SQLite, NULL keys and NULL conditions included.
#include <doctest/doctest.h>

#include <string>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"
#include "factor.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::check_query;
using weft::db::test::ValidationClean;

namespace {

Database& or_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("pk,brand,size\n1,A,1\n2,B,5\n3,A,\n4,C,12\n,A,3\n6,B,20\n", "p", "p.csv"));
    d.add(load_csv("lk,qty,mode\n1,5,AIR\n2,15,AIR\n3,25,SHIP\n4,8,AIR\n,5,AIR\n6,30,\n1,50,AIR\n2,,AIR\n", "l", "l.csv"));
    return d;
  }();
  return db;
}

Sqlite& or_peer() {
  static Sqlite peer(or_db());
  return peer;
}

void check(const std::string& sql) { check_query(or_db(), or_peer(), sql); }

ExprPtr where_of(const std::string& where) { return parse_sql("SELECT 1 FROM t WHERE " + where).where; }

// Whether factoring `where` gives the tree the parser makes of `expected`.
bool factors_to(const std::string& where, const std::string& expected) {
  return same_expr(*factor_or_conjuncts(where_of(where)), *where_of(expected));
}

}  // namespace

TEST_CASE("db or factor: a conjunct of every OR branch is taken out, the branches keep the rest") {
  CHECK(factors_to("(k = j AND a = 1) OR (a = 2 AND k = j) OR (k = j AND b = 3)", "k = j AND (a = 1 OR a = 2 OR b = 3)"));
  CHECK(factors_to("x > 0 AND ((k = j AND c = 1 AND a = 1) OR (c = 1 AND k = j AND a = 2))",
                   "x > 0 AND k = j AND c = 1 AND (a = 1 OR a = 2)"));
}

TEST_CASE("db or factor: a branch that is only the common part leaves the common part alone") {
  CHECK(factors_to("k = j OR (k = j AND a = 1)", "k = j"));
}

TEST_CASE("db or factor: an equality written with its sides swapped is the same conjunct") {
  CHECK(factors_to("(k = j AND a = 1) OR (j = k AND a = 2)", "k = j AND (a = 1 OR a = 2)"));
  const ExprPtr lt = where_of("(k < j AND a = 1) OR (j < k AND a = 2)");
  CHECK(factor_or_conjuncts(lt) == lt);
}

TEST_CASE("db or factor: an OR without a conjunct in every branch is left as it is") {
  const ExprPtr w = where_of("(k = j AND a = 1) OR (a = 2 AND k = i) OR k = j");
  CHECK(factor_or_conjuncts(w) == w);
  const ExprPtr plain = where_of("a = 1 AND b = 2");
  CHECK(factor_or_conjuncts(plain) == plain);
}

TEST_CASE("db or factor: a join key in every OR branch plans as a join and matches SQLite, NULLs included") {
  ValidationClean clean;
  const std::string q19 =
      "SELECT SUM(qty), COUNT(*) FROM l, p WHERE (pk = lk AND brand = 'A' AND qty BETWEEN 1 AND 10 AND mode = 'AIR') "
      "OR (pk = lk AND brand = 'B' AND size <= 10) OR (lk = pk AND size > 10 AND qty >= 20)";
  check(q19);
  check("SELECT lk, qty, brand FROM l, p WHERE (pk = lk AND size IS NULL) OR (pk = lk AND qty > 20) ORDER BY lk, qty");
  check("SELECT lk, qty FROM l JOIN p ON lk = pk WHERE (brand = 'A' AND mode = 'AIR') OR (brand = 'A' AND qty IS NULL) "
        "ORDER BY lk, qty");
  CHECK(plan_sql(q19, or_db()).joins.size() == 1);
}
