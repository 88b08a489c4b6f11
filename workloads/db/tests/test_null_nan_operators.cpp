// NULL and NaN through every operator and function of the dialect, family by family, each query
// against SQLite on the same tables (issue 21). SQLite stores a NaN result as NULL, so every
// NaN-producing expression below must read as NULL wherever it goes. The inputs, named in the
// queries by placeholders that read as what they are:
//   {nan}  f * f - f * f: NaN (so NULL) where |f| = 1e300 (inf - inf), 0.0 where f is finite
//          and small, NULL where f is NULL;
//   {inf}  f * 1e308 * 10: +-inf where f != 0, 0.0 where f = 0, NULL where f is NULL;
//   {zinf} 0.0 * (f * f): NaN where |f| = 1e300 (0 * inf), else 0.0;
// beside NULLs in every column, negatives, zero, and text with NULLs and ''. Each family's rows
// are a list of SQL strings; a failure names its SQL (check_query's INFO). The dialect's
// refusals met on the way are checked as typed errors naming the form.
#include <doctest/doctest.h>

#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::prepare_error;
using weft::db::test::ValidationClean;

namespace {

// t: the rows every family reads; u: a second table to join, with NULL keys and a key t lacks;
// e: no rows.
Database& nan_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,k,f,s,d\n"
                   "1,1,1.5,a,1998-12-01\n"
                   "2,,2.5,b,2000-02-29\n"
                   "3,2,,,\n"
                   "4,-2,-4.0,\"\",1995-13-01\n"
                   "5,,,a,1994-01-01\n"
                   "6,3,1e300,,2024-07-04\n"
                   "7,1,-1e300,B,\"\"\n"
                   "8,0,0.0,Abc,abc\n"
                   "9,,-9.5,c,1992-01-02\n"
                   "10,3,2.5,c,\n"
                   "11,-7,1e-300,a,2000-01-31\n",
                   "t", "t.csv", parse_schema("id:int,k:int,f:float,s:text,d:text")));
    d.add(load_csv("k,w,g,name\n1,10,1e300,one\n,20,0.0,none\n2,,-1e300,two\n3,30,1.0,\n3,31,,three\n-2,40,2.0,minus\n"
                   "5,50,-1.0,five\n",
                   "u", "u.csv", parse_schema("k:int,w:int,g:float,name:text")));
    d.add(load_csv("k,w,g,name\n", "e", "e.csv", parse_schema("k:int,w:int,g:float,name:text")));
    return d;
  }();
  return db;
}

Sqlite& nan_peer() {
  static Sqlite peer(nan_db());
  return peer;
}

// The placeholders replaced by their expressions (of t's f, or of `prefix.f` after a join).
std::string spec(std::string sql) {
  const std::pair<const char*, const char*> names[] = {
      {"{nan}", "(f * f - f * f)"}, {"{inf}", "(f * 1e308 * 10)"}, {"{zinf}", "(0.0 * (f * f))"}};
  for (const auto& [name, expr] : names)
    for (size_t at = sql.find(name); at != std::string::npos; at = sql.find(name, at)) sql.replace(at, std::string(name).size(), expr);
  return sql;
}

void check_all(const std::vector<std::string>& queries) {
  for (const std::string& q : queries) weft::db::test::check_query(nan_db(), nan_peer(), spec(q));
}

void check_both_joins(const std::vector<std::string>& queries) {
  for (const std::string& q : queries) weft::db::test::check_both_joins(nan_db(), nan_peer(), spec(q));
}

// Weft's form of a query against SQLite's form of it (SQLite lacks the syntax).
void check_as(const std::string& weft_sql, const std::string& sqlite_sql) {
  weft::db::test::check_query_as(nan_db(), nan_peer(), spec(weft_sql), spec(sqlite_sql));
}

std::string error_of(const std::string& sql) { return prepare_error(nan_db(), spec(sql)); }

}  // namespace

TEST_CASE("db null/nan: the inputs hold what the placeholders say (NaN rows NULL in SQLite)") {
  ValidationClean clean;
  check_all({"SELECT id, f, {nan}, {inf}, {zinf}, {nan} IS NULL, {inf} IS NULL FROM t"});
  // SQLite's side of the premise, so the families below do test NaN: rows 6 and 7 make NaN.
  const ResultSet r = nan_peer().query(spec("SELECT id FROM t WHERE f IS NOT NULL AND {nan} IS NULL ORDER BY id"));
  REQUIRE(r.rows.size() == 2);
  CHECK(r.rows[0][0].i == 6);
  CHECK(r.rows[1][0].i == 7);
}

