// A Session keeps a database's tables on the device across queries: each query's rows agree with
// SQLite, the tables are uploaded once (a second query, and the same query again, upload no
// table), a query's program is cached by its text until a table or the dictionary changes, and
// derived tables and failed queries leave the database as it was.
#include <doctest/doctest.h>

#include <string>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"
#include "wdb.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::device;
using weft::db::test::kFloatRel;
using weft::db::test::ValidationClean;

namespace {

// orders with NULLs in an int, a float and a text column; customers keyed by orders.c.
Database session_db() {
  Database d;
  d.add(load_csv("id,c,amount,qty,note\n1,1,10.5,3,rush\n2,2,,1,\n3,1,7.25,,gift\n4,3,99.0,2,rush\n5,,1.5,5,none\n"
                 "6,2,20.0,4,gift\n7,3,3.5,1,rush\n",
                 "orders", "orders.csv"));
  d.add(load_csv("c,name,tier\n1,ann,gold\n2,bob,silver\n3,cy,gold\n4,dee,\n", "customers", "customers.csv"));
  return d;
}

// Runs `sql` in the session and in SQLite (over the same tables) and checks the rows agree.
void check(Session& session, Sqlite& peer, const std::string& sql) {
  INFO(sql);
  const ResultSet got = session.query(sql);
  const ResultSet want = peer.query(sql);
  CHECK(compare_results(got, want, sql.find("ORDER BY") != std::string::npos, kFloatRel) == "");
}

bool resident_here() { return device().info().buffer_device_address; }

}  // namespace

TEST_CASE("db session: queries agree with SQLite, joins, groups, NULLs and subqueries included") {
  ValidationClean clean;
  Session session(device(), session_db());
  Sqlite peer(session.database());
  check(session, peer, "SELECT id, amount, note FROM orders WHERE qty > 1 ORDER BY id");
  check(session, peer, "SELECT name, SUM(amount), COUNT(*) FROM orders JOIN customers ON orders.c = customers.c GROUP BY name");
  check(session, peer, "SELECT tier, AVG(qty) FROM customers, orders WHERE customers.c = orders.c GROUP BY tier ORDER BY tier");
  check(session, peer, "SELECT id FROM orders WHERE c IN (SELECT c FROM customers WHERE tier = 'gold') ORDER BY id");
  check(session, peer, "SELECT COUNT(*), COUNT(amount), MAX(note) FROM orders");
}

TEST_CASE("db session: the tables are uploaded once; a second query uploads no table") {
  ValidationClean clean;
  if (!resident_here()) return;  // without bufferDeviceAddress every query uploads (the next case)
  Session session(device(), session_db());
  REQUIRE(session.resident());
  session.query("SELECT SUM(amount) FROM orders");
  const uint64_t first = session.last_timing().uploaded_bytes;
  CHECK(first == session.resident_tables()->resident_bytes());  // every column of both tables, once
  session.query("SELECT name FROM customers JOIN orders ON customers.c = orders.c WHERE qty > 2");
  CHECK(session.last_timing().uploaded_bytes == 0);
  CHECK_FALSE(session.last_timing().cached);
  CHECK(session.resident_tables()->uploaded_bytes() == first);
}

TEST_CASE("db session: without resident tables a query uploads the tables it reads") {
  ValidationClean clean;
  if (resident_here()) {
    // The per-query path is what a device without bufferDeviceAddress runs; DeviceQuery shows it.
    Database db = session_db();
    DeviceQuery q(device(), db, prepare_sql("SELECT SUM(qty) FROM orders", db, device()));
    q.run();
    CHECK(q.stats().uploaded_bytes > 0);
    return;
  }
  Session session(device(), session_db());
  CHECK_FALSE(session.resident());
  session.query("SELECT SUM(qty) FROM orders");
  CHECK(session.last_timing().uploaded_bytes > 0);
}

TEST_CASE("db session: the same text again replays the cached program, with the same rows") {
  ValidationClean clean;
  Session session(device(), session_db());
  Sqlite peer(session.database());
  const std::string sql = "SELECT c, SUM(amount) FROM orders GROUP BY c ORDER BY c";
  check(session, peer, sql);
  CHECK_FALSE(session.last_timing().cached);
  check(session, peer, sql);
  CHECK(session.last_timing().cached);
  CHECK(session.last_timing().plan_ms == 0);
  CHECK(session.last_timing().uploaded_bytes == 0);
  CHECK(session.cached_queries() == 1);
}

TEST_CASE("db session: a new table empties the cache and is queried with the others") {
  ValidationClean clean;
  Session session(device(), session_db());
  session.query("SELECT COUNT(*) FROM orders");
  session.add_table(load_csv("tier,discount\ngold,0.25\nsilver,0.125\n", "tiers", "tiers.csv"));
  CHECK(session.cached_queries() == 0);
  Sqlite peer(session.database());
  check(session, peer, "SELECT name, discount FROM customers JOIN tiers ON customers.tier = tiers.tier ORDER BY name");
  check(session, peer, "SELECT COUNT(*) FROM orders");
  CHECK_FALSE(session.last_timing().cached);
}

