// The answers that once came back wrong with exit 0, each held to SQLite on the same data:
//   LEFT JOIN (read as an inner join of a table aliased LEFT), NaN from float arithmetic (SQLite
//   makes it NULL), INTEGER against REAL beyond 2^53 (compared in double), and float SUM/AVG
//   that changed in their last bits from run to run (the summation order followed atomics).
#include <doctest/doctest.h>

#include <cstring>
#include <tuple>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::device;
using weft::db::test::prepare_error;
using weft::db::test::ValidationClean;

namespace {

// l(id, v, name) LEFT JOIN r(tid, w, label): keys that match once, twice, never; NULL keys on
// both sides; NULLs in the right table's other columns.
Database& join_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,v,name\n1,10,a\n2,20,b\n3,30,c\n4,,d\n5,10,e\n6,40,\n7,50,g\n", "l", "l.csv"));
    d.add(load_csv("tid,w,label\n10,1.5,x\n10,2.5,y\n20,,z\n,9.0,n\n40,4.0,\n60,6.0,w\n", "r", "r.csv"));
    return d;
  }();
  return db;
}

// f: finite doubles whose products and differences overflow to +-inf and then to NaN; i and
// g: an INTEGER and a REAL on both sides of 2^53 and at the ends of int64.
Database& numbers_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("id,f,k,i,g\n"
                   "1,1e300,1,9007199254740993,9007199254740992.0\n"
                   "2,-1e300,1,9007199254740992,9007199254740992.0\n"
                   "3,0.0,2,-9007199254740993,-9007199254740992.0\n"
                   "4,1.5,2,9223372036854775807,9223372036854775808.0\n"
                   "5,,3,-9223372036854775808,-9223372036854775808.0\n"
                   "6,2e300,3,3,3.5\n"
                   "7,-3.0,1,4,4.0\n"
                   "8,1e-300,2,,1e19\n",
                   "n", "n.csv"));
    return d;
  }();
  return db;
}

template <Database& (*Db)()>
Sqlite& peer_of() {
  static Sqlite peer(Db());
  return peer;
}

template <Database& (*Db)()>
QueryStats check(const std::string& sql, QueryOptions options = {}) {
  return weft::db::test::check_query(Db(), peer_of<Db>(), sql, options);
}

}  // namespace

TEST_CASE("db correctness: LEFT [OUTER] JOIN keeps unmatched left rows with NULLs, as SQLite") {
  ValidationClean clean;
  const char* queries[] = {
      "SELECT id, name, tid, w, label FROM l LEFT JOIN r ON v = tid",
      "SELECT l.id, r.label FROM l LEFT OUTER JOIN r ON r.tid = l.v ORDER BY l.id, r.label",
      "SELECT id FROM l LEFT JOIN r ON v = tid WHERE tid IS NULL",                // anti join
      "SELECT id, w FROM l LEFT JOIN r ON v = tid AND w > 2.0",                   // ON filters the right rows
      "SELECT id, w FROM l LEFT JOIN r ON v = tid WHERE w > 2.0 OR w IS NULL",    // WHERE sees the NULL rows
      "SELECT id, w FROM l LEFT JOIN r ON v = tid AND label IS NULL WHERE id > 1",
      "SELECT name, COUNT(*), COUNT(tid), SUM(w), MAX(label) FROM l LEFT JOIN r ON v = tid GROUP BY name",
      "SELECT label, COUNT(*) FROM l LEFT JOIN r ON v = tid GROUP BY label ORDER BY label",
      "SELECT id, w * 2, w IS NULL, tid + 1 FROM l LEFT JOIN r ON v = tid ORDER BY w DESC, id",
      "SELECT a.id, b.id FROM l a LEFT JOIN l b ON a.v = b.id",
  };
  for (const char* sql : queries) weft::db::test::check_both_joins(join_db(), peer_of<join_db>(), sql);
  // No right row may match: every left row once, NULL-extended (the nested loop over no rows).
  check<join_db>("SELECT id, COUNT(*), AVG(w) FROM l LEFT JOIN r ON v = tid AND 1 = 0 GROUP BY id");
  // On the larger tables: about one order in nine has no customer.
  static Database orders = random_database(2000, 150, 7, 11);
  static Sqlite peer(orders);
  for (uint32_t threshold : {0u, 1u << 30}) {
    QueryOptions o;
    o.join_threshold = threshold;
    weft::db::test::check_query(orders, peer,
                                "SELECT c.tier, COUNT(*), COUNT(c.id), SUM(o.qty) FROM orders o LEFT JOIN customers c "
                                "ON o.customer = c.id GROUP BY c.tier",
                                o);
    weft::db::test::check_query(orders, peer,
                                "SELECT o.id FROM orders o LEFT JOIN customers c ON o.customer = c.id "
                                "WHERE c.id IS NULL AND o.qty > 10 ORDER BY o.id",
                                o);
  }
}