TEST_CASE("db null/nan: arithmetic + - * / % and unary minus") {
  ValidationClean clean;
  check_all({
      "SELECT id, k + {nan}, k - {nan}, k * {nan}, k / {nan}, {nan} / k, -{nan} FROM t",
      "SELECT id, k + NULL, NULL - f, f * NULL, k / NULL, NULL % k, k % NULL, -NULL FROM t",
      "SELECT id, {inf} + {inf}, {inf} - {inf}, {inf} * 0, {inf} / {inf}, -{inf}, {inf} * -1, {inf} + k FROM t",
      "SELECT id, {zinf} + 1, {zinf} * {zinf}, 1 / {zinf}, {zinf} - k FROM t",
      "SELECT id, k % 3, k % -3, -k % 3, k % 0, k / 0, k / 0.0, f / 0, f / 0.0, f / -0.0, k / -1 FROM t",
      "SELECT id, k + f, k * f, f - k, k / f, f / k FROM t",
      "SELECT 1e308 * 10, -1e308 * 10, 1e308 * 10 - 1e308 * 10, 0 * (1e308 * 10), (1e308 * 10) / (1e308 * 10), "
      "1e308 * 10 + NULL FROM t WHERE id = 1",
      "SELECT id FROM t WHERE k + {nan} IS NULL",
      "SELECT id FROM t WHERE -{inf} > 0",
      "SELECT id, f * 0, k * 0.0, f * 0 = 0, -(f * 0) FROM t",
      "SELECT id, SUM(k) / COUNT(k), SUM(k) / 0, MAX({inf}) - MIN({inf}), MAX({inf}) + MIN({inf}), AVG(f) * 0 FROM t GROUP BY id",
      "SELECT MAX({inf}) - MIN({inf}), MAX({inf}) + MIN({inf}), AVG({inf}) * 0, SUM(f) / 0.0 FROM t",
  });
  CHECK(error_of("SELECT f % 2 FROM t") == "bad input: sql:1:8: '%' needs integer operands in 'f % 2'");
  CHECK(error_of("SELECT {nan} % 2 FROM t") == "bad input: sql:1:9: '%' needs integer operands in '(f * f - f * f) % 2'");
  CHECK(error_of("SELECT -s FROM t") == "bad input: sql:1:8: cannot negate text");
  CHECK(error_of("SELECT s + 1 FROM t") == "bad input: sql:1:8: cannot apply '+' to text in 's + 1'");
}

TEST_CASE("db null/nan: comparisons = == != <> < <= > >= and IS [NOT] NULL") {
  ValidationClean clean;
  check_all({
      "SELECT id, k = {nan}, k <> {nan}, k < {nan}, k <= {nan}, k > {nan}, k >= {nan}, k == {nan}, k != {nan} FROM t",
      "SELECT id, {nan} = {nan}, {nan} < f, f >= {zinf}, {zinf} = 0 FROM t",
      "SELECT id, f = NULL, NULL <> f, s = NULL, s < NULL, NULL = NULL, NULL < 1 FROM t",
      "SELECT id, {inf} = {inf}, {inf} > 1e308, -{inf} < -1e308, {inf} = f * 1e308 * 10, k < {inf} FROM t",
      "SELECT id, {nan} IS NULL, {nan} IS NOT NULL, {inf} IS NULL, {zinf} IS NULL, NULL IS NULL, k + NULL IS NOT NULL FROM t",
      "SELECT id, s = 'a', s < 'b', s >= '', s <> s, s > 'B', s = '' FROM t",
      "SELECT id FROM t WHERE {nan} = 0",
      "SELECT id FROM t WHERE {nan} <> 0",
      "SELECT id FROM t WHERE NOT ({nan} <> 0)",
      "SELECT id FROM t WHERE {nan} IS NULL AND f IS NOT NULL",
      "SELECT id FROM t WHERE s <> 'a'",
      "SELECT id, {inf} * 2 = {inf}, {inf} / 2 = {inf}, {inf} - 1e308 = {inf} FROM t",
  });
}

