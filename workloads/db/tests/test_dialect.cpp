// SQL forms beyond the first subset, each against SQLite on a table with NULLs in every column
// type and floats whose arithmetic makes NaN (NULL in SQLite): BETWEEN, IN (list), DISTINCT,
// HAVING, CASE, coalesce/ifnull, CAST, abs and round, COUNT(DISTINCT); and [NOT] LIKE on a
// table of words with mixed case, wildcard characters and non-ASCII text.
#include <doctest/doctest.h>

#include <cctype>
#include <cstdio>
#include <random>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"
#include "like.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::ValidationClean;
using weft::db::test::prepare_error;

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

// Words for LIKE: case variants, '%', '_', '\\' and a quote inside the text, the empty string and
// NULL, and non-ASCII letters, which SQLite's LIKE does not fold ('é' against 'É'); a second
// table to join them with.
Database& words_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,w,grp,n\n"
                   "1,apple,1,10\n"
                   "2,Apple,1,\n"
                   "3,APPLE pie,2,3\n"
                   "4,banana,2,\n"
                   "5,,3,5\n"
                   "6,\"\",3,6\n"
                   "7,café,1,\n"
                   "8,CAFÉ,1,8\n"
                   "9,caf%,2,9\n"
                   "10,caf_e,2,\n"
                   "11,100%,3,11\n"
                   "12,a_b,3,12\n"
                   "13,a\\b,1,13\n"
                   "14,Ärger,2,14\n"
                   "15,ärger,2,\n"
                   "16,straße,3,16\n"
                   "17,it's,1,17\n"
                   "18,ab,2,18\n"
                   "19,\"a,b\",3,19\n"
                   "20,,1,\n",
                   "words", "words.csv"));
    d.add(load_csv("grp,tag\n1,fruit\n2,Food\n3,\n4,other\n", "tags", "tags.csv"));
    return d;
  }();
  return db;
}

Sqlite& words_peer() {
  static Sqlite peer(words_db());
  return peer;
}

QueryStats check_words(const std::string& sql) { return weft::db::test::check_query(words_db(), words_peer(), sql); }

std::string error_of(const std::string& sql, Database& db = dialect_db()) { return prepare_error(db, sql); }

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

TEST_CASE("db dialect: REAL arithmetic of constants is done while planning, with SQLite's bits and NaN as NULL") {
  ValidationClean clean;
  // Folded to `f BETWEEN 0.05 AND 0.07`-like constants, the predicate runs as the scan's term list.
  CHECK(check("SELECT id FROM t WHERE f BETWEEN 2.5 - 1.0 AND 2.5 + 0.1 * 3").term_filters > 0);
  check("SELECT id, f FROM t WHERE f > 0.06 - 0.01 AND f < 1e300 * 10 ORDER BY id");
  check("SELECT id, 1e308 * 10 - 1e308 * 10, 0.1 + 0.2, 0.3 - 0.1 * 3, 2 * 1.5 - 1 FROM t WHERE id < 3");
  check("SELECT COUNT(*) FROM t WHERE f < 1e308 * 10 - 1e308 * 10");  // NaN is NULL: no row
  check("SELECT id FROM t WHERE k * 1.0 = 3 - 1.0 ORDER BY id");
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
  // Planned without a device, a subquery cannot run first (test_subqueries.cpp runs them).
  try {
    prepare_sql("SELECT id FROM t WHERE k IN (SELECT k FROM t)", dialect_db());
    FAIL("a subquery was planned without a device");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "bad input: sql:1:24: subqueries need a device to run them first (IN (SELECT ...), EXISTS, (SELECT ...))");
  }
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

