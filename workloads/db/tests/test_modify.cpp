// INSERT / UPDATE / DELETE (modify()): every statement runs on the device-backed Database and in
// SQLite over the same tables; then the modified table's rows (host columns, in order, and a
// device SELECT *) and the rows affected are held to SQLite's. Type affinity, NULLs, NaN, new
// strings in the shared dictionary, and statements that fail part-way (which must change nothing).
#include <doctest/doctest.h>

#include <string>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"
#include "wdb.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::check_query;
using weft::db::test::device;
using weft::db::test::ValidationClean;

namespace {

// t: an int key, an int, a real and a text column with NULLs in each; u: a lookup table whose
// text shares the dictionary with t's.
Database sample() {
  Database d;
  d.add(load_csv("id,k,f,s\n1,10,1.5,apple\n2,,2.5,banana\n3,30,,cherry\n4,40,4.0,\n5,50,-1.0,apple\n", "t", "t.csv"));
  d.add(load_csv("g,name\n1,one\n2,two\n3,three\n", "u", "u.csv"));
  return d;
}

// The rows of a host table, in order; every Text code checked against the dictionary.
ResultSet host_rows(const Database& db, const Table& t) {
  ResultSet rs;
  for (const Column& c : t.columns) rs.names.push_back(c.name);
  for (size_t r = 0; r < t.rows; ++r) {
    Row row;
    for (const Column& c : t.columns) {
      Value v;
      v.type = c.type;
      v.null = c.nulls[r];
      if (!v.null && c.type == Type::Int) v.i = c.ints[r];
      if (!v.null && c.type == Type::Float) v.f = c.floats[r];
      if (!v.null && c.type == Type::Text) {
        v.s = db.decode(c.ints[r]);
        if (holds_strings(c, t.rows)) CHECK(c.strings[r] == v.s);
      }
      row.push_back(v);
    }
    rs.rows.push_back(std::move(row));
  }
  return rs;
}

// Table `name` against SQLite's: host rows in SQLite's rowid order, and SELECT * on the device.
void check_table(Database& db, Sqlite& peer, const std::string& name) {
  INFO("table " << name);
  const ResultSet ref = peer.query("SELECT * FROM " + name + " ORDER BY rowid");
  const std::string diff = compare_results(host_rows(db, db.table(size_t(db.find(name)))), ref, true, 0);
  CHECK_MESSAGE(diff.empty(), diff);
  check_query(db, peer, "SELECT * FROM " + name);
}

// Runs `sql` on both; the rows affected and the modified table must agree.
Modification check_modify(Database& db, Sqlite& peer, const std::string& sql) {
  INFO(sql);
  const Modification m = modify(sql, db, device());
  peer.query(sql);
  CHECK(int64_t(m.rows_affected) == peer.query("SELECT changes()").rows.at(0).at(0).i);
  CHECK(iequals(db.table(m.table).name, parse_modification(sql).table));
  check_table(db, peer, db.table(m.table).name);
  return m;
}

// The BadInput message of a statement that must fail; the database must be as before it:
// tables, rows (against SQLite, which did not run it) and dictionary.
std::string check_refused(Database& db, Sqlite& peer, const std::string& sql) {
  INFO(sql);
  const size_t tables = db.tables().size();
  const std::vector<std::string> dict = db.dict();
  std::string message = "(no error)";
  try {
    modify(sql, db, device());
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    message = e.what();
  }
  CHECK(db.tables().size() == tables);
  CHECK(db.dict() == dict);
  for (const Table& t : db.tables()) check_table(db, peer, t.name);
  return message;
}

}  // namespace

TEST_CASE("db modify: is_modification tells INSERT, UPDATE and DELETE from queries") {
  CHECK(is_modification("INSERT INTO t VALUES (1)"));
  CHECK(is_modification("  -- a comment\n update t SET k = 1"));
  CHECK(is_modification("/* x */ DELETE FROM t"));
  CHECK_FALSE(is_modification("SELECT * FROM t"));
  CHECK_FALSE(is_modification("WITH x AS (SELECT 1 FROM t) SELECT * FROM x"));
  CHECK_FALSE(is_modification("'unterminated"));
}

