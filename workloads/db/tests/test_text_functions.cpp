// Text functions of a column (core/text_functions.h), evaluated once per dictionary string on the
// host and applied on the device by one lookup: lower, upper, length, substr/substring, '||',
// date(), strftime(), EXTRACT and CAST(text AS INTEGER), against SQLite on random strings with
// NULLs, the empty string, UTF-8 and case variants, and on dates with invalid ones; in WHERE, the
// select list, GROUP BY, ORDER BY, LIKE, joins and aggregates. Then the refusals, by name.
#include <doctest/doctest.h>

#include <random>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::prepare_error;
using weft::db::test::ValidationClean;

namespace {

// Random strings over an alphabet of ASCII letters in both cases, digits, '%', a space and
// two- and three-byte UTF-8 characters; every tenth value NULL, some empty.
std::string random_text(std::mt19937& rng) {
  static const char* pieces[] = {"a", "b", "A", "B", "z", "Z", "1", "7", "%", " ", "é", "É", "ß", "€", "ab", "ABC"};
  std::string s;
  for (int n = int(rng() % 7); n > 0; --n) s += pieces[rng() % 16];
  return s;
}

std::string csv_field(const std::string& s) {
  std::string q = "\"";
  for (char ch : s) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return q + "\"";
}

Database& texts_db() {
  static Database db = [] {
    std::mt19937 rng(21);
    std::string s = "id,a,b,n\n", t = "id,c\n";
    for (int r = 1; r <= 300; ++r) {
      const bool a_null = rng() % 10 == 0, b_null = rng() % 10 == 0;
      s += std::to_string(r) + "," + (a_null ? "" : csv_field(random_text(rng))) + "," +
           (b_null ? "" : csv_field(random_text(rng))) + "," + std::to_string(rng() % 5) + "\n";
      t += std::to_string(r) + "," + csv_field(std::string(1, "abzAB"[rng() % 5])) + "\n";
    }
    Database d;
    d.add(load_csv(s, "s", "s.csv"));
    d.add(load_csv(t, "t", "t.csv"));
    // Numbers as text for CAST: signs, spaces, fractions, trailing text, overflow, none.
    d.add(load_csv("id,x\n1,12\n2,\" 7x\"\n3,-3\n4,\"\"\n5,abc\n6,99999999999999999999\n7,-99999999999999999999\n"
                   "8,1.9\n9,+5\n10,\n11,0x10\n12,-9223372036854775808\n13,\"\t42\"\n14,12eggs\n15,7e\n16,2.5E-x\n",
                   "nums", "nums.csv"));
    return d;
  }();
  return db;
}

QueryStats check(const std::string& sql) {
  static Sqlite peer(texts_db());
  return weft::db::test::check_query(texts_db(), peer, sql);
}

// Dates: valid ones (leap days, month ends, year ends), strings SQLite reads as no date (NULL:
// month 13, day 00, day 32, words, the empty string), trailing spaces, NULLs.
Database& days_db() {
  static Database db = [] {
    std::mt19937 rng(1997);
    std::string s = "id,d,c_phone\n";
    const char* odd[] = {"2001-13-01", "2001-00-05", "1999-12-00", "1999-12-32", "abc", "", "1996-02-29  ", "year"};
    for (int r = 1; r <= 200; ++r) {
      std::string d;
      if (r % 17 == 0) d = "";  // NULL
      else if (r % 9 == 0) d = csv_field(odd[rng() % 8]);
      else {
        const int y = 1992 + int(rng() % 8), m = 1 + int(rng() % 12);
        const int last = m == 2 ? (y % 4 == 0 ? 29 : 28) : (m == 4 || m == 6 || m == 9 || m == 11) ? 30 : 31;
        char text[16];
        std::snprintf(text, sizeof text, "%04d-%02d-%02d", y, m, rng() % 3 ? 1 + int(rng() % last) : last);
        d = text;
      }
      s += std::to_string(r) + "," + d + "," + std::to_string(10 + rng() % 25) + "-" + std::to_string(100 + rng() % 900) + "\n";
    }
    Database d;
    d.add(load_csv(s, "o", "o.csv"));
    return d;
  }();
  return db;
}

QueryStats check_days(const std::string& sql) {
  static Sqlite peer(days_db());
  return weft::db::test::check_query(days_db(), peer, sql);
}

// Weft's form of a query against SQLite's form of it (SQLite lacks that syntax).
void check_days_as(const std::string& weft_sql, const std::string& sqlite_sql) {
  static Sqlite peer(days_db());
  weft::db::test::check_query_as(days_db(), peer, weft_sql, sqlite_sql);
}

std::string error_of(const std::string& sql) { return prepare_error(texts_db(), sql); }

}  // namespace