TEST_CASE("db dialect: HAVING agrees with SQLite (aggregates not selected, NULL and NaN groups)") {
  ValidationClean clean;
  check("SELECT k, COUNT(*) FROM t GROUP BY k HAVING COUNT(*) > 1");
  check("SELECT k, SUM(f) FROM t GROUP BY k HAVING MAX(f) > 0 OR k IS NULL ORDER BY k");
  check("SELECT s, AVG(f) AS a FROM t GROUP BY s HAVING a IS NULL OR s = 'c' ORDER BY s");
  check("SELECT k FROM t GROUP BY k HAVING SUM(f * f - f * f) IS NULL");
  check("SELECT k, COUNT(*) FROM t GROUP BY k HAVING k BETWEEN 1 AND 3 AND MIN(id) < 5 ORDER BY 2 DESC, 1 LIMIT 2");
  check("SELECT COUNT(*) FROM t HAVING COUNT(*) > 100");  // no groups pass
  check("SELECT COUNT(*), SUM(k) FROM t HAVING SUM(k) > 0");
}

TEST_CASE("db dialect: CASE, coalesce and ifnull agree with SQLite, NULLs and NaN included") {
  ValidationClean clean;
  check("SELECT id, CASE WHEN k > 2 THEN 'big' WHEN k > 1 THEN 'mid' ELSE s END FROM t");
  check("SELECT id, CASE k WHEN 1 THEN f WHEN 2 THEN -f END, CASE WHEN f THEN 1 END, CASE NULL WHEN NULL THEN 1 ELSE 0 END FROM t");
  check("SELECT id, CASE WHEN f * f - f * f IS NULL THEN 'nan' ELSE 'num' END, CASE WHEN k IS NULL THEN NULL ELSE k * 2 END FROM t");
  check("SELECT CASE WHEN k > 1 THEN 'x' ELSE 'y' END AS c, COUNT(*), SUM(CASE WHEN f > 0 THEN f ELSE 0.0 END) FROM t "
        "GROUP BY CASE WHEN k > 1 THEN 'x' ELSE 'y' END ORDER BY c");
  check("SELECT id FROM t WHERE CASE WHEN k IS NULL THEN 1 ELSE k > 2 END ORDER BY id");
  check("SELECT id, coalesce(k, id * 100), coalesce(s, 'none'), ifnull(f, -1.0), coalesce(NULL, k, 7), "
        "coalesce(f * f - f * f, 0.5) FROM t");
  check("SELECT coalesce(k, -1) AS g, COUNT(*) FROM t GROUP BY coalesce(k, -1) HAVING COUNT(*) > 0 ORDER BY g");
  check("SELECT id, CASE WHEN SUM(f) > 0 THEN 1 ELSE 0 END FROM t GROUP BY id ORDER BY id");
}

TEST_CASE("db dialect: CAST to INTEGER/REAL, abs and round agree with SQLite") {
  ValidationClean clean;
  check("SELECT id, CAST(f AS INTEGER), CAST(k AS REAL), CAST(f * 1e300 AS INTEGER), CAST(k AS INT), CAST(f AS DOUBLE) FROM t");
  check("SELECT id, CAST(-f * 1e300 AS BIGINT), CAST(f / 3 AS INTEGER), CAST(NULL AS REAL), CAST(f * f - f * f AS INTEGER) FROM t");
  check("SELECT id, abs(k), abs(f), abs(-k), abs(NULL), abs(f * f - f * f) FROM t");
  check("SELECT id, round(f), round(f / 3), round(k), round(-f - 0.5), round(f * 1e-300, 0), round(f * f - f * f) FROM t");
  check("SELECT round(0.49999999999999994), round(-2.5), round(2.5), round(-0.4), round(4503599627370497.0), "
        "round(-4503599627370497.0), round(1e300), CAST(9.2233720368547758e18 AS INTEGER), CAST(-1e19 AS INTEGER) FROM t "
        "WHERE id = 1");
  check("SELECT abs(k) AS a, COUNT(*) FROM t WHERE round(f) BETWEEN -10 AND 10 GROUP BY abs(k) ORDER BY a");
  // abs of the smallest int64 overflows: SQLite fails the query too.
  const std::string overflow = "SELECT abs(-9223372036854775807 - 1) FROM t";
  Sqlite peer(dialect_db());
  CHECK_THROWS(peer.query(overflow));
  DeviceQuery q(weft::db::test::device(), dialect_db(), prepare_sql(overflow, dialect_db()));
  CHECK_THROWS_AS(q.run(), Error);
}