TEST_CASE("db session: a literal the dictionary lacks moves every text code; the resident text is refreshed") {
  ValidationClean clean;
  Session session(device(), session_db());
  Sqlite peer(session.database());
  check(session, peer, "SELECT id, note FROM orders WHERE note > 'gift' ORDER BY id");
  const uint64_t generation = session.database().encoding_generation();
  check(session, peer, "SELECT id, note, 'aaa new' FROM orders WHERE note < 'h' ORDER BY id");  // 'aaa new' sorts first
  CHECK(session.database().encoding_generation() != generation);
  if (session.resident()) CHECK(session.last_timing().uploaded_bytes > 0);  // the Text columns, again
  check(session, peer, "SELECT id, note FROM orders WHERE note > 'gift' ORDER BY id");
  check(session, peer, "SELECT name FROM customers WHERE tier = 'gold' ORDER BY name");
}

TEST_CASE("db session: derived tables are gone after their query, which is not cached") {
  ValidationClean clean;
  Session session(device(), session_db());
  Sqlite peer(session.database());
  const size_t tables = session.database().tables().size();
  const std::string sql = "WITH big AS (SELECT c, qty FROM orders WHERE qty >= 2) SELECT c, SUM(qty) FROM big GROUP BY c ORDER BY c";
  check(session, peer, sql);
  CHECK(session.database().tables().size() == tables);
  check(session, peer, sql);
  CHECK_FALSE(session.last_timing().cached);
  CHECK(session.database().tables().size() == tables);
}

TEST_CASE("db session: a query that fails leaves the session usable and its tables as they were") {
  ValidationClean clean;
  Session session(device(), session_db());
  Sqlite peer(session.database());
  const size_t tables = session.database().tables().size();
  CHECK_THROWS_AS(session.query("SELECT nope FROM orders"), Error);
  CHECK_THROWS_AS(session.query("SELECT * FROM (SELECT id FROM orders) d JOIN missing ON d.id = missing.id"), Error);
  CHECK(session.database().tables().size() == tables);
  check(session, peer, "SELECT id FROM orders WHERE amount > 5 ORDER BY id");
}

TEST_CASE("db session: tables reloaded from a .wdb file (text as codes alone) are resident and agree with SQLite") {
  ValidationClean clean;
  const std::string bytes = encode_database(session_db());
  Session session(device(), decode_database(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "session.wdb"));
  Sqlite peer(session_db());  // from the CSV text, not through the file
  check(session, peer, "SELECT note, COUNT(*), SUM(qty) FROM orders GROUP BY note ORDER BY note");
  check(session, peer, "SELECT name, note FROM customers JOIN orders ON customers.c = orders.c WHERE tier = 'gold' ORDER BY id");
  check(session, peer, "SELECT id, 'zz new' FROM orders WHERE note >= 'gift' ORDER BY id");  // moves every code
  check(session, peer, "SELECT name FROM customers WHERE tier < 'h' ORDER BY name");
}

TEST_CASE("db session: INSERT, UPDATE and DELETE change the resident tables; the next queries see them as SQLite does") {
  ValidationClean clean;
  Session session(device(), session_db());
  Sqlite peer(session.database());
  const std::string sql = "SELECT id, c, amount, note FROM orders ORDER BY id";
  check(session, peer, sql);  // cached now
  for (const char* change : {"UPDATE orders SET amount = amount * 2, note = 'bulk' WHERE qty >= 3",
                             "DELETE FROM orders WHERE c IS NULL", "INSERT INTO orders VALUES (8, 4, 12.5, 6, 'late')"}) {
    INFO(change);
    session.query(change);
    peer.query(change);
    CHECK(int64_t(session.last_timing().rows_affected) == peer.query("SELECT changes()").rows.at(0).at(0).i);
    check(session, peer, sql);
    CHECK_FALSE(session.last_timing().cached);
    if (session.resident()) CHECK(session.last_timing().uploaded_bytes > 0);  // the changed table, again
    check(session, peer, "SELECT name, SUM(amount) FROM customers JOIN orders ON customers.c = orders.c GROUP BY name");
  }
}

TEST_CASE("db session: a modification that fails changes nothing the next query sees") {
  ValidationClean clean;
  Session session(device(), session_db());
  Sqlite peer(session.database());
  CHECK_THROWS_AS(session.query("INSERT INTO orders VALUES (9, 1, 1.0, 1, 'a'), (10, 'not a number', 2.0, 2, 'b')"), Error);
  CHECK_THROWS_AS(session.query("UPDATE orders SET nope = 1"), Error);
  check(session, peer, "SELECT id, c, amount, qty, note FROM orders ORDER BY id");
}