TEST_CASE("db text functions: lower, upper and length of a column agree with SQLite (ASCII folding, UTF-8 characters)") {
  ValidationClean clean;
  check("SELECT id, lower(a), upper(a), length(a), length(b) FROM s");
  check("SELECT id, upper(lower(a)), length(upper(b)) FROM s WHERE n < 3");
}

TEST_CASE("db text functions: substr and substring agree with SQLite for every start and length, negative and zero included") {
  ValidationClean clean;
  for (int start = -8; start <= 8; ++start) {
    check("SELECT id, substr(a, " + std::to_string(start) + ") FROM s");
    for (int len : {-4, -1, 0, 1, 3})
      check("SELECT id, substr(a, " + std::to_string(start) + ", " + std::to_string(len) + "), substring(b, " +
            std::to_string(start) + ", " + std::to_string(len) + ") FROM s");
  }
}

TEST_CASE("db text functions: instr of a column and a constant agrees with SQLite (characters, 0 when absent, 1 for '')") {
  ValidationClean clean;
  check("SELECT id, instr(a, 'b'), instr(a, 'é'), instr(b, 'AB'), instr(a, ''), instr(b, 7), instr(a, NULL) FROM s");
  check("SELECT id FROM s WHERE instr(lower(a), 'ab') > 1 ORDER BY instr(a, 'ß') DESC, id");
}

TEST_CASE("db text functions: '||' of a column with constants agrees with SQLite (numbers as text, NULL gives NULL)") {
  ValidationClean clean;
  check("SELECT id, 'x' || a || 'y', a || 17, -3 || b, a || '' FROM s");
  check("SELECT id, a || NULL, NULL || b FROM s");
  check("SELECT id FROM s WHERE a || 'z' = 'abz' OR 'é' || b < 'éa'");
}

TEST_CASE("db text functions: derived text compares with literals and columns in dictionary order") {
  ValidationClean clean;
  check("SELECT id FROM s WHERE substr(a, 1, 2) = 'ab'");
  check("SELECT id FROM s WHERE substr(a, 1, 2) < 'b' AND lower(b) >= 'a'");
  check("SELECT id FROM s WHERE upper(a) = b OR lower(a) > b");
  check("SELECT id FROM s WHERE substr(a, 2, 1) IN ('a', 'B', 'é') AND lower(a) NOT IN ('ab', '')");
  check("SELECT id FROM s WHERE lower(a) LIKE 'a%' OR upper(b) NOT LIKE '%B_'");
  check("SELECT id, CASE WHEN lower(a) BETWEEN 'a' AND 'b' THEN upper(a) ELSE b END FROM s");
}

TEST_CASE("db text functions: derived text orders, groups and aggregates as SQLite does") {
  ValidationClean clean;
  check("SELECT id, lower(a) FROM s ORDER BY lower(a), id");
  check("SELECT substr(a, 1, 1) AS f, COUNT(*) FROM s GROUP BY substr(a, 1, 1) ORDER BY f");
  check("SELECT lower(a), COUNT(*), MIN(id) FROM s GROUP BY lower(a) HAVING COUNT(*) > 1 ORDER BY 1 DESC");
  check("SELECT n, COUNT(DISTINCT substr(a, 1, 2)), COUNT(DISTINCT lower(a)), MIN(upper(a)), MAX(length(b)) FROM s GROUP BY n");
  check("SELECT DISTINCT substr(b, -1) FROM s ORDER BY 1");
  check("SELECT n, upper(MIN(a)), lower(MAX(b)) FROM s GROUP BY n ORDER BY n");
  check("SELECT upper(a), COUNT(*) FROM s GROUP BY a");
  check("SELECT SUM(length(a)), AVG(length(b)) FROM s");
}