TEST_CASE("db dialect: LIKE with %, _, ESCAPE and ASCII-only case folding agrees with SQLite") {
  ValidationClean clean;
  for (const char* pattern : {"'a%'", "'A%'", "'%e'", "'%E'", "'%PP%'", "'a_b'", "'caf_'", "'caf%'", "'café'",
                              "'CAFÉ'", "'caf_'", "'_____'", "'______'", "'%ß%'", "'ärger'", "'Ärger'", "'%RGER'",
                              "''", "'%'", "'%%'", "'_%'", "'%_'", "'%''%'", "'a\\b'", "'%,%'", "'%a%b%'"})
    check_words(std::string("SELECT id FROM words WHERE w LIKE ") + pattern);
  check_words("SELECT id FROM words WHERE w LIKE 'a\\_b' ESCAPE '\\'");   // the escaped _ is literal
  check_words("SELECT id FROM words WHERE w LIKE '%\\%' ESCAPE '\\'");    // ends in a literal %
  check_words("SELECT id FROM words WHERE w LIKE 'caf\\%' ESCAPE '\\'");
  check_words("SELECT id FROM words WHERE w LIKE 'a\\\\b' ESCAPE '\\'");  // an escaped escape
  check_words("SELECT id FROM words WHERE w LIKE 'caf\\' ESCAPE '\\'");    // a trailing escape matches nothing
  check_words("SELECT id FROM words WHERE w LIKE 'caf%%' ESCAPE '%'");      // '%' escapes, no longer a wildcard
  check_words("SELECT id FROM words WHERE w LIKE 'a__b' ESCAPE '_'");
  check_words("SELECT id FROM words WHERE w LIKE '100x%' ESCAPE 'x'");
  check_words("SELECT id FROM words WHERE w LIKE 'caféé%' ESCAPE 'é'");    // a non-ASCII escape
  check_words("SELECT id FROM words WHERE w like 'A%' AND n > 5 OR w LIKE '%ger'");
}

// The host matcher behind every LIKE, against SQLite's own on random short strings and patterns
// over letters of both cases, wildcards, the escape character and multi-byte characters, some
// malformed (a lone lead byte, a stray continuation byte).
TEST_CASE("db dialect: the LIKE matcher agrees with SQLite's on random strings and patterns") {
  static const char* pieces[] = {"a", "A", "b", "%", "_", "\\", "é", "É", "ß", "\xc3", "\x80", "z"};
  std::mt19937 rng(7);
  auto text = [&] {
    std::string s;
    for (size_t n = rng() % 7; n > 0; --n) s += pieces[rng() % std::size(pieces)];
    return s;
  };
  auto literal = [](const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
  };
  // Half the patterns come from the string: a byte made a wildcard, ASCII letters' case flipped.
  auto pattern_of = [&](std::string p) {
    if (!p.empty()) p[rng() % p.size()] = rng() % 2 ? '%' : '_';
    for (char& c : p)
      if (std::isalpha(static_cast<unsigned char>(c)) && rng() % 2) c = char(c ^ 0x20);
    return p;
  };
  Sqlite peer(words_db());
  size_t matches = 0;
  for (int batch = 0; batch < 20; ++batch) {
    std::vector<std::string> xs, ps;
    std::vector<bool> escaped;
    std::string sql = "SELECT ";
    for (int k = 0; k < 100; ++k) {
      xs.push_back(text());
      ps.push_back(rng() % 2 ? text() : pattern_of(xs.back()));
      escaped.push_back(rng() % 2 == 0);
      sql += (k ? ", " : "") + literal(xs.back()) + " LIKE " + literal(ps.back()) + (escaped.back() ? " ESCAPE '\\'" : "");
    }
    const ResultSet rs = peer.query(sql);
    REQUIRE(rs.rows.size() == 1);
    for (size_t k = 0; k < xs.size(); ++k) {
      INFO("'" << xs[k] << "' LIKE '" << ps[k] << "'" << (escaped[k] ? " ESCAPE '\\'" : ""));
      CHECK(like_matches(ps[k], xs[k], escaped[k] ? '\\' : 0) == (rs.rows[0][k].i == 1));
      matches += rs.rows[0][k].i == 1;
    }
  }
  CHECK(matches > 400);  // the cases are not all trivial mismatches
}