TEST_CASE("db correctness: join keywords are never aliases; other join kinds are refused by name") {
  Database& db = join_db();
  const std::string base = "SELECT id FROM l ";
  CHECK(prepare_error(db, base + "RIGHT JOIN r ON v = tid") == "bad input: sql:1:18: RIGHT JOIN is not supported (JOIN and LEFT JOIN are)");
  CHECK(prepare_error(db, base + "FULL OUTER JOIN r ON v = tid") == "bad input: sql:1:18: FULL JOIN is not supported (JOIN and LEFT JOIN are)");
  CHECK(prepare_error(db, base + "CROSS JOIN r") == "bad input: sql:1:18: CROSS JOIN is not supported (JOIN and LEFT JOIN are)");
  CHECK(prepare_error(db, base + "NATURAL JOIN r") == "bad input: sql:1:18: NATURAL JOIN is not supported (JOIN and LEFT JOIN are)");
  CHECK(prepare_error(db, base + "OUTER JOIN r ON v = tid") == "bad input: sql:1:18: OUTER JOIN needs LEFT before it (LEFT OUTER JOIN)");
  CHECK(prepare_error(db, base + "JOIN r USING (id)") == "bad input: sql:1:25: JOIN ... USING is not supported; use ON");
  CHECK(prepare_error(db, base + "x LEFT JOIN r ON v = tid JOIN r q ON q.tid = v") ==
        "bad input: sql:1:43: LEFT JOIN with more than two tables is not supported (a LEFT JOIN joins two tables: "
        "FROM a LEFT JOIN b ON ...; inner JOINs chain up to 8)");
  CHECK(prepare_error(db, base + ", r") ==
        "bad input: sql:1:20: no WHERE equality joins 'r' to the other tables (a comma join needs a key t1.a = t2.b, int = "
        "int or text = text, per table); a cross product is not supported");
  CHECK(prepare_error(db, base + "LEFT JOIN r ON v = tid AND id > 2") ==
        "bad input: sql:1:45: LEFT JOIN ... ON conditions that read the left table are not supported (only the key "
        "equality and conditions on the right table)");
  CHECK(prepare_error(db, "SELECT id left FROM l") == "bad input: sql:1:11: expected FROM, got 'left'");
  // A table alias that is not a keyword still works, with and without AS.
  check<join_db>("SELECT lt.id, rt.label FROM l lt JOIN r AS rt ON lt.v = rt.tid");
}