TEST_CASE("db text functions: derived text in a join's condition and on its right side") {
  ValidationClean clean;
  check("SELECT s.id, t.c FROM s JOIN t ON s.id = t.id WHERE lower(substr(s.a, 1, 1)) = lower(t.c)");
  check("SELECT s.id, upper(t.c) || '!' FROM s LEFT JOIN t ON s.n = t.id WHERE s.id < 40");
}

TEST_CASE("db text functions: one map entry per distinct string of the column, not per row") {
  Database& db = texts_db();
  const db::Plan plan = prepare_sql("SELECT lower(a) FROM s", db, weft::db::test::device());
  const Column& a = db.table(size_t(db.find("s"))).columns[1];
  std::vector<std::string> distinct;
  for (size_t r = 0; r < a.strings.size(); ++r)
    if (!a.nulls[r]) distinct.push_back(a.strings[r]);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  REQUIRE(plan.outputs[0]->kind == BExpr::Map);
  CHECK(plan.outputs[0]->map->codes.size() == distinct.size());
  CHECK(distinct.size() < 300);  // rows repeat strings
}

TEST_CASE("db text functions: CAST(text AS INTEGER) agrees with SQLite (spaces, signs, trailing text, saturation)") {
  ValidationClean clean;
  check("SELECT id, CAST(x AS INTEGER), CAST(substr(x, 2) AS INTEGER) FROM nums");
  check("SELECT id FROM nums WHERE CAST(x AS INTEGER) > 5");
  check("SELECT id, CAST(' 12abc' AS INTEGER), CAST('-' AS INTEGER) FROM nums WHERE id = 1");
}

TEST_CASE("db text functions: date() of a column with modifiers agrees with SQLite (invalid dates NULL)") {
  ValidationClean clean;
  check_days("SELECT id, date(d), date(d, '+1 month'), date(d, '-90 days', '+1 year'), date(d, '+31 DAYS') FROM o");
  check_days("SELECT id FROM o WHERE date(d, '+30 days') < '1995-03-15' ORDER BY id");
  check_days("SELECT id FROM o WHERE d >= date('1994-01-01') AND date(d, '+3 months') < date('1994-01-01', '+1 year')");
}

TEST_CASE("db text functions: strftime and EXTRACT of a column agree with SQLite's strftime") {
  ValidationClean clean;
  check_days("SELECT id, strftime('%Y', d), strftime('%m/%d', d), strftime('day %j of %Y, 100%%', d) FROM o");
  check_days("SELECT strftime('%Y', d) AS y, COUNT(*) FROM o GROUP BY strftime('%Y', d) ORDER BY y");
  check_days("SELECT CAST(strftime('%Y', d) AS INTEGER) AS y, SUM(id) FROM o WHERE CAST(strftime('%m', d) AS INTEGER) <= 6 "
             "GROUP BY CAST(strftime('%Y', d) AS INTEGER) ORDER BY y");
  check_days_as("SELECT id, EXTRACT(YEAR FROM d), EXTRACT(month FROM d), EXTRACT(DAY FROM d) FROM o",
                "SELECT id, CAST(strftime('%Y', d) AS INTEGER), CAST(strftime('%m', d) AS INTEGER), "
                "CAST(strftime('%d', d) AS INTEGER) FROM o");
  check_days_as("SELECT EXTRACT(YEAR FROM d) AS y, COUNT(*) FROM o GROUP BY EXTRACT(YEAR FROM d) ORDER BY y",
                "SELECT CAST(strftime('%Y', d) AS INTEGER) AS y, COUNT(*) FROM o GROUP BY 1 ORDER BY y");
}