TEST_CASE("db dialect: NOT LIKE, NULLs, LIKE in the select list, CASE, GROUP BY, HAVING and a join agree with SQLite") {
  ValidationClean clean;
  check_words("SELECT id FROM words WHERE w NOT LIKE '%a%'");
  check_words("SELECT id FROM words WHERE NOT w LIKE 'c%' AND w NOT LIKE '%e'");
  check_words("SELECT id, w LIKE 'a%', w NOT LIKE '%E', w LIKE NULL, NULL LIKE 'a', w LIKE 'a' ESCAPE NULL, "
              "'Apple' LIKE 'a%' FROM words");
  check_words("SELECT id, CASE WHEN w LIKE 'c%' THEN 'c' WHEN w NOT LIKE '%p%' THEN 'no p' ELSE w END FROM words");
  check_words("SELECT w LIKE '%a%' AS has_a, COUNT(*), COUNT(n) FROM words GROUP BY w LIKE '%a%' ORDER BY has_a");
  check_words("SELECT grp, MAX(w) FROM words GROUP BY grp HAVING MAX(w) LIKE 's%' OR MIN(w) NOT LIKE '%a%' ORDER BY grp");
  check_words("SELECT grp, COUNT(*) FROM words WHERE w LIKE '%a%' GROUP BY grp ORDER BY grp");
  check_words("SELECT w.id, t.tag FROM words w JOIN tags t ON w.grp = t.grp WHERE w.w LIKE 'a%' OR t.tag LIKE 'f%'");
  check_words("SELECT w.id, t.tag FROM words w LEFT JOIN tags t ON w.grp = t.grp AND t.tag NOT LIKE 'fr%' "
              "WHERE t.tag LIKE '%o%' OR w.w LIKE '%é'");
  weft::db::test::check_both_joins(words_db(), words_peer(),
                                   "SELECT w.id, t.tag FROM words w JOIN tags t ON w.grp = t.grp WHERE w.w LIKE '%p%' OR t.tag LIKE 'F%'");
}

TEST_CASE("db dialect: LIKE forms outside the subset are refused by name with line and column") {
  CHECK(error_of("SELECT id FROM words WHERE w LIKE w", words_db()) ==
        "bad input: sql:1:35: LIKE with a pattern other than a string literal is not supported");
  CHECK(error_of("SELECT id FROM words WHERE w NOT LIKE 'a' || w", words_db()) ==
        "bad input: sql:1:39: NOT LIKE with a pattern other than a string literal is not supported");
  CHECK(error_of("SELECT id FROM words WHERE n LIKE '1%'", words_db()) ==
        "bad input: sql:1:30: LIKE of int is not supported (only of text)");
  CHECK(error_of("SELECT id FROM words WHERE n + 0.5 NOT LIKE '1%'", words_db()) ==
        "bad input: sql:1:36: NOT LIKE of float is not supported (only of text)");
  CHECK(error_of("SELECT id FROM words WHERE w LIKE 'a' ESCAPE 'ab'", words_db()) ==
        "bad input: sql:1:46: ESCAPE expression must be a single character");
  CHECK(error_of("SELECT id FROM words WHERE w LIKE 'a' ESCAPE ''", words_db()) ==
        "bad input: sql:1:46: ESCAPE expression must be a single character");
  CHECK(error_of("SELECT id FROM words WHERE w LIKE 'a' ESCAPE w", words_db()) ==
        "bad input: sql:1:46: ESCAPE with other than a string literal is not supported");
  CHECK(error_of("SELECT id FROM words WHERE w ESCAPE 'a'", words_db()) ==
        "bad input: sql:1:30: ESCAPE is only supported after LIKE pattern");
  CHECK(error_of("SELECT id FROM words WHERE w NOT GLOB 'a*'", words_db()) == "bad input: sql:1:30: NOT GLOB is not supported");
  CHECK(error_of("SELECT id FROM words WHERE w LIKE '" + std::string(50001, '%') + "'", words_db()) ==
        "bad input: sql:1:35: LIKE pattern longer than 50000 bytes is not supported (SQLite: LIKE or GLOB pattern too complex)");
}