TEST_CASE("db correctness: a NaN from float arithmetic is NULL in every operator and aggregate, as SQLite") {
  ValidationClean clean;
  // f * f overflows to +inf for |f| >= 1e300; inf - inf, 0 * inf and inf / inf are NaN.
  check<numbers_db>("SELECT id, f * f - f * f, 0.0 * (f * f), (f * f) / (f * f), f * f, -(f * f) + f * f FROM n");
  check<numbers_db>("SELECT id FROM n WHERE f * f - f * f IS NULL");
  check<numbers_db>("SELECT id FROM n WHERE (f * f) / (f * f) IS NOT NULL");
  check<numbers_db>("SELECT id FROM n WHERE f * f - f * f = f * f - f * f OR f * f - f * f < 1");
  check<numbers_db>("SELECT id FROM n WHERE NOT (0.0 * (f * f) > 0)");
  check<numbers_db>(
      "SELECT COUNT(f * f - f * f), MAX(f * f - f * f), MIN((f * f) / (f * f)), SUM(0.0 * (f * f)), AVG(f * f - f * f) "
      "FROM n");
  check<numbers_db>("SELECT k, COUNT(f * f - f * f), MAX(f * f - f * f), SUM(f * f) FROM n GROUP BY k");
  check<numbers_db>("SELECT f * f - f * f AS x, COUNT(*) FROM n GROUP BY f * f - f * f ORDER BY x");
  check<numbers_db>("SELECT id, (f * f) / (f * f) AS x FROM n ORDER BY x DESC, id");
  // A sum with both infinities among its terms is NaN, so NULL; one infinity is kept.
  check<numbers_db>("SELECT SUM(f * f * k), AVG(f * f * k), SUM(f * 1e10) FROM n WHERE k <> 2");
  check<numbers_db>("SELECT k, SUM(f * 1e10), AVG(f * 1e10) FROM n GROUP BY k");
}

TEST_CASE("db correctness: INTEGER against REAL compares exactly beyond 2^53, as SQLite") {
  ValidationClean clean;
  // Column against literal (the term-list scan, and interpreted: check_query runs both).
  check<numbers_db>("SELECT id FROM n WHERE i = 9007199254740992.0");
  check<numbers_db>("SELECT id FROM n WHERE i > 9007199254740992.0");
  check<numbers_db>("SELECT id FROM n WHERE 9007199254740992.0 <= i");
  check<numbers_db>("SELECT id FROM n WHERE i < 9223372036854775808.0 AND i >= -9223372036854775808.0");
  check<numbers_db>("SELECT id FROM n WHERE g = 9007199254740993");
  check<numbers_db>("SELECT id FROM n WHERE g < 9007199254740993 AND g != 3");
  check<numbers_db>("SELECT id FROM n WHERE g >= 9223372036854775807");
  // Column against column and expressions (the interpreter), NULLs included.
  check<numbers_db>("SELECT id, i = g, i < g, i > g, i <= g, i >= g, i != g FROM n");
  check<numbers_db>("SELECT id FROM n WHERE i = g OR i > g + 0.5");
  check<numbers_db>("SELECT 9007199254740993 = 9007199254740992.0, 9007199254740993 > 9007199254740992.0, "
                    "-9007199254740993 < -9007199254740992.0, 9223372036854775807 < 9223372036854775808.0, 3 < 3.5, "
                    "4 = 4.0 FROM n WHERE id = 1");
  check<numbers_db>("SELECT k, COUNT(*) FROM n WHERE i >= g GROUP BY k ORDER BY k");
  // Fractions below 1 on both signs, -0.0, the smallest subnormal and the infinities (f * f).
  check<numbers_db>("SELECT id, k < 1.5, k - 2 > -0.5, k - 2 = -0.0, k >= 2.9999999999, k - 3 <= -0.5, "
                    "k - 1 > 4.9e-324, k - 1 < -4.9e-324, k < f * f, k > -(f * f), k = f FROM n");
  // Across a join (the residual filter over joined rows).
  check<numbers_db>("SELECT a.id, b.id FROM n a JOIN n b ON a.k = b.k WHERE a.i = b.g");
  check<numbers_db>("SELECT a.id, b.id FROM n a JOIN n b ON a.k = b.k WHERE a.g < b.i");
}

namespace {

std::vector<uint64_t> float_bits(const ResultSet& r) {
  std::vector<uint64_t> bits;
  for (const Row& row : r.rows)
    for (const Value& v : row) {
      uint64_t b = v.null ? 0x7FF8DEADull : 0;
      if (!v.null && v.type == Type::Float) std::memcpy(&b, &v.f, 8);
      else if (!v.null) b = uint64_t(v.i);
      bits.push_back(b);
    }
  return bits;
}

}  // namespace

