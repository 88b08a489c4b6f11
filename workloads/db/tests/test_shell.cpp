// `weft db shell`: statements split at the semicolons outside literals and comments, run in one
// Session (rows as SQLite gives them), dot commands, and errors that do not end the session.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "db.h"
#include "device_fixture.h"
#include "shell.h"
#include "statements.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::device;
using weft::db::test::ValidationClean;

namespace {

Database shell_db() {
  Database d;
  d.add(load_csv("id,name,score\n1,ann,3.5\n2,bob,\n3,cy,9.25\n4,'semi;colon',1.0\n", "people", "people.csv"));
  return d;
}

struct ShellRun {
  std::string out;
  int failures = 0;
};

ShellRun run(Session& session, const std::string& input, ShellOptions o = {}) {
  std::istringstream in(input);
  std::ostringstream out;
  ShellRun r;
  r.failures = run_shell(session, in, out, o);
  r.out = out.str();
  return r;
}

// What the shell prints for `sql` in csv mode: SQLite's rows, formatted as `sqlite3 -csv`.
std::string sqlite_csv(const Database& db, const std::string& sql) {
  Sqlite peer(db);
  return format_csv(peer.query(sql), false);
}

}  // namespace

TEST_CASE("db statements: a statement ends at the first semicolon outside literals, quoted names and comments") {
  CHECK(complete_statement_length("SELECT 1; SELECT 2;") == 9);
  CHECK(complete_statement_length("SELECT ';' FROM t;") == 18);
  CHECK(complete_statement_length("SELECT 'it''s;' FROM t;") == 23);
  CHECK(complete_statement_length("SELECT \"a;b\" FROM t;") == 20);
  CHECK(complete_statement_length("SELECT 1 -- no; end here\n;") == 26);
  CHECK(complete_statement_length("SELECT /* ; */ 1;") == 17);
  CHECK(complete_statement_length("SELECT 1") == 0);
  CHECK(complete_statement_length("SELECT 'open;") == 0);
  CHECK(complete_statement_length("SELECT /* open;") == 0);
}

TEST_CASE("db statements: blanks, semicolons and comments alone are nothing to run") {
  CHECK(blank_sql("  ;\n -- note\n /* block */ ;"));
  CHECK_FALSE(blank_sql("-- note\nSELECT 1"));
  CHECK_FALSE(blank_sql("'unfinished"));
}

TEST_CASE("db shell: statements over several lines and several on one line print SQLite's rows") {
  ValidationClean clean;
  Session session(device(), shell_db());
  ShellOptions o;
  o.mode = "csv";
  const ShellRun r = run(session, "SELECT id, name FROM people\n  WHERE score > 2\n  ORDER BY id;\nSELECT COUNT(*) FROM people; SELECT name FROM people WHERE name LIKE '%;%';\n", o);
  CHECK(r.failures == 0);
  const Database db = shell_db();
  CHECK(r.out == sqlite_csv(db, "SELECT id, name FROM people WHERE score > 2 ORDER BY id") +
                     sqlite_csv(db, "SELECT COUNT(*) FROM people") +
                     sqlite_csv(db, "SELECT name FROM people WHERE name LIKE '%;%'"));
}

TEST_CASE("db shell: a last statement without its semicolon still runs at the end of input") {
  ValidationClean clean;
  Session session(device(), shell_db());
  ShellOptions o;
  o.mode = "csv";
  const ShellRun r = run(session, "SELECT MAX(id) FROM people", o);
  CHECK(r.out == sqlite_csv(shell_db(), "SELECT MAX(id) FROM people"));
}

TEST_CASE("db shell: an error is printed and the next statement runs") {
  ValidationClean clean;
  Session session(device(), shell_db());
  ShellOptions o;
  o.mode = "csv";
  const ShellRun r = run(session, "SELECT nope FROM people;\nSELECT id FROM people WHERE id = 2;\n.frobnicate\n", o);
  CHECK(r.failures == 2);
  CHECK(r.out.find("error: ") == 0);
  CHECK(r.out.find("nope") != std::string::npos);
  CHECK(r.out.find("\n2\n") != std::string::npos);
  CHECK(r.out.find("error: unknown or malformed command '.frobnicate'") != std::string::npos);
}

TEST_CASE("db shell: .tables and .schema describe the loaded tables") {
  ValidationClean clean;
  Session session(device(), shell_db());
  const ShellRun r = run(session, ".tables\n.schema people\n.schema missing\n");
  CHECK(r.out.find("people (4 rows, 3 columns)") != std::string::npos);
  CHECK(r.out.find("CREATE TABLE people(id int, name text, score float);") != std::string::npos);
  CHECK(r.out.find("error: no table 'missing'") != std::string::npos);
}

TEST_CASE("db shell: .timer reports each query's times, and the repeated query's cached program") {
  ValidationClean clean;
  Session session(device(), shell_db());
  const ShellRun r = run(session, ".timer on\nSELECT SUM(score) FROM people;\nSELECT SUM(score) FROM people;\n");
  const size_t first = r.out.find("time: plan");
  REQUIRE(first != std::string::npos);
  const size_t second = r.out.find("time: plan", first + 1);
  REQUIRE(second != std::string::npos);
  const size_t cached = r.out.find("cached program");
  CHECK(cached != std::string::npos);
  CHECK(cached > second);
  CHECK(r.out.find("uploaded 0 bytes", second) != std::string::npos);
  CHECK(r.out.substr(first, second - first).find("cached program") == std::string::npos);
}

TEST_CASE("db shell: .quit stops before the statements after it") {
  ValidationClean clean;
  Session session(device(), shell_db());
  ShellOptions o;
  o.mode = "csv";
  const ShellRun r = run(session, "SELECT 1 FROM people LIMIT 1;\n.quit\nSELECT nope;\n", o);
  CHECK(r.failures == 0);
  CHECK(r.out == "1\n");
}

TEST_CASE("db shell: INSERT, UPDATE and DELETE print nothing; the queries after them see the change") {
  ValidationClean clean;
  Session session(device(), shell_db());
  ShellOptions o;
  o.mode = "csv";
  const ShellRun r = run(session, "INSERT INTO people VALUES (5, 'dee', 2.5);\nUPDATE people SET score = 0 WHERE score IS NULL;\n"
                                  "DELETE FROM people WHERE id = 1;\nSELECT id, name, score FROM people ORDER BY id;\n", o);
  CHECK(r.failures == 0);
  Database db = shell_db();
  Sqlite peer(db);
  for (const char* change : {"INSERT INTO people VALUES (5, 'dee', 2.5)", "UPDATE people SET score = 0 WHERE score IS NULL",
                             "DELETE FROM people WHERE id = 1"})
    peer.query(change);
  CHECK(r.out == format_csv(peer.query("SELECT id, name, score FROM people ORDER BY id"), false));
}