TEST_CASE("db modify: parse_modification reads each statement's table, columns, values and conditions") {
  const ModificationStatement ins = parse_modification("INSERT INTO t (k, s)\nVALUES (1, 'a'), (2 + 3, NULL);");
  CHECK(ins.kind == ModificationKind::Insert);
  CHECK(ins.table == "t");
  CHECK(ins.columns == std::vector<std::string>{"k", "s"});
  REQUIRE(ins.values.size() == 2);
  CHECK(ins.values[1][0]->kind == ExprKind::Binary);
  CHECK(ins.values[1][1]->kind == ExprKind::Null);
  CHECK(ins.row_at[1] == std::pair<size_t, size_t>{2, 18});
  const ModificationStatement sel = parse_modification("INSERT INTO t SELECT k FROM u WHERE k > 1");
  REQUIRE(sel.select);
  CHECK(sel.select->where);
  CHECK(sel.values.empty());
  const ModificationStatement upd = parse_modification("UPDATE t SET k = k + 1, s = 'x' WHERE id = 2");
  CHECK(upd.kind == ModificationKind::Update);
  REQUIRE(upd.set.size() == 2);
  CHECK(upd.set[1].column == "s");
  CHECK(upd.set[1].col == 25);
  CHECK(upd.where);
  const ModificationStatement del = parse_modification("DELETE FROM t");
  CHECK(del.kind == ModificationKind::Delete);
  CHECK_FALSE(del.where);
}

TEST_CASE("db modify: INSERT VALUES of constants appends the rows as SQLite does") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "INSERT INTO t VALUES (6, 60, 6.5, 'fig'), (7, -70, -0.25, 'apple'), (8, NULL, NULL, NULL)");
  check_table(db, peer, "u");
}

TEST_CASE("db modify: INSERT with a column list leaves the other columns NULL") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "INSERT INTO t (s, id) VALUES ('grape', 9), ('kiwi', 10)");
  check_modify(db, peer, "insert into T (K) values (5);");
}

TEST_CASE("db modify: INSERT VALUES rows of expressions are evaluated on the device") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer,
               "INSERT INTO t VALUES (1 + 2 * 3, 10 / 4, 10 / 4.0, 'a' || 'b'), (-(5), abs(-3), CAST(7 AS REAL), upper('x')),"
               " (11, (SELECT MAX(k) FROM t), (SELECT SUM(f) FROM t WHERE id < 3), (SELECT MIN(s) FROM t))");
}

TEST_CASE("db modify: INSERT ... SELECT adds a query's rows, the target table's own included") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "INSERT INTO t SELECT id + 100, k * 2, f / 2, s || '!' FROM t WHERE id <> 3");
  check_modify(db, peer, "INSERT INTO t (id, s) SELECT g, name FROM u ORDER BY g DESC LIMIT 2");
  check_modify(db, peer, "INSERT INTO u SELECT k, s FROM t WHERE k > 1000");  // no rows
}

TEST_CASE("db modify: the tables a statement's derived tables and WITH make do not outlive it") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "INSERT INTO u SELECT g + 10, n FROM (SELECT g, MAX(name) AS n FROM u GROUP BY g) AS x");
  check_modify(db, peer, "DELETE FROM t WHERE k IN (SELECT k FROM (SELECT k FROM t WHERE k > 30) AS big)");
  CHECK(db.tables().size() == 2);
}

TEST_CASE("db modify: an INTEGER column stores integral reals and numeric text as integers, as SQLite's affinity") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "INSERT INTO t (id, k) VALUES (2.0, '12'), (' 7 ', '1e2'), ('-0', 3.0e5), ('+4', -2.0)");
  check_modify(db, peer, "UPDATE t SET k = f * 2 WHERE f = 1.5 OR f = 4.0");
}

TEST_CASE("db modify: a REAL column stores integers and numeric text as reals") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "INSERT INTO t (id, f) VALUES (1, 3), (2, '2.5'), (3, ' -4 '), (4, '.5'), (5, '5.'), (6, '9223372036854775808')");
  check_modify(db, peer, "UPDATE t SET f = k + 1 WHERE k IS NOT NULL");
}

TEST_CASE("db modify: a TEXT column stores numbers as SQLite's text of them") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "INSERT INTO t (id, s) VALUES (1, 12), (2, 1.5), (3, 1.0), (4, 1e20), (5, 0.1), (6, -7), (7, 123456789012345.6), (8, -0.0)");
  check_modify(db, peer, "UPDATE t SET s = f WHERE f IS NOT NULL");
  check_modify(db, peer, "UPDATE t SET s = k * 3 WHERE id = 3");
}

TEST_CASE("db modify: a value the column's affinity keeps in another type is refused and nothing changes") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  CHECK(check_refused(db, peer, "INSERT INTO t (id, k) VALUES (1, 1.5)").find("sql:1:34: the value for column k in VALUES row 1 is 1.5, which SQLite keeps as REAL in an INTEGER column") != std::string::npos);
  CHECK(check_refused(db, peer, "INSERT INTO t (k) VALUES ('12abc')").find("'12abc', which SQLite keeps as TEXT") != std::string::npos);
  CHECK(check_refused(db, peer, "INSERT INTO t (f) VALUES ('0x10')").find("keeps as TEXT in a REAL column") != std::string::npos);
  CHECK(check_refused(db, peer, "INSERT INTO t (k) VALUES (9223372036854775808.0)").find("keeps as REAL") != std::string::npos);
  CHECK(check_refused(db, peer, "INSERT INTO t (k) VALUES ('')").find("keeps as TEXT") != std::string::npos);
  CHECK(check_refused(db, peer, "UPDATE t SET k = f WHERE id < 3").find("sql:1:14: the value of SET k is ") != std::string::npos);
  CHECK(check_refused(db, peer, "UPDATE t SET id = s").find("the value of SET id is 'apple'") != std::string::npos);
}