TEST_CASE("db correctness: float SUM and AVG do not depend on the order of the rows") {
  ValidationClean clean;
  // Decimal amounts (sums round): every way of running the query gives the same bits, though
  // the joined rows and the group members come in another order each time.
  static Database db = random_database(3000, 200, 42, 13);
  const std::string sql =
      "SELECT c.tier, SUM(o.amount), AVG(o.amount), AVG(o.amount * o.qty), SUM(o.amount / 7) FROM orders o JOIN "
      "customers c ON o.customer = c.id GROUP BY c.tier ORDER BY c.tier";
  const weft::db::Plan plan = prepare_sql(sql, db);
  std::vector<uint64_t> first;
  for (int run = 0; run < 6; ++run) {
    QueryOptions o;
    o.join_threshold = run % 2 ? 0 : 1u << 30;
    o.interpret_filters = run >= 4;
    DeviceQuery q(device(), db, plan, o);
    for (int again = 0; again < 2; ++again) {
      const std::vector<uint64_t> bits = float_bits(q.run());
      if (first.empty()) first = bits;
      CHECK(bits == first);
    }
  }
  // Amounts with few binary digits: SQLite's sequential sum is exact, so the bits must match it.
  static Database dyadic = [] {
    Database d;
    std::string csv = "id,g,x\n";
    for (int r = 0; r < 5000; ++r)
      csv += std::to_string(r) + "," + std::to_string(r % 7) + "," + std::to_string(((r * 7919) % 20001 - 10000) / 64.0) + "\n";
    d.add(load_csv(csv, "d", "d.csv"));
    return d;
  }();
  static Sqlite dyadic_peer(dyadic);
  for (const char* q : {"SELECT g, SUM(x), AVG(x), AVG(g), SUM(x * 3) FROM d GROUP BY g ORDER BY g",
                        "SELECT SUM(x), AVG(x), AVG(id) FROM d", "SELECT SUM(x), AVG(x) FROM d WHERE x > 50.25"}) {
    INFO(q);
    DeviceQuery dq(device(), dyadic, prepare_sql(q, dyadic));
    CHECK(compare_results(dq.run(), dyadic_peer.query(q), true, 0.0) == "");
  }
}

// LEFT JOIN over seeded orders/customers pairs (dangling foreign keys, repeated keys, NULLs in
// every column), sizes on both sides of the hash-join switch, each query under both join
// strategies, against SQLite.
TEST_CASE("db correctness: LEFT JOIN on seeded tables agrees with SQLite under both join strategies") {
  ValidationClean clean;
  const char* queries[] = {
      "SELECT o.id, c.id, c.tier, c.name FROM orders o LEFT JOIN customers c ON o.customer = c.id ORDER BY o.id, c.id",
      "SELECT o.id, c.id FROM orders o LEFT JOIN customers c ON o.customer = c.id AND c.tier = 'gold' ORDER BY o.id, c.id",
      "SELECT o.id FROM orders o LEFT JOIN customers c ON o.customer = c.id WHERE c.id IS NULL ORDER BY o.id",
      "SELECT c.tier, COUNT(*), COUNT(c.id), SUM(o.qty), MIN(o.amount) FROM orders o LEFT JOIN customers c "
      "ON o.customer = c.id GROUP BY c.tier ORDER BY c.tier",
      "SELECT o.region, COUNT(c.name) FROM orders o LEFT JOIN customers c ON o.customer = c.id "
      "WHERE o.qty > 10 OR c.tier IS NULL GROUP BY o.region ORDER BY o.region",
  };
  for (const auto& [orders, customers, seed] : {std::tuple{40u, 6u, 1u}, std::tuple{500u, 90u, 2u}, std::tuple{1500u, 300u, 3u}}) {
    Database db = random_database(orders, customers, seed, 7);
    Sqlite peer(db);
    for (const char* sql : queries)
      for (uint32_t threshold : {0u, 1u << 30}) {  // always hash, never hash
        CAPTURE(seed);
        CAPTURE(threshold);
        QueryOptions o;
        o.join_threshold = threshold;
        CHECK(weft::db::test::check_query(db, peer, sql, o).join_strategy == (threshold == 0 ? 2u : 1u));
      }
  }
}