TEST_CASE("db null/nan: x IS y and x IS NOT y compare NULLs as equal, never NULL") {
  ValidationClean clean;
  check_all({
      "SELECT id, k IS 1, k IS NOT 1, k IS NULL, NULL IS k, k IS k, f IS {nan}, {nan} IS NOT {zinf} FROM t",
      "SELECT id, s IS 'a', s IS NOT NULL, s IS s, NULL IS NOT NULL, k IS f FROM t",
      "SELECT a.id, b.id FROM t a JOIN t b ON a.id = b.id WHERE a.k IS NOT b.k OR a.f IS b.f * 1.0",
      "SELECT a.id, b.id FROM t a, t b WHERE a.id < b.id AND a.s = b.s AND a.k IS b.k",
      "SELECT id FROM t WHERE {nan} IS NOT 0.0",
      "SELECT k IS NOT 3, COUNT(*) FROM t GROUP BY k IS NOT 3",
      "SELECT k, COUNT(*) FROM t WHERE k IS NOT NULL GROUP BY k HAVING k IS 3 OR k IS NOT 1",
      "SELECT id, (k / 0) IS (k % 0), abs(k) IS k, s IS 'zzz' FROM t",
  });
  CHECK(error_of("SELECT s IS 1 FROM t") == "bad input: sql:1:8: cannot compare text with int in 's IS 1'");
}

TEST_CASE("db null/nan: AND, OR and NOT are three-valued over NULL and NaN conditions") {
  ValidationClean clean;
  check_all({
      "SELECT id, {nan} > -1 AND k > 1, {nan} = 0 OR k > 1, NOT {nan} = 0, {nan} = 0 AND NULL, NULL OR {nan} = 0 FROM t",
      "SELECT id, f AND k, f OR NULL, NOT f, NOT {nan}, NOT {zinf}, {inf} AND 1, NOT k FROM t",
      "SELECT id FROM t WHERE {nan} = 0 OR k IS NULL",
      "SELECT id FROM t WHERE NOT ({nan} = 0 AND k > 0)",
      "SELECT id FROM t WHERE NOT ({nan} = 0 OR k > 0)",
      "SELECT id FROM t WHERE {nan}",
      "SELECT id FROM t WHERE NOT {nan}",
  });
  CHECK(error_of("SELECT id FROM t WHERE NOT s") == "bad input: sql:1:24: NOT needs a number or a comparison, not text");
}

TEST_CASE("db null/nan: BETWEEN and NOT BETWEEN with NULL and NaN operands and bounds") {
  ValidationClean clean;
  check_all({
      "SELECT id, {nan} BETWEEN -1 AND 1, {nan} NOT BETWEEN -1 AND 1, k BETWEEN {nan} AND 5, k NOT BETWEEN -5 AND {nan} FROM t",
      "SELECT id, k BETWEEN NULL AND 3, k NOT BETWEEN NULL AND 0, NULL BETWEEN 1 AND 2, {inf} BETWEEN -{inf} AND {inf} FROM t",
      "SELECT id, s BETWEEN 'a' AND 'c', s NOT BETWEEN '' AND 'a', s BETWEEN NULL AND 'z' FROM t",
      "SELECT id FROM t WHERE {zinf} BETWEEN 0 AND 0",
      "SELECT id FROM t WHERE k NOT BETWEEN {nan} AND 2",
  });
}

TEST_CASE("db null/nan: IN and NOT IN lists with NULL and NaN in the list and as the operand") {
  ValidationClean clean;
  check_all({
      "SELECT id, k IN (1, NULL), k NOT IN (1, NULL), k IN (1, 2), k NOT IN (1, 2), NULL IN (1, 2), NULL NOT IN (1) FROM t",
      "SELECT id, {nan} IN (0, 1), {nan} NOT IN (0, 1), f IN ({nan}, 2.5), f NOT IN ({nan}, 2.5), 0 IN ({zinf}) FROM t",
      "SELECT id, s IN ('a', NULL), s NOT IN ('a', ''), s IN (NULL), NULL NOT IN ('a') FROM t",
      "SELECT id, {inf} IN (1e308 * 10, -1e308 * 10), k IN (f, {nan}, NULL) FROM t",
      "SELECT id FROM t WHERE k NOT IN (1, NULL)",
      "SELECT id FROM t WHERE f NOT IN ({nan})",
      "SELECT id FROM t WHERE {nan} IN (0.0)",
  });
}

