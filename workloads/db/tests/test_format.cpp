// `--format csv` against the sqlite3 shell itself: the same typed tables are recreated in
// `sqlite3 -csv [-header] :memory:` by a script, the same query runs there, and the device's rows
// formatted by format_csv must be the same bytes (ORDER BY total orders only, so row order is
// fixed on both sides).
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::device;
using weft::db::test::ValidationClean;

namespace {

// SQL that recreates `db` in the shell: declared types as the loader inferred them, REALs
// written with %.17g (round-trips), text as a quoted literal, NULL as NULL.
void write_tables(std::ostream& out, const Database& db) {
  for (const Table& t : db.tables()) {
    out << "CREATE TABLE " << t.name << " (";
    for (size_t c = 0; c < t.columns.size(); ++c)
      out << (c ? ", " : "") << t.columns[c].name << " "
          << (t.columns[c].type == Type::Int ? "INTEGER" : t.columns[c].type == Type::Float ? "REAL" : "TEXT");
    out << ");\n";
    for (size_t r = 0; r < t.rows; ++r) {
      out << "INSERT INTO " << t.name << " VALUES (";
      for (size_t c = 0; c < t.columns.size(); ++c) {
        const Column& col = t.columns[c];
        out << (c ? ", " : "");
        if (col.nulls[r]) {
          out << "NULL";
        } else if (col.type == Type::Int) {
          out << col.ints[r];
        } else if (col.type == Type::Float) {
          char buf[40];
          std::snprintf(buf, sizeof(buf), "%.17g", col.floats[r]);
          out << buf;
        } else {
          std::string s;
          for (char ch : col.strings[r]) s += ch == '\'' ? std::string("''") : std::string(1, ch);
          out << "'" << s << "'";
        }
      }
      out << ");\n";
    }
  }
}

// What `sqlite3 -csv [-header] :memory:` prints for `sql` over `db`.
std::string sqlite3_shell_csv(const Database& db, const std::string& sql, bool header) {
  const std::string script = std::filesystem::temp_directory_path().string() + "/weft_db_csv_check.sql";
  {
    std::ofstream out(script);
    write_tables(out, db);
    out << sql << ";\n";
  }
  std::string shell;
  {
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(("sqlite3 -csv " + std::string(header ? "-header " : "") + ":memory: < '" + script + "'").c_str(), "r"), pclose);
    REQUIRE(p);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p.get())) > 0) shell.append(buf, n);
  }
  std::filesystem::remove(script);
  return shell;
}

void check_csv(Database& db, const std::string& sql) {
  INFO(sql);
  DeviceQuery q(device(), db, prepare_sql(sql, db));
  const ResultSet rows = q.run();
  for (bool header : {true, false}) {
    const std::string shell = sqlite3_shell_csv(db, sql, header);
    CHECK(!shell.empty());  // no sqlite3 binary (tools/setup.sh installs it) fails here
    CHECK(format_csv(rows, header) == shell);
  }
}

}  // namespace

TEST_CASE("db format: --format csv output is byte-identical to the sqlite3 shell on the example tables") {
  ValidationClean clean;
  Database db;
  db.add(load_csv_file(std::string(WEFT_DB_EXAMPLES) + "/orders.csv", "orders"));
  db.add(load_csv_file(std::string(WEFT_DB_EXAMPLES) + "/customers.csv", "customers"));
  check_csv(db,
            "SELECT c.name, c.city, o.amount, o.qty * o.amount, o.region FROM orders o JOIN customers c ON o.customer = c.id "
            "ORDER BY o.id LIMIT 40");
  // Float SUM/AVG add exactly and round once (exact_sum.glsl), so they no longer change with the
  // order in which atomics place the group members; the shell's 15 digits must match here.
  check_csv(db, "SELECT region, COUNT(*), SUM(qty), AVG(amount), SUM(amount), MIN(amount), MAX(amount) FROM orders "
                "GROUP BY region ORDER BY region");
  check_csv(db, "SELECT city, COUNT(*) AS n FROM customers GROUP BY city ORDER BY n DESC, city");
}

TEST_CASE("db format: NULLs, quoting and REAL formatting are byte-identical to the sqlite3 shell") {
  ValidationClean clean;
  Database db;
  // Text that needs quoting (comma, quotes, newline, CR, tab, leading space, empty, UTF-8) and
  // text that does not; REALs at the edges of %!.15g (integral, tiny, huge, 17 digits, negative);
  // NULLs in every type.
  db.add(load_csv("id,s,f,i\n"
                  "1,plain,0.1,0\n"
                  "2,\"a,b\",2.0,-1\n"
                  "3,\"say \"\"hi\"\"\",1e300,9223372036854775807\n"
                  "4,\"two\nlines\",1e-7,-9223372036854775808\n"
                  "5,\" lead\",123456789012345678,\n"
                  "6,\"\",-1.5,7\n"
                  "7,,,\n"
                  "8,it's,0.30000000000000004,8\n"
                  "9,caf\xc3\xa9,100000000000000000000,9\n"
                  "10,\"tab\there\",2.5e-300,10\n"
                  "11,\"cr\rhere\",-0.5,11\n"
                  "12,semi;colon,1234567.125,12\n",
                  "t", "t.csv"));
  check_csv(db, "SELECT * FROM t ORDER BY id");
  check_csv(db, "SELECT id, f * 3, i / 2, s IS NULL, f + i FROM t ORDER BY id");
  check_csv(db, "SELECT COUNT(*), COUNT(f), SUM(i), AVG(f), MIN(s), MAX(s) FROM t WHERE id > 6");
  check_csv(db, "SELECT SUM(f), MIN(i), AVG(i) FROM t WHERE f IS NULL");  // NULL aggregates print empty
  check_csv(db, "SELECT s, COUNT(*) AS n FROM t GROUP BY s ORDER BY s DESC");
}