TEST_CASE("db text functions: TPC-H's country code of a phone number (Q22's substring) agrees with SQLite") {
  ValidationClean clean;
  check_days("SELECT substr(c_phone, 1, 2) AS code, COUNT(*) FROM o WHERE substr(c_phone, 1, 2) IN ('13', '31', '23', '29') "
             "GROUP BY substr(c_phone, 1, 2) ORDER BY code");
  check_days_as("SELECT substring(c_phone FROM 1 FOR 2), substring(c_phone FROM 4) FROM o",
                "SELECT substr(c_phone, 1, 2), substr(c_phone, 4) FROM o");
}

TEST_CASE("db text functions: constant calls are folded when parsed, as SQLite computes them") {
  ValidationClean clean;
  check("SELECT id, lower('AbÉ'), upper('straße'), length('€uro'), substr('abcdef', -3, 2), 'a' || 'b' || 1 FROM s WHERE id < 3");
  check("SELECT id, length(NULL), substr('abc', NULL), 'x' || NULL FROM s WHERE id < 3");
  check_days_as("SELECT id, EXTRACT(YEAR FROM '1998-12-01'), strftime('%j', '2000-12-31') FROM o WHERE id < 3",
                "SELECT id, 1998, strftime('%j', '2000-12-31') FROM o WHERE id < 3");
}

TEST_CASE("db text functions: a function of a number, of two columns or of a computed text is refused by name") {
  CHECK(error_of("SELECT lower(n) FROM s") ==
        "bad input: sql:1:8: lower of int in 'lower(n)' is not supported (only of text: a function of a number would be "
        "computed per row)");
  CHECK(error_of("SELECT n || 'a' FROM s") ==
        "bad input: sql:1:8: || of int in 'n || 'a'' is not supported (only of text: a function of a number would be computed "
        "per row)");
  CHECK(error_of("SELECT length(n + 1.5) FROM s").find("length of float in 'length(n + 1.5)' is not supported") != std::string::npos);
  CHECK(error_of("SELECT a || b FROM s") ==
        "bad input: sql:1:8: '||' of two non-constant values is not supported (only a value with constant text: x || 'lit')");
  CHECK(error_of("SELECT upper(coalesce(a, b)) FROM s") ==
        "bad input: sql:1:8: 'upper(coalesce(a, b))' is not supported: a text function's operand must be a text column, a "
        "text function of one, or a constant");
  // A join key is a column: derived text joins as a condition beside one (tested above), not as the key.
  CHECK(error_of("SELECT s.id FROM s JOIN t ON lower(s.a) = t.c") ==
        "bad input: sql:1:30: JOIN ... ON needs an equality between a column of each table (t1.a = t2.b)");
  CHECK(error_of("SELECT s.id FROM s, t WHERE lower(s.a) = t.c").find("no WHERE equality joins 't'") != std::string::npos);
  CHECK(error_of("SELECT a || 1.5 FROM s") ==
        "bad input: sql:1:13: '||' of a real literal is not supported (write it as a string literal)");
  CHECK(error_of("SELECT instr(a, b) FROM s") == "bad input: sql:1:17: instr() takes a string literal here");
  CHECK(error_of("SELECT substr(a, n) FROM s") == "bad input: sql:1:18: substr() start must be an integer literal");
  CHECK(error_of("SELECT substr(a, 1, 2.5) FROM s") == "bad input: sql:1:21: substr() length must be an integer literal");
  CHECK(error_of("SELECT CAST(a AS REAL) FROM s") ==
        "bad input: sql:1:8: CAST of text AS REAL is not supported (only AS INTEGER)");
  CHECK(error_of("SELECT CAST('-2.5E+1' AS INTEGER) FROM s").find("a number with an exponent is not supported") !=
        std::string::npos);
  CHECK(error_of("SELECT CAST('1e3' AS INTEGER) FROM s") ==
        "bad input: sql:1:13: CAST('1e3' AS INTEGER): a number with an exponent is not supported (SQLite versions differ on it)");
}