TEST_CASE("db null/nan: IN and NOT IN subqueries with NULL and NaN in the subquery's rows") {
  ValidationClean clean;
  check_all({
      "SELECT id, k IN (SELECT k FROM u), k NOT IN (SELECT k FROM u), k IN (SELECT k FROM u WHERE k IS NOT NULL) FROM t",
      "SELECT id, f IN (SELECT g * g - g * g FROM u), f NOT IN (SELECT g * g - g * g FROM u) FROM t",
      "SELECT id, {nan} IN (SELECT g FROM u), {nan} NOT IN (SELECT g FROM u WHERE g IS NOT NULL) FROM t",
      "SELECT id, {nan} IN (SELECT k FROM e), {nan} NOT IN (SELECT k FROM e), NULL IN (SELECT k FROM e) FROM t",
      "SELECT id, k IN (SELECT g * 1e308 * 10 - g * 1e308 * 10 FROM u WHERE g <> 0) FROM t",  // only NaN rows: NULL
      "SELECT id, s IN (SELECT name FROM u), s NOT IN (SELECT name FROM u) FROM t",
      "SELECT id FROM t WHERE k NOT IN (SELECT k FROM u)",
      "SELECT id FROM t WHERE f NOT IN (SELECT g * 0 FROM u WHERE g IS NOT NULL)",
      // Correlated: the rows of the enclosing row's key only.
      "SELECT id, f IN (SELECT g * g - g * g FROM u WHERE u.k = t.k), {nan} NOT IN (SELECT g FROM u WHERE u.k = t.k) FROM t",
      "SELECT id FROM t WHERE {zinf} NOT IN (SELECT g * 0 FROM u WHERE u.k = t.k)",
  });
}

TEST_CASE("db null/nan: EXISTS and NOT EXISTS, uncorrelated and correlated, over NULL and NaN conditions") {
  ValidationClean clean;
  check_all({
      "SELECT id, EXISTS (SELECT 1 FROM u WHERE g * g - g * g IS NULL), NOT EXISTS (SELECT 1 FROM u WHERE g * g - g * g = 0) "
      "FROM t",
      "SELECT id, EXISTS (SELECT 1 FROM e), NOT EXISTS (SELECT 1 FROM u WHERE w = NULL) FROM t",
      "SELECT id FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.g * u.g - u.g * u.g IS NULL)",
      "SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.g * 1e308 * 10 > 0)",
      "SELECT id, EXISTS (SELECT 1 FROM u WHERE u.k = t.k AND u.g < t.f * t.f - t.f * t.f) FROM t",
  });
}

TEST_CASE("db null/nan: LIKE and NOT LIKE with NULL operands, patterns and escapes") {
  ValidationClean clean;
  check_all({
      "SELECT id, s LIKE 'a%', s NOT LIKE 'a%', s LIKE NULL, s NOT LIKE NULL, NULL LIKE 'a', s LIKE '%' ESCAPE NULL FROM t",
      "SELECT id, s LIKE '', s NOT LIKE '_', d LIKE '%-%', d NOT LIKE '19%' FROM t",
      "SELECT id FROM t WHERE s NOT LIKE 'A%'",
      "SELECT id FROM t WHERE NOT (s LIKE '%b%')",
  });
  CHECK(error_of("SELECT id FROM t WHERE {nan} LIKE '0%'") == "bad input: sql:1:40: LIKE of float is not supported (only of text)");
}

TEST_CASE("db null/nan: CASE, searched and simple, over NULL and NaN conditions, operands and values") {
  ValidationClean clean;
  check_all({
      "SELECT id, CASE WHEN {nan} = 0 THEN 'zero' WHEN {nan} IS NULL THEN 'null' ELSE 'other' END FROM t",
      "SELECT id, CASE WHEN {nan} THEN 1 ELSE 0 END, CASE WHEN NOT {nan} THEN 1 ELSE 0 END, CASE WHEN NULL THEN 1 END FROM t",
      "SELECT id, CASE {nan} WHEN 0 THEN 'zero' ELSE 'else' END, CASE k WHEN NULL THEN 'null' ELSE 'no' END FROM t",
      "SELECT id, CASE s WHEN 'a' THEN 1 WHEN '' THEN 2 END, CASE NULL WHEN NULL THEN 1 ELSE 0 END FROM t",
      "SELECT id, CASE WHEN k > 0 THEN {nan} ELSE {inf} END, CASE WHEN k IS NULL THEN {zinf} END FROM t",
      "SELECT id, CASE k WHEN 1 THEN f * f - f * f WHEN 3 THEN -{inf} ELSE NULL END FROM t",
      "SELECT id FROM t WHERE CASE WHEN {nan} IS NULL THEN 1 ELSE k > 0 END",
      // A CASE whose values are all NULL is NULL beside a value of any type.
      "SELECT id, CASE WHEN k > 0 THEN {nan} ELSE CASE f WHEN 1.5 THEN NULL END END, coalesce(CASE WHEN k > 0 THEN NULL END, f) "
      "FROM t",
  });
}