TEST_CASE("db dialect: COUNT(DISTINCT x) agrees with SQLite (NULLs not counted, NaN is NULL, -0.0 is 0.0)") {
  ValidationClean clean;
  check("SELECT COUNT(DISTINCT k), COUNT(DISTINCT f), COUNT(DISTINCT s), COUNT(k), COUNT(*) FROM t");
  check("SELECT COUNT(DISTINCT f * f - f * f), COUNT(DISTINCT f * 0), COUNT(DISTINCT NULL), COUNT(DISTINCT 1) FROM t");
  check("SELECT k, COUNT(DISTINCT s), COUNT(DISTINCT f), COUNT(s), COUNT(DISTINCT k) FROM t GROUP BY k ORDER BY k");
  check("SELECT s, COUNT(DISTINCT k) AS n, MIN(DISTINCT k), MAX(DISTINCT f) FROM t GROUP BY s HAVING COUNT(DISTINCT k) > 0 "
        "ORDER BY n DESC, s");
  check("SELECT k % 2, s IS NULL, COUNT(DISTINCT k), COUNT(DISTINCT id / 3) FROM t GROUP BY k % 2, s IS NULL ORDER BY 1, 2");
  check("SELECT COUNT(DISTINCT k) FROM t WHERE id > 100");  // no rows: 0
  check("SELECT k, COUNT(DISTINCT s) FROM t WHERE id > 100 GROUP BY k");
  check("SELECT COUNT(DISTINCT s) + COUNT(DISTINCT k) * 10, CASE WHEN COUNT(DISTINCT k) > 3 THEN 'many' END FROM t");
  check("SELECT id, COUNT(DISTINCT k) FROM t GROUP BY id ORDER BY id");
  // Over a LEFT JOIN: the NULL-extended right rows count nothing.
  check_words("SELECT w.grp, COUNT(DISTINCT t.tag), COUNT(DISTINCT w.w), COUNT(DISTINCT w.n % 3) FROM words w "
              "LEFT JOIN tags t ON w.grp = t.grp AND t.tag LIKE 'f%' GROUP BY w.grp ORDER BY w.grp");
  weft::db::test::check_both_joins(words_db(), words_peer(),
                                   "SELECT t.tag, COUNT(DISTINCT w.w LIKE '%a%'), COUNT(DISTINCT w.n) FROM words w "
                                   "JOIN tags t ON t.grp = w.grp GROUP BY t.tag");
  CHECK(error_of("SELECT SUM(DISTINCT k) FROM t") == "bad input: sql:1:12: SUM(DISTINCT ...) is not supported");
  CHECK(error_of("SELECT AVG(DISTINCT f) FROM t") == "bad input: sql:1:12: AVG(DISTINCT ...) is not supported");
  CHECK(error_of("SELECT COUNT(DISTINCT *) FROM t") == "bad input: sql:1:23: expected an expression, got '*'");
}