TEST_CASE("db modify: NULLs are stored in every column type, and a NaN is NULL as SQLite stores it") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "INSERT INTO t SELECT id + 10, NULL, f * 1e308 * 10 - f * 1e308 * 10, NULL FROM t");
  check_modify(db, peer, "UPDATE t SET f = f * 1e308 * 10 - f * 1e308 * 10, k = NULL, s = NULL WHERE id < 3");
  check_modify(db, peer, "UPDATE t SET k = 1 / 0 WHERE id = 4");  // x/0 is NULL
}

TEST_CASE("db modify: UPDATE assigns from the row's old values, only where WHERE is true") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "UPDATE t SET k = id, id = k WHERE k > 20");  // a NULL k is not updated
  check_modify(db, peer, "UPDATE t SET f = CASE WHEN f > 2 THEN f * 10 ELSE -f END");
}

TEST_CASE("db modify: UPDATE takes values from subqueries, correlated ones included") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "UPDATE t SET s = (SELECT MAX(name) FROM u) WHERE id IN (SELECT g FROM u)");
  check_modify(db, peer, "UPDATE t SET k = (SELECT COUNT(*) FROM u WHERE u.g = t.id), s = (SELECT MAX(name) FROM u WHERE u.g = t.id)");
}

TEST_CASE("db modify: UPDATE of a text column with new strings keeps the shared dictionary's codes right") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  const Modification m = check_modify(db, peer, "UPDATE t SET s = upper(s) || '-' || 'zzz new' WHERE id IN (1, 3, 4)");
  CHECK(m.dictionary_changed);
  check_table(db, peer, "u");  // u's codes moved with the dictionary
  check_query(db, peer, "SELECT t.id, u.name FROM t JOIN u ON t.id = u.g WHERE t.s < 'CHERRY-' OR u.name > 'three' ORDER BY t.id");
  // A string the dictionary holds, replacing a NULL: no code moves.
  CHECK_FALSE(check_modify(db, peer, "UPDATE t SET s = 'banana' WHERE id = 4").dictionary_changed);
}

TEST_CASE("db modify: a WHERE that matches no row changes nothing and affects 0 rows") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  CHECK(check_modify(db, peer, "UPDATE t SET k = 0 WHERE id > 100").rows_affected == 0);
  CHECK(check_modify(db, peer, "DELETE FROM t WHERE s = 'durian' OR k IS NULL AND id = 1").rows_affected == 0);
}

TEST_CASE("db modify: DELETE removes the rows WHERE selects and keeps the others in order") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  check_modify(db, peer, "DELETE FROM t WHERE k >= 30 AND s = 'apple' OR f IS NULL");
  check_modify(db, peer, "DELETE FROM t WHERE id IN (SELECT g FROM u WHERE name <> 'two');");
}

TEST_CASE("db modify: DELETE of all rows leaves an empty table that later statements fill again") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  CHECK(check_modify(db, peer, "DELETE FROM t").rows_affected == 5);
  check_modify(db, peer, "UPDATE t SET k = 1");
  check_modify(db, peer, "DELETE FROM t WHERE k = 1");
  check_modify(db, peer, "INSERT INTO t VALUES (1, 2, 3.5, 'again')");
  check_query(db, peer, "SELECT COUNT(*), SUM(k) FROM t");
}

TEST_CASE("db modify: a statement that fails part-way changes nothing") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  // The second VALUES row: a column VALUES cannot name, arithmetic on text, a value the column cannot hold.
  CHECK(check_refused(db, peer, "INSERT INTO t VALUES (6, 1, 1.0, 'new'), (7, k, 1.0, 'x')").find("sql:1:46: no column 'k'") != std::string::npos);
  check_refused(db, peer, "INSERT INTO t VALUES (6, 1, 1.0, 'new'), (7, 'a' + 1, 1.0, 'x')");
  check_refused(db, peer, "INSERT INTO t VALUES (6, 1, 1.0, 'new'), (7, 2.5, 1.0, 'x')");
  // An integer overflow the device finds in the third row.
  CHECK(check_refused(db, peer, "UPDATE t SET s = 'changed', k = k * 4611686018427387904 WHERE id < 4").find("integer overflow") != std::string::npos);
  // The second assignment's expression does not plan.
  check_refused(db, peer, "UPDATE t SET s = 'changed', k = nosuch + 1");
}