TEST_CASE("db null/nan: coalesce and ifnull skip NULL and NaN arguments; nullif makes NULL of an equal value") {
  ValidationClean clean;
  check_all({
      "SELECT id, coalesce({nan}, -1.0), coalesce({nan}, {zinf}, f, 7.5), ifnull({nan}, {inf}), ifnull(NULL, {nan}) FROM t",
      "SELECT id, coalesce(k, NULL, -1), ifnull(s, 'none'), coalesce(NULL, NULL, s), ifnull(k, k) FROM t",
      "SELECT coalesce({nan}, 9.0) AS c, COUNT(*) FROM t GROUP BY coalesce({nan}, 9.0) ORDER BY c",
      "SELECT id, nullif(k, 1), nullif(k, NULL), nullif(NULL, k), nullif(f, {nan}), nullif({nan}, 0), nullif({zinf}, f * 0) "
      "FROM t",
      "SELECT id, nullif(s, 'a'), nullif(s, ''), nullif(k, f), nullif(f, k), nullif({inf}, {inf}) FROM t",
      "SELECT nullif(k, 3) AS n, COUNT(*) FROM t WHERE nullif(s, 'c') IS NOT NULL GROUP BY nullif(k, 3)",
  });
  CHECK(error_of("SELECT nullif(s, 1) FROM t") == "bad input: sql:1:8: cannot compare text with int in 'nullif(s, 1)'");
}

TEST_CASE("db null/nan: CAST to INTEGER and REAL of NULL, NaN and infinities; other types refused by name") {
  ValidationClean clean;
  check_all({
      "SELECT id, CAST({nan} AS INTEGER), CAST({nan} AS REAL), CAST({inf} AS INTEGER), CAST(-{inf} AS INTEGER), "
      "CAST({zinf} AS INT) FROM t",
      "SELECT id, CAST(NULL AS INTEGER), CAST(NULL AS REAL), CAST(k AS REAL), CAST(f AS INTEGER), CAST(k / 0 AS REAL) FROM t",
      "SELECT id, CAST(s AS INTEGER), CAST(d AS INTEGER), CAST({inf} AS DOUBLE) FROM t",
  });
  CHECK(error_of("SELECT CAST({nan} AS TEXT) FROM t") ==
        "bad input: sql:1:8: CAST to TEXT is not supported (only to INTEGER or REAL types)");
  CHECK(error_of("SELECT CAST(s AS REAL) FROM t") == "bad input: sql:1:8: CAST of text AS REAL is not supported (only AS INTEGER)");
}

TEST_CASE("db null/nan: abs and round of NULL, NaN and infinities") {
  ValidationClean clean;
  check_all({
      "SELECT id, abs({nan}), abs({inf}), abs(-{inf}), abs(k), abs(NULL), abs({zinf}), abs(f) FROM t",
      "SELECT id, round({nan}), round({inf}), round(-{inf}, 0), round(k), round(NULL), round(f), round({zinf}) FROM t",
  });
  CHECK(error_of("SELECT round(f, 2) FROM t") ==
        "bad input: sql:1:17: round() to digits after the point is not supported (only round(x) and round(x, 0))");
  CHECK(error_of("SELECT abs(s) FROM t") == "bad input: sql:1:8: abs() of text is not supported");
}

TEST_CASE("db null/nan: lower, upper, length, substr, substring, instr and || of NULL and empty text") {
  ValidationClean clean;
  check_all({
      "SELECT id, lower(s), upper(s), length(s), substr(s, 2), substring(s, 1, 1), instr(s, 'b'), instr(s, '') FROM t",
      "SELECT id, s || 'x', 'x' || s, s || NULL, s || 1, lower(NULL), length(NULL), substr(NULL, 1) FROM t",
      "SELECT id, length(upper(s)), lower(s) = s, upper(s) < s FROM t",
      "SELECT length(s) AS n, COUNT(*) FROM t GROUP BY length(s) ORDER BY n",
  });
  check_as("SELECT id, substring(s FROM 2), substring(d FROM 1 FOR 4) FROM t", "SELECT id, substr(s, 2), substr(d, 1, 4) FROM t");
  CHECK(error_of("SELECT substr(s, k) FROM t") == "bad input: sql:1:18: substr() start must be an integer literal");
  CHECK(error_of("SELECT length({nan}) FROM t").find("length of float in 'length((f * f - f * f))' is not supported") !=
        std::string::npos);
}