// date() of constants, folded when the query is parsed (core/date.h), against SQLite's date().
namespace {

Database& dates_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,d\n1,1992-01-02\n2,1994-01-01\n3,1994-06-30\n4,1995-01-01\n5,1998-09-02\n6,1998-09-03\n7,1998-12-01\n8,\n",
                   "orders", "orders.csv"));
    return d;
  }();
  return db;
}

QueryStats check_dates(const std::string& sql) {
  static Sqlite peer(dates_db());
  return weft::db::test::check_query(dates_db(), peer, sql);
}

}  // namespace

TEST_CASE("db dialect: date() of constant strings is the date SQLite computes, in TPC-H's comparisons") {
  ValidationClean clean;
  check_dates("SELECT id FROM orders WHERE d <= date('1998-12-01', '-90 day')");                       // Q1
  check_dates("SELECT id FROM orders WHERE d >= date('1994-01-01') AND d < date('1994-01-01', '+1 year')");  // Q6
  check_dates("SELECT id FROM orders WHERE d >= '1994-01-01' AND d < date('1994-01-01', '+3 months')");  // Q4
  check_dates("SELECT id, date('2000-01-31', '+1 month'), date('2000-02-29', '+1 YEARS', '-1 Day') FROM orders");
}

TEST_CASE("db dialect: 300 random date() foldings agree with SQLite") {
  ValidationClean clean;
  std::mt19937 rng(20261127);
  const char* units[] = {"day", "days", "month", "months", "year", "years", "DAY", "Months"};
  for (int q = 0; q < 300; ++q) {
    const int y = 1900 + int(rng() % 200), m = 1 + int(rng() % 12);
    const int last = m == 2 ? ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0 ? 29 : 28) : (m == 4 || m == 6 || m == 9 || m == 11) ? 30 : 31;
    char date[16];
    // Half the days at a month's end, where moving by months or years carries into the next month.
    const int day = rng() % 2 ? last - int(rng() % 3) : 1 + int(rng() % last);
    std::snprintf(date, sizeof date, "%04d-%02d-%02d", y, m, day);
    std::string call = std::string("date('") + date + "'";
    for (int k = int(rng() % 3); k > 0; --k)
      call += std::string(", '") + (rng() % 2 ? "+" : "-") + std::to_string(rng() % 400) + " " + units[rng() % 8] + "'";
    check_dates("SELECT id, " + call + ") FROM orders WHERE id = 1");
  }
}

TEST_CASE("db dialect: date() of an invalid date or a modifier Weft does not fold is refused by name") {
  auto error = [](const std::string& sql) { return prepare_error(dates_db(), sql); };
  CHECK(error("SELECT date(d, 'weekday 1') FROM orders") ==
        "bad input: sql:1:16: date(): the modifier 'weekday 1' is not a modifier Weft folds ('[+-]N days', '[+-]N months' or "
        "'[+-]N years', N a whole number)");
  CHECK(error("SELECT id FROM orders WHERE d < date('2001-02-30')") ==
        "bad input: sql:1:38: date(): '2001-02-30' is not a valid 'YYYY-MM-DD' date (Weft folds date() of such dates only)");
  CHECK(error("SELECT date('2001-01-01', '+1.5 days') FROM orders").find("'+1.5 days' is not a modifier Weft folds") != std::string::npos);
  CHECK(error("SELECT date('2001-01-01', 'start of month') FROM orders").find("'start of month' is not a modifier") != std::string::npos);
  CHECK(error("SELECT date('2001-01-01', '+2 hours') FROM orders").find("has the unit 'hours'") != std::string::npos);
  CHECK(error("SELECT date('1998-12-01 10:00') FROM orders").find("is not a valid 'YYYY-MM-DD' date") != std::string::npos);
  CHECK(error("SELECT date('9999-12-31', '+1 day') FROM orders").find("leaves the years 0000..9999") != std::string::npos);
}

