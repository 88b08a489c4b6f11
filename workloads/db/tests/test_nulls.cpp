// NULL handling, query by query against SQLite on the same data (the rules are stated in
// docs/db.md and at the top of test_device.cpp). Two small tables with NULLs in every column
// type, join keys included, and an empty string next to a NULL text.
#include <doctest/doctest.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::ValidationClean;

namespace {

Database& null_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,k,f,s\n"
                   "1,1,1.5,a\n"
                   "2,,2.5,b\n"
                   "3,2,,\n"
                   "4,2,-4.0,\"\"\n"
                   "5,,,a\n"
                   "6,3,6.25,\n"
                   "7,1,,b\n"
                   "8,4,8.0,\"\"\n"
                   "9,,-9.5,\n"
                   "10,3,10.0,c\n",
                   "t", "t.csv"));
    d.add(load_csv("k,name,w\n"
                   "1,one,1.0\n"
                   ",nokey,2.0\n"
                   "2,,\n"
                   "3,three,-3.0\n"
                   ",,\n"
                   "3,tres,\n",
                   "u", "u.csv"));
    return d;
  }();
  return db;
}

Sqlite& null_peer() {
  static Sqlite s(null_db());
  return s;
}

QueryStats check_query(const std::string& sql, QueryOptions options = {}) {
  return weft::db::test::check_query(null_db(), null_peer(), sql, options);
}

}  // namespace

TEST_CASE("db nulls: NULL propagates through arithmetic and comparisons; IS [NOT] NULL; '' is not NULL") {
  ValidationClean clean;
  check_query("SELECT * FROM t");
  check_query("SELECT id, k + 1, f * 2, -f, k / 0, k % 0, f / 0, k = NULL, k <> NULL, NULL + 1 FROM t");
  check_query("SELECT id, k IS NULL, f IS NOT NULL, s IS NULL, s = '', k < f FROM t");
  check_query("SELECT id FROM t WHERE s = ''");
  check_query("SELECT id FROM t WHERE s IS NULL");
  check_query("SELECT id FROM t WHERE k = NULL");  // never true
}

TEST_CASE("db nulls: WHERE keeps true rows only; AND/OR/NOT are three-valued") {
  ValidationClean clean;
  check_query("SELECT id FROM t WHERE k > 1");
  check_query("SELECT id FROM t WHERE NOT (k > 1)");
  check_query("SELECT id FROM t WHERE k > 1 AND f > 0");
  check_query("SELECT id FROM t WHERE NOT (k > 1 AND f > 0)");
  check_query("SELECT id FROM t WHERE k > 1 OR f > 0");
  check_query("SELECT id FROM t WHERE NOT (k > 1 OR f > 0)");
  check_query("SELECT id, k > 1 AND f > 0, k > 1 OR f > 0, NOT (k = 2) FROM t");
  check_query("SELECT id FROM t WHERE NULL OR k = 3");
  check_query("SELECT id FROM t WHERE NOT (NULL AND k = 3)");
}

TEST_CASE("db nulls: aggregates skip NULLs, COUNT(*) counts rows, empty SUM/MIN/MAX/AVG are NULL") {
  ValidationClean clean;
  check_query("SELECT COUNT(*), COUNT(k), COUNT(f), COUNT(s), SUM(k), SUM(f), MIN(f), MAX(f), AVG(k), AVG(f), MIN(s), MAX(s) FROM t");
  check_query("SELECT COUNT(*), COUNT(f), SUM(f), MIN(f), MAX(f), AVG(f), SUM(k), MIN(s) FROM t WHERE f IS NULL");
  check_query("SELECT COUNT(*), COUNT(k), SUM(k), AVG(k), MAX(s) FROM t WHERE id > 100");  // no rows at all
  check_query("SELECT SUM(k + f), COUNT(k * f) FROM t");
}

TEST_CASE("db nulls: GROUP BY puts NULLs in one group per key; ORDER BY puts NULLs first, last with DESC") {
  ValidationClean clean;
  check_query("SELECT k, COUNT(*), COUNT(f), SUM(f), MIN(s), MAX(s) FROM t GROUP BY k");
  check_query("SELECT s, COUNT(*), SUM(k) FROM t GROUP BY s");  // NULL and '' are two groups
  check_query("SELECT f IS NULL, COUNT(*) FROM t GROUP BY f IS NULL");
  check_query("SELECT k, s, COUNT(*) FROM t GROUP BY k, s");
  check_query("SELECT k, COUNT(*) FROM t GROUP BY k ORDER BY k");
  check_query("SELECT id, k FROM t ORDER BY k, id");
  check_query("SELECT id, k FROM t ORDER BY k DESC, id DESC");
  check_query("SELECT id, f, s FROM t ORDER BY s, f DESC, id");
  check_query("SELECT k, SUM(f) AS total FROM t GROUP BY k ORDER BY total, k LIMIT 3");
}

TEST_CASE("db nulls: a NULL join key matches nothing, under both join strategies") {
  ValidationClean clean;
  const char* joins[] = {
      "SELECT t.id, u.name, u.w FROM t JOIN u ON t.k = u.k",
      "SELECT u.name, COUNT(*), SUM(t.f), MIN(t.s) FROM t JOIN u ON t.k = u.k GROUP BY u.name",
      "SELECT t.s, COUNT(u.w), AVG(u.w) FROM t JOIN u ON u.k = t.k GROUP BY t.s",
      "SELECT t.id, u.name FROM t JOIN u ON t.k = u.k WHERE t.f > u.w OR u.name IS NULL",
      "SELECT t.id, u.w FROM t JOIN u ON t.k = u.k ORDER BY u.w DESC, t.id",
  };
  for (const char* sql : joins) weft::db::test::check_both_joins(null_db(), null_peer(), sql);
}