TEST_CASE("db null/nan: date, strftime and EXTRACT of NULL, empty and invalid dates") {
  ValidationClean clean;
  check_all({
      "SELECT id, date(d), date(d, '+1 day'), date(d, '-1 month'), strftime('%Y', d), strftime('%j', d) FROM t",
      "SELECT id FROM t WHERE strftime('%m', d) > '06' OR date(d) IS NULL",
  });
  // SQLite has no EXTRACT; Weft reads it as CAST(strftime(...) AS INTEGER).
  check_as("SELECT id, EXTRACT(YEAR FROM d), EXTRACT(MONTH FROM d), EXTRACT(DAY FROM d) FROM t",
           "SELECT id, CAST(strftime('%Y', d) AS INTEGER), CAST(strftime('%m', d) AS INTEGER), "
           "CAST(strftime('%d', d) AS INTEGER) FROM t");
  check_as("SELECT id FROM t WHERE EXTRACT(YEAR FROM d) > 1995 OR EXTRACT(DAY FROM d) IS NULL",
           "SELECT id FROM t WHERE CAST(strftime('%Y', d) AS INTEGER) > 1995 OR CAST(strftime('%d', d) AS INTEGER) IS NULL");
}

TEST_CASE("db null/nan: aggregates skip NULL and NaN values, plain and grouped") {
  ValidationClean clean;
  check_all({
      "SELECT COUNT(*), COUNT({nan}), COUNT(DISTINCT {nan}), SUM({nan}), AVG({nan}), MIN({nan}), MAX({nan}) FROM t",
      "SELECT COUNT({inf}), COUNT(DISTINCT {inf}), SUM({inf}), AVG({inf}), MIN({inf}), MAX({inf}) FROM t",
      "SELECT COUNT({zinf}), SUM({zinf}), MIN({zinf}), MAX(-{zinf}), COUNT(DISTINCT {zinf}) FROM t",
      "SELECT COUNT(k), COUNT(DISTINCT k), SUM(k), AVG(k), MIN(k), MAX(k), MIN(s), MAX(s), COUNT(DISTINCT s) FROM t",
      "SELECT SUM({inf}), AVG({inf}), MAX({inf}) FROM t WHERE f > 0",  // +inf alone is kept
      "SELECT COUNT(*), COUNT({nan}), SUM({nan}), MIN(k), MAX(s) FROM t WHERE id > 100",
      "SELECT k, COUNT(*), COUNT({nan}), SUM({nan}), AVG({inf}), MIN({nan}), MAX({inf}), COUNT(DISTINCT {zinf}) FROM t "
      "GROUP BY k",
      "SELECT s, SUM(k), AVG(f), MIN(f), MAX(f), COUNT(f) FROM t GROUP BY s",
      "SELECT s, SUM({inf}), AVG({nan}), COUNT(DISTINCT {zinf}), MIN(s), MAX(d) FROM t GROUP BY s ORDER BY s",
  });
  CHECK(error_of("SELECT total(k) FROM t").find("unknown function 'total'") != std::string::npos);
}

TEST_CASE("db null/nan: GROUP BY a NaN or NULL key, and HAVING over NULL and NaN aggregates") {
  ValidationClean clean;
  check_all({
      "SELECT {nan} AS x, COUNT(*) FROM t GROUP BY {nan}",
      "SELECT {zinf} AS x, COUNT(*), SUM(k) FROM t GROUP BY {zinf}",
      "SELECT {inf} AS x, COUNT(*) FROM t GROUP BY {inf}",
      "SELECT {inf} AS x, {nan} AS y, COUNT(*) FROM t GROUP BY {inf}, {nan} ORDER BY x, y",
      "SELECT k, s IS NULL, COUNT(*) FROM t GROUP BY k, s IS NULL",
      "SELECT k, COUNT(*) FROM t GROUP BY k HAVING SUM({nan}) IS NULL",
      "SELECT k, SUM({inf}) FROM t GROUP BY k HAVING SUM({inf}) > 0 OR MAX({nan}) IS NULL",
      "SELECT s, COUNT(*) FROM t GROUP BY s HAVING MIN(k) > NULL",
      "SELECT k FROM t GROUP BY k HAVING COUNT({nan}) = COUNT(*)",
      "SELECT f * 0 AS z, COUNT(*) FROM t GROUP BY f * 0",
      "SELECT k, MAX({inf}) + MIN({inf}) AS x FROM t GROUP BY k HAVING x IS NULL",
  });
}

TEST_CASE("db null/nan: DISTINCT treats NaN as NULL, one row for all of them") {
  ValidationClean clean;
  check_all({
      "SELECT DISTINCT {nan} FROM t",
      "SELECT DISTINCT {nan}, s IS NULL FROM t",
      "SELECT DISTINCT {zinf} AS z FROM t ORDER BY z",
      "SELECT DISTINCT k, {inf} FROM t",
      "SELECT DISTINCT f * 0 FROM t",
      "SELECT DISTINCT k * 0.0 AS z FROM t ORDER BY z",
  });
}

