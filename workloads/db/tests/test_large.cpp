// A table beyond the storage-buffer window: 6M rows of 4 columns (192 MB of column values;
// lavapipe's window is 128 MiB). The query places the columns in far segments by itself and
// agrees with SQLite on the same rows. Its own ctest entry (weft_db_large_tests): the table and
// SQLite's copy take ~1.3 GB and ~25 s on lavapipe.
#include <random>

#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::device;
using weft::db::test::ValidationClean;

namespace {

constexpr size_t kRows = 6'000'000;

Column column(const char* name, Type t) {
  Column c;
  c.name = name;
  c.type = t;
  c.nulls.assign(kRows, 0);
  if (t == Type::Float) c.floats.resize(kRows);
  else c.ints.resize(kRows);
  if (t == Type::Text) c.strings.resize(kRows);
  return c;
}

// k: 0..99, y: 0..999, x: [0, 1) (a NULL every 101st row), s: one of five strings.
Database six_million_rows() {
  static const char* names[] = {"north", "south", "east", "west", "central"};
  Table t;
  t.name = "t";
  t.rows = kRows;
  t.columns = {column("k", Type::Int), column("y", Type::Int), column("x", Type::Float), column("s", Type::Text)};
  std::mt19937_64 rng(6);
  for (size_t r = 0; r < kRows; ++r) {
    t.columns[0].ints[r] = int64_t(rng() % 100);
    t.columns[1].ints[r] = int64_t(rng() % 1000);
    t.columns[2].floats[r] = double(rng() >> 11) * 0x1.0p-53;
    t.columns[2].nulls[r] = r % 101 == 100;
    t.columns[3].strings[r] = names[rng() % 5];
  }
  Database db;
  db.add(std::move(t));
  return db;
}

}  // namespace

TEST_CASE("db large: a 6M-row, 4-column table beyond the window is queried from far segments and agrees with SQLite") {
  REQUIRE(device().info().buffer_device_address);
  ValidationClean clean;
  Database db = six_million_rows();
  Sqlite peer(db);
  const char* queries[] = {
      "SELECT k, COUNT(*), COUNT(x), SUM(y), MIN(x), MAX(x), AVG(x), MIN(s) FROM t WHERE y > 100 AND x < 0.75 GROUP BY k",
      "SELECT s, COUNT(*), SUM(y), AVG(y) FROM t WHERE y < 50 OR x > 0.999 GROUP BY s",
      "SELECT COUNT(*), SUM(y), MAX(k) FROM t WHERE s = 'east' AND x IS NULL",
      "SELECT s, COUNT(DISTINCT y), COUNT(DISTINCT k), COUNT(DISTINCT x) FROM t WHERE x < 0.01 OR s LIKE 'N%' AND y < 9 GROUP BY s",
  };
  for (const char* sql : queries) {
    INFO(std::string(sql));
    const db::Plan plan = prepare_sql(sql, db);
    DeviceQuery q(device(), db, plan);
    const ResultSet rs = q.run();
    CHECK(q.executable().program().globals().far_count() == 5);  // the 4 columns and x's NULL bitmap left the window
    CHECK(compare_results(rs, peer.query(sql), false, weft::db::test::kFloatRel) == "");
  }
  // One group of all 6M rows and four aggregates: 375,000 loop steps per invocation of the
  // reduction. Where the driver stops loops sooner (llvmpipe: 65535) the query is refused by
  // name; it printed a COUNT of 129,761 before the guard. Elsewhere it agrees with SQLite.
  const char* whole = "SELECT COUNT(x), SUM(y), MIN(k), MAX(x) FROM t";
  DeviceQuery q(device(), db, prepare_sql(whole, db));
  if (device().loop_iteration_limit() < 400000) {
    const std::string msg = weft::test::error_message_of([&] { q.run(); });
    CHECK(msg.find("missing feature: db: a group (more than ~4 M row visits") == 0);
    CHECK(msg.find("stops a kernel's loops after " + std::to_string(device().loop_iteration_limit())) != std::string::npos);
  } else {
    CHECK(compare_results(q.run(), peer.query(whole), false, weft::db::test::kFloatRel) == "");
  }
}

// COUNT(DISTINCT) claims a hash slot per distinct (keys, x) in a table of the group table's size:
// at 1.2M rows that is 2^21 slots, and 1.2M distinct values fill more than half of it, so the
// claims stop, the query is rebuilt with a larger table and agrees with SQLite.
TEST_CASE("db large: COUNT(DISTINCT) over more values than half its hash table is rebuilt larger") {
  ValidationClean clean;
  constexpr size_t rows = 1'200'000;
  Table t;
  t.name = "t";
  t.rows = rows;
  Column id, k;
  id.name = "id";
  k.name = "k";
  for (Column* c : {&id, &k}) {
    c->type = Type::Int;
    c->nulls.assign(rows, 0);
    c->ints.resize(rows);
  }
  for (size_t r = 0; r < rows; ++r) {
    id.ints[r] = int64_t(r * 7919 % rows);
    k.ints[r] = int64_t(r % 100);
    id.nulls[r] = r % 1000 == 999;
  }
  t.columns = {std::move(id), std::move(k)};
  Database db;
  db.add(std::move(t));
  Sqlite peer(db);
  const char* sql = "SELECT k, COUNT(DISTINCT id), COUNT(DISTINCT id % 1000), COUNT(id) FROM t GROUP BY k";
  DeviceQuery q(device(), db, prepare_sql(sql, db));
  CHECK(compare_results(q.run(), peer.query(sql), false, weft::db::test::kFloatRel) == "");
  CHECK(q.stats().rebuilds == 1);
}