TEST_CASE("db text functions: date formats, modifiers and time values Weft does not evaluate are refused by name") {
  auto error = [](const std::string& sql) { return prepare_error(days_db(), sql); };
  CHECK(error("SELECT strftime('%H:%M', d) FROM o") ==
        "bad input: sql:1:17: strftime() format '%H' is not supported (only %Y %m %d %j %% and literal text)");
  CHECK(error("SELECT strftime(d, d) FROM o") == "bad input: sql:1:17: strftime() takes a string literal here");
  CHECK(error("SELECT date(d, 'start of month') FROM o").find("sql:1:16: date(): the modifier 'start of month' is not a modifier") !=
        std::string::npos);
  CHECK(error("SELECT EXTRACT(HOUR FROM d) FROM o") == "bad input: sql:1:16: EXTRACT of 'HOUR' is not supported (YEAR, MONTH or DAY)");
  CHECK(error("SELECT strftime('%Y', d, '+1 day') FROM o") == "bad input: sql:1:8: strftime() takes 2 arguments, not 3");
  Database times;
  times.add(load_csv("id,d\n1,1998-01-01\n2,1998-02-30\n", "o", "o.csv"));
  CHECK(prepare_error(times, "SELECT date(d) FROM o") ==
        "bad input: sql:1:8: date() of '1998-02-30': a day past its month's end is not supported (SQLite versions differ on it)");
  Database clock;
  clock.add(load_csv("id,d\n1,1998-01-01 10:00\n", "o", "o.csv"));
  CHECK(prepare_error(clock, "SELECT strftime('%Y', d) FROM o") ==
        "bad input: sql:1:8: strftime() of '1998-01-01 10:00' is not supported (Weft reads 'YYYY-MM-DD' dates; SQLite may read "
        "this as a time, a julian day number or 'now')");
}

// TPC-H's shape at a million rows: few distinct dates (1992..1998, 2557 days) and phone prefixes
// under many rows, so the maps stay small (one entry per distinct string) however many rows read
// them. Runs in weft_db_large_tests.
TEST_CASE("db large: text functions over a million rows of dates and phones agree with SQLite, maps sized by distinct strings") {
  ValidationClean clean;
  std::mt19937 rng(22);
  std::string csv = "id,d,phone\n";
  csv.reserve(30'000'000);
  for (int r = 0; r < 1'000'000; ++r) {
    const int day = int(rng() % 2557);  // days from 1992-01-01
    int y = 1992, doy = day;
    for (;; ++y) {
      const int n = (y % 4 == 0) ? 366 : 365;
      if (doy < n) break;
      doy -= n;
    }
    static const int kBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365};
    const int leap = y % 4 == 0 ? 1 : 0;
    int m = 1;
    while (m < 12 && doy >= kBefore[m] + (m >= 2 ? leap : 0)) ++m;
    const int d = doy - kBefore[m - 1] - (m > 2 ? leap : 0) + 1;
    char line[64];
    std::snprintf(line, sizeof line, "%d,%04d-%02d-%02d,%d-%03d\n", r, y, m, d, 10 + int(rng() % 25), int(rng() % 1000));
    csv += line;
  }
  Database db;
  db.add(load_csv(csv, "o", "o.csv"));
  Sqlite peer(db);
  weft::db::test::check_query(db, peer,
                              "SELECT CAST(strftime('%Y', d) AS INTEGER) AS y, substr(phone, 1, 2) AS code, COUNT(*), SUM(id) "
                              "FROM o WHERE date(d, '+90 days') < '1998-06-01' AND substr(phone, 1, 2) IN ('13', '31', '23') "
                              "GROUP BY CAST(strftime('%Y', d) AS INTEGER), substr(phone, 1, 2) ORDER BY y, code");
  const db::Plan plan = prepare_sql("SELECT date(d, '+90 days') FROM o", db, weft::db::test::device());
  CHECK(plan.outputs[0]->map->codes.size() == 2557);
}