TEST_CASE("db null/nan: ORDER BY puts NULL and NaN keys first, last with DESC") {
  ValidationClean clean;
  check_all({
      "SELECT id, {nan} AS x FROM t ORDER BY x, id",
      "SELECT id, {nan} AS x FROM t ORDER BY x DESC, id DESC",
      "SELECT id, {inf} FROM t ORDER BY 2, 1",
      "SELECT id, {zinf} FROM t ORDER BY {zinf} DESC, id",
      "SELECT id, s, k FROM t ORDER BY s DESC, k, id",
      "SELECT id FROM t ORDER BY {nan}, k DESC, id LIMIT 4",
      "SELECT id, {nan} AS x FROM t ORDER BY x DESC, id LIMIT 3 OFFSET 2",
  });
}

TEST_CASE("db null/nan: joins on keys with NULL and NaN, and LEFT JOIN's NULL padding") {
  ValidationClean clean;
  check_both_joins({
      "SELECT t.id, u.w FROM t JOIN u ON t.k = u.k",
      "SELECT t.id, u.w, u.g * u.g - u.g * u.g FROM t JOIN u ON u.k = t.k WHERE t.f * t.f - t.f * t.f IS NULL",
      "SELECT t.id, u.w FROM t JOIN u ON t.k = u.k WHERE t.f * 1e308 * 10 < u.g * 1e308 * 10",
      "SELECT t.id, u.k, u.w, u.g * 1e308 * 10 - u.g * 1e308 * 10, u.name IS NULL FROM t LEFT JOIN u ON t.k = u.k",
      "SELECT t.id, u.w FROM t LEFT JOIN u ON t.k = u.k AND u.g * u.g - u.g * u.g = 0",
      "SELECT t.id FROM t LEFT JOIN u ON t.k = u.k WHERE u.w IS NULL",
      "SELECT u.name, COUNT(*), COUNT(u.w), SUM(t.f * t.f - t.f * t.f) FROM t LEFT JOIN u ON t.k = u.k GROUP BY u.name",
  });
  // A key computed from a NaN is NULL and matches nothing (a derived table's column).
  check_all({
      "SELECT x.id, u.w FROM (SELECT id, CAST({nan} AS INTEGER) AS z FROM t) x JOIN u ON x.z = u.k",
      "SELECT x.id, u.w FROM (SELECT id, CAST({nan} AS INTEGER) AS z FROM t) x LEFT JOIN u ON x.z = u.k",
  });
  CHECK(error_of("SELECT t.id FROM t JOIN u ON t.f = u.g").find("float") != std::string::npos);
}

TEST_CASE("db null/nan: scalar subqueries give NULL for no row, a NULL row or a NaN") {
  ValidationClean clean;
  check_all({
      "SELECT id, (SELECT MAX(w) FROM e), (SELECT w FROM u WHERE k = 2), (SELECT SUM(g * g - g * g) FROM u WHERE g <> 0) FROM t",
      "SELECT id, k + (SELECT g * 1e308 * 10 - g * 1e308 * 10 FROM u WHERE k = 1), f < (SELECT MIN(g) FROM e) FROM t",
      "SELECT id FROM t WHERE k > (SELECT w FROM u WHERE k = 2) OR (SELECT MAX(g) FROM e) IS NULL",
      "SELECT id, f < (SELECT MAX(g * 1e308 * 10) FROM u), (SELECT MIN(g * 1e308 * 10) FROM u) FROM t",
      "SELECT id, (SELECT SUM(u.g * 1e308 * 10) FROM u WHERE u.k = t.k), (SELECT MIN(u.g * u.g - u.g * u.g) FROM u "
      "WHERE u.k = t.k) FROM t",
  });
}

TEST_CASE("db null/nan: derived tables and WITH carry NULL and NaN-made NULL columns through") {
  ValidationClean clean;
  check_all({
      "SELECT id, x, x IS NULL FROM (SELECT id, {nan} AS x FROM t)",
      "SELECT x, COUNT(*) FROM (SELECT {zinf} AS x FROM t) GROUP BY x",
      "WITH n AS (SELECT id, k, {inf} AS y FROM t) SELECT id, y - y, y IS NULL, -y FROM n",
      "WITH n AS (SELECT k, SUM({nan}) AS s FROM t GROUP BY k) SELECT k, s, coalesce(s, -1.0) FROM n ORDER BY k",
      "SELECT a.id, b.w FROM (SELECT id, k FROM t WHERE {nan} IS NULL) a JOIN u b ON a.k = b.k",
      "WITH a AS (SELECT k, MAX({inf}) AS m FROM t GROUP BY k) SELECT k, m, m - m, m * 0 FROM a",
  });
}