TEST_CASE("db modify: unknown tables and columns are refused with their place") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  CHECK(check_refused(db, peer, "INSERT INTO nope VALUES (1)") == "bad input: sql:1:13: no such table: nope");
  CHECK(check_refused(db, peer, "UPDATE t SET nope = 1") == "bad input: sql:1:14: table t has no column named nope");
  CHECK(check_refused(db, peer, "INSERT INTO t (id, nope) VALUES (1, 2)") == "bad input: sql:1:20: table t has no column named nope");
  CHECK(check_refused(db, peer, "DELETE FROM t WHERE nope = 1").find("nope") != std::string::npos);
  CHECK(check_refused(db, peer, "DELETE FROM t WHERE \"(row)\" = 1") == "bad input: sql:1:21: no such column: (row)");
}

TEST_CASE("db modify: a VALUES row of another length than the columns is refused") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  CHECK(check_refused(db, peer, "INSERT INTO t VALUES (1, 2, 3.0, 'x'), (1, 2)") ==
        "bad input: sql:1:40: table t has 4 columns but 2 values were supplied");
  CHECK(check_refused(db, peer, "INSERT INTO t (id, k) VALUES (1)") == "bad input: sql:1:30: 1 values for 2 columns");
  CHECK(check_refused(db, peer, "INSERT INTO u SELECT * FROM t") == "bad input: sql:1:15: table u has 2 columns but 4 values were supplied");
  CHECK(check_refused(db, peer, "INSERT INTO t (id, id) VALUES (1, 2)") == "bad input: sql:1:20: column id is listed twice");
  CHECK(check_refused(db, peer, "UPDATE t SET k = 1, k = 2") == "bad input: sql:1:21: column k is assigned twice");
}

TEST_CASE("db modify: forms outside the subset are refused by name where they start") {
  ValidationClean clean;
  Database db = sample();
  Sqlite peer(db);
  CHECK(check_refused(db, peer, "INSERT OR REPLACE INTO t VALUES (1, 2, 3.0, 'x')") ==
        "bad input: sql:1:8: INSERT OR ... is not supported (Weft tables have no constraints to resolve)");
  CHECK(check_refused(db, peer, "INSERT INTO t DEFAULT VALUES").find("sql:1:15: DEFAULT VALUES is not supported") != std::string::npos);
  CHECK(check_refused(db, peer, "DELETE FROM t WHERE id = 1 RETURNING id") == "bad input: sql:1:28: RETURNING is not supported");
  CHECK(check_refused(db, peer, "UPDATE t SET k = u.g FROM u") == "bad input: sql:1:22: UPDATE ... FROM is not supported");
  CHECK(check_refused(db, peer, "DELETE FROM t LIMIT 1") == "bad input: sql:1:15: LIMIT in UPDATE or DELETE is not supported");
  CHECK(check_refused(db, peer, "UPDATE t AS x SET k = 1") == "bad input: sql:1:10: an alias of the modified table is not supported");
  CHECK(check_refused(db, peer, "UPDATE t SET k = SUM(k)").find("sql:1:18: aggregate function SUM() outside a subquery") != std::string::npos);
  CHECK(check_refused(db, peer, "DELETE FROM t; DELETE FROM u") == "bad input: sql:1:16: unexpected 'DELETE' after the end of the statement");
}

TEST_CASE("db modify: UPDATE and DELETE refuse a table with a column named (row), the name of their row positions") {
  ValidationClean clean;
  Database db;
  db.add(load_csv("\"(row)\",v\n1,2\n", "w", "w.csv"));
  Sqlite peer(db);
  CHECK(check_refused(db, peer, "UPDATE w SET v = 3").find("has a column named (row)") != std::string::npos);
  CHECK(check_refused(db, peer, "DELETE FROM w WHERE v = 2").find("has a column named (row)") != std::string::npos);
  check_modify(db, peer, "INSERT INTO w (v) VALUES (5)");  // INSERT reads no row positions
}

TEST_CASE("db modify: tables loaded from a .wdb file (text as codes alone) take every statement as SQLite does") {
  ValidationClean clean;
  const std::string bytes = encode_database(sample());
  Database db = decode_database(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "sample.wdb");
  Sqlite peer(sample());
  check_modify(db, peer, "UPDATE t SET s = s || '!' WHERE k > 20");
  check_modify(db, peer, "DELETE FROM t WHERE s = 'banana'");
  check_modify(db, peer, "INSERT INTO t VALUES (9, 90, 9.5, 'zebra'), (10, NULL, NULL, NULL)");
  check_modify(db, peer, "UPDATE u SET name = upper(name) WHERE g <> 2");
  check_table(db, peer, "t");
}