TEST_CASE("db null/nan: UNION, INTERSECT and EXCEPT are refused by name") {
  CHECK(error_of("SELECT k FROM t UNION ALL SELECT k FROM u") == "bad input: sql:1:17: UNION is not supported");
  CHECK(error_of("SELECT k FROM t INTERSECT SELECT k FROM u") == "bad input: sql:1:17: INTERSECT is not supported");
  CHECK(error_of("SELECT k FROM t EXCEPT SELECT k FROM u") == "bad input: sql:1:17: EXCEPT is not supported");
}

// Random expressions over the same inputs, typed so that each is one the dialect takes: float
// values (f, the NaN and infinity makers, constants, NULL) through arithmetic, unary minus, abs,
// round, CAST, coalesce and CASE; conditions through every comparison, IS, BETWEEN, IN lists,
// AND / OR / NOT. Each lands in the select list, in WHERE and under the aggregates.
namespace {

class RandomExpr {
 public:
  explicit RandomExpr(uint32_t seed) : rng_(seed) {}

  std::string number(int depth) {
    if (depth <= 0 || pick(4) == 0) return number_leaf();
    switch (pick(9)) {
      case 0: case 1: {
        static const char* ops[] = {"+", "-", "*", "/"};
        return "(" + number(depth - 1) + " " + ops[pick(4)] + " " + number(depth - 1) + ")";
      }
      case 2: return "-(" + number(depth - 1) + ")";
      case 3: return (pick(2) ? "abs(" : "round(") + number(depth - 1) + ")";
      case 4: return "CAST(" + number(depth - 1) + " AS REAL)";
      case 5: return "coalesce(" + number(depth - 1) + ", " + number(depth - 1) + ")";
      case 6: return "CASE WHEN " + condition(depth - 1) + " THEN " + number(depth - 1) + " ELSE " + number(depth - 1) + " END";
      case 7: return "CASE " + number(depth - 1) + " WHEN " + number(depth - 1) + " THEN " + number(depth - 1) + " END";
      default: return "(" + number(depth - 1) + " * 1e308 * 10)";
    }
  }

  std::string condition(int depth) {
    const std::string a = number(depth - 1), b = number(depth - 1);
    if (depth <= 0) return a + " IS NULL";
    switch (pick(10)) {
      case 0: case 1: {
        static const char* ops[] = {"=", "<>", "<", "<=", ">", ">=", "IS", "IS NOT"};
        return a + " " + ops[pick(8)] + " " + b;
      }
      case 2: return a + (pick(2) ? " IS NULL" : " IS NOT NULL");
      case 3: return a + (pick(2) ? " BETWEEN " : " NOT BETWEEN ") + b + " AND " + number(depth - 1);
      case 4: return a + (pick(2) ? " IN (" : " NOT IN (") + b + ", " + (pick(2) ? "NULL" : number(depth - 1)) + ")";
      case 5: return "(" + condition(depth - 1) + (pick(2) ? " AND " : " OR ") + condition(depth - 1) + ")";
      case 6: return "NOT (" + condition(depth - 1) + ")";
      case 7: return "CAST(" + a + " AS INTEGER) " + (pick(2) ? "< k" : "= 0");
      case 8: return a;  // a number as a truth value
      default: return "k " + std::string(pick(2) ? "<" : "=") + " " + a;
    }
  }

  int pick(int n) { return int(rng_() % uint32_t(n)); }

 private:
  std::string number_leaf() {
    static const char* leaves[] = {"f", "{nan}", "{inf}", "{zinf}", "-{inf}", "2.5", "0.0", "-1e308", "NULL", "k * 1.0", "CAST(k AS REAL)"};
    return leaves[pick(int(std::size(leaves)))];
  }
  std::mt19937 rng_;
};

}  // namespace

TEST_CASE("db null/nan: 300 random expressions over NULL, NaN and infinities agree with SQLite") {
  ValidationClean clean;
  RandomExpr gen(20261128);
  for (int q = 0; q < 300; ++q) {
    switch (q % 3) {
      case 0: check_all({"SELECT id, " + gen.number(3) + ", " + gen.condition(3) + " FROM t"}); break;
      case 1: check_all({"SELECT id FROM t WHERE " + gen.condition(3)}); break;
      default: {
        const std::string x = gen.number(3);
        check_all({"SELECT k, COUNT(" + x + "), SUM(" + x + "), MIN(" + x + "), MAX(" + x + "), AVG(" + x + ") FROM t GROUP BY k"});
      }
    }
  }
}
