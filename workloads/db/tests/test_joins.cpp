// Multi-way inner joins (3 to 8 tables), each query held to SQLite on the same tables: chain and
// star shapes, conditions across tables, groups over joins, NULL and duplicate keys, empty
// intermediate results, the per-step cardinality rule and output rebuild, the refusals, and a
// seeded differential of random 3-5 table joins on random small tables.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <weft/error.h>

#include "db.h"
#include "device_fixture.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::check_both_joins;
using weft::db::test::check_query;
using weft::db::test::device;
using weft::db::test::prepare_error;
using weft::db::test::ValidationClean;

namespace {

// A small TPC-H-like schema: region <- nation <- cust <- ord <- item -> part. NULL keys on both
// sides of several joins, keys that match nothing (dangling), and duplicate keys (item has
// several rows per order, nation two rows with region 2).
Database& shop_db() {
  static Database db = [] {
    Database d;
    d.add(load_csv("rid,rname\n1,europe\n2,asia\n3,africa\n,nowhere\n", "region", "region.csv"));
    d.add(load_csv("nid,rid,nname\n1,1,france\n2,1,germany\n3,2,japan\n4,2,china\n5,,atlantis\n6,9,mu\n7,3,kenya\n",
                   "nation", "nation.csv"));
    d.add(load_csv("cid,nid,seg\n1,1,auto\n2,3,build\n3,3,auto\n4,4,house\n5,,auto\n6,5,build\n7,8,house\n8,2,auto\n"
                   "9,7,build\n",
                   "cust", "cust.csv"));
    d.add(load_csv("oid,cid,total,prio\n1,1,100.5,high\n2,1,20.25,low\n3,2,300.0,high\n4,3,45.5,\n5,4,80.0,low\n"
                   "6,5,10.0,high\n7,,99.0,low\n8,6,12.5,high\n9,7,60.0,low\n10,8,70.0,high\n11,8,5.0,low\n12,12,1.0,high\n",
                   "ord", "ord.csv"));
    d.add(load_csv("oid,pid,qty,price\n1,1,2,10.0\n1,2,1,5.5\n1,3,4,2.25\n2,1,1,10.0\n3,4,7,1.0\n3,4,1,1.0\n4,2,3,5.5\n"
                   "5,,2,3.0\n6,5,1,8.0\n7,1,2,10.0\n8,3,5,2.25\n9,6,1,4.0\n10,2,2,5.5\n10,5,3,8.0\n11,1,1,10.0\n,2,9,5.5\n",
                   "item", "item.csv"));
    d.add(load_csv("pid,brand,size\n1,acme,10\n2,acme,20\n3,bolt,5\n4,core,15\n5,bolt,\n7,core,30\n", "part", "part.csv"));
    return d;
  }();
  return db;
}

Sqlite& shop_peer() {
  static Sqlite peer(shop_db());
  return peer;
}

QueryStats check(const std::string& sql, QueryOptions options = {}) {
  return check_query(shop_db(), shop_peer(), sql, options);
}
void check_both(const std::string& sql) { check_both_joins(shop_db(), shop_peer(), sql); }

void check_steps_both_ways(Database& db, Sqlite& peer, const std::string& sql, size_t steps);

// Every join step under the nested loop, then every step under the hash join.
void check_all_steps_both_ways(const std::string& sql, size_t steps) { check_steps_both_ways(shop_db(), shop_peer(), sql, steps); }

}  // namespace

TEST_CASE("db joins: a 3-way chain join agrees with SQLite under both strategies in every step") {
  ValidationClean clean;
  check_all_steps_both_ways("SELECT o.oid, c.cid, n.nname FROM ord o JOIN cust c ON o.cid = c.cid JOIN nation n ON c.nid = n.nid", 2);
  check_all_steps_both_ways("SELECT n.nname, c.seg, o.total FROM nation n JOIN cust c ON c.nid = n.nid "
                            "JOIN ord o ON o.cid = c.cid ORDER BY o.total DESC, n.nname",
                            2);
  check("SELECT * FROM ord JOIN cust ON ord.cid = cust.cid INNER JOIN nation ON nation.nid = cust.nid");
}

TEST_CASE("db joins: a 4-way chain join agrees with SQLite under both strategies in every step") {
  ValidationClean clean;
  check_all_steps_both_ways("SELECT r.rname, n.nname, c.cid, o.oid FROM region r JOIN nation n ON n.rid = r.rid "
                            "JOIN cust c ON c.nid = n.nid JOIN ord o ON o.cid = c.cid",
                            3);
  // The chain in the other direction: each key reads the previous table.
  check_all_steps_both_ways("SELECT i.pid, o.oid, c.seg, n.nname FROM item i JOIN ord o ON i.oid = o.oid "
                            "JOIN cust c ON o.cid = c.cid JOIN nation n ON c.nid = n.nid",
                            3);
}

TEST_CASE("db joins: star joins (every key on the first table) agree with SQLite") {
  ValidationClean clean;
  // item is the fact table: its order and its part.
  check_all_steps_both_ways("SELECT i.oid, i.pid, o.prio, p.brand FROM item i JOIN ord o ON o.oid = i.oid "
                            "JOIN part p ON p.pid = i.pid",
                            2);
  // Four tables around cust: its nation, its orders, and the region of its nation through n.
  check_all_steps_both_ways("SELECT c.cid, n.nname, o.oid, x.cid FROM cust c JOIN nation n ON n.nid = c.nid "
                            "JOIN ord o ON o.cid = c.cid JOIN cust x ON x.nid = c.nid",
                            3);
  // A key that reads a table two steps back (neither the first nor the previous one).
  check("SELECT i.oid, p.brand, o.total, c.seg FROM item i JOIN part p ON p.pid = i.pid "
        "JOIN ord o ON o.oid = i.oid JOIN cust c ON c.cid = o.cid JOIN nation n ON n.nid = c.nid");
}

TEST_CASE("db joins: WHERE and ON conditions across tables filter the joined tuples") {
  ValidationClean clean;
  const char* queries[] = {
      "SELECT o.oid, i.pid FROM ord o JOIN item i ON i.oid = o.oid JOIN part p ON p.pid = i.pid "
      "WHERE i.qty * i.price > o.total / 10 AND p.brand <> 'core'",
      "SELECT o.oid, n.nname FROM ord o JOIN cust c ON o.cid = c.cid JOIN nation n ON n.nid = c.nid "
      "WHERE n.nid < c.cid OR o.prio = 'low'",
      // Extra ON conditions of any later join, on one table or several.
      "SELECT o.oid, i.pid, p.size FROM ord o JOIN item i ON i.oid = o.oid AND i.qty > 1 "
      "JOIN part p ON p.pid = i.pid AND p.size >= i.qty * 3",
      "SELECT c.cid, o.oid, i.qty FROM cust c JOIN ord o ON o.cid = c.cid AND o.prio = 'high' "
      "JOIN item i ON o.oid = i.oid AND i.pid BETWEEN c.nid AND 4 WHERE c.seg IN ('auto', 'build')",
      "SELECT o.oid FROM ord o JOIN cust c ON o.cid = c.cid JOIN nation n ON n.nid = c.nid "
      "WHERE n.nname LIKE '%an%' AND c.seg IS NOT NULL AND o.prio IS NOT NULL ORDER BY o.oid",
  };
  for (const char* sql : queries) check_both(sql);
}

TEST_CASE("db joins: GROUP BY, aggregates, HAVING and ORDER BY over a 3-way join") {
  ValidationClean clean;
  const char* queries[] = {
      "SELECT n.nname, COUNT(*), SUM(o.total), AVG(o.total), MIN(c.seg), MAX(o.prio) FROM ord o "
      "JOIN cust c ON o.cid = c.cid JOIN nation n ON n.nid = c.nid GROUP BY n.nname ORDER BY n.nname",
      "SELECT p.brand, o.prio, SUM(i.qty), SUM(i.qty * i.price), COUNT(DISTINCT o.oid) FROM item i "
      "JOIN ord o ON o.oid = i.oid JOIN part p ON p.pid = i.pid GROUP BY p.brand, o.prio ORDER BY 4 DESC, 1, 2",
      "SELECT c.seg, COUNT(*) AS n FROM cust c JOIN ord o ON o.cid = c.cid JOIN item i ON i.oid = o.oid "
      "GROUP BY c.seg HAVING COUNT(*) > 2 ORDER BY n DESC",
      "SELECT COUNT(*), SUM(i.qty), MAX(p.size) FROM item i JOIN ord o ON o.oid = i.oid JOIN part p ON p.pid = i.pid",
      "SELECT DISTINCT p.brand, c.seg FROM item i JOIN ord o ON o.oid = i.oid JOIN part p ON p.pid = i.pid "
      "JOIN cust c ON c.cid = o.cid ORDER BY 1, 2",
      "SELECT o.oid, c.cid, i.pid FROM ord o JOIN cust c ON o.cid = c.cid JOIN item i ON i.oid = o.oid "
      "ORDER BY i.pid DESC, o.oid LIMIT 4 OFFSET 2",
  };
  for (const char* sql : queries) check_both(sql);
}

TEST_CASE("db joins: NULL keys match nothing in any join step") {
  ValidationClean clean;
  // ord 7 has a NULL customer, cust 5 a NULL nation, nation 5 a NULL region, region 4 a NULL
  // id, item 12 a NULL order and item 9 a NULL part: none of them may appear.
  const QueryStats s = check("SELECT o.oid, c.cid, n.nid, r.rid FROM ord o JOIN cust c ON o.cid = c.cid "
                             "JOIN nation n ON n.nid = c.nid JOIN region r ON r.rid = n.rid");
  CHECK(s.rows_out == 7);  // orders 1, 2, 3, 4, 5, 10 and 11
  check_both("SELECT i.oid, i.pid FROM item i JOIN ord o ON o.oid = i.oid JOIN part p ON p.pid = i.pid "
             "WHERE i.oid IS NULL OR i.pid IS NULL");
  check_both("SELECT COUNT(*) FROM region r JOIN nation n ON n.rid = r.rid JOIN cust c ON c.nid = n.nid");
}

TEST_CASE("db joins: duplicate keys fan out in every step") {
  ValidationClean clean;
  // Two nations per region 1 and 2, several items per order, the same table three times.
  const QueryStats s = check("SELECT a.rid, b.nid, c.nid FROM region a JOIN nation b ON b.rid = a.rid "
                             "JOIN nation c ON c.rid = b.rid");
  CHECK(s.rows_out == 9);  // 2*2 (europe) + 2*2 (asia) + 1 (africa)
  check_all_steps_both_ways("SELECT x.oid, y.pid, z.pid FROM ord o JOIN item x ON x.oid = o.oid "
                            "JOIN item y ON y.oid = x.oid JOIN item z ON z.oid = y.oid",
                            3);
  check_both("SELECT i.oid, COUNT(*) FROM item i JOIN item j ON j.oid = i.oid JOIN item k ON k.oid = j.oid GROUP BY i.oid");
}

TEST_CASE("db joins: empty intermediate results give no rows, and COUNT(*) one row of 0") {
  ValidationClean clean;
  // The first step finds nothing (no such customer), so later steps probe an empty set.
  QueryStats s = check("SELECT o.oid, n.nname FROM ord o JOIN cust c ON o.cid = c.cid AND c.seg = 'none' "
                       "JOIN nation n ON n.nid = c.nid");
  CHECK(s.rows_out == 0);
  s = check("SELECT COUNT(*), SUM(o.total) FROM ord o JOIN cust c ON o.cid = c.cid JOIN nation n ON n.nid = c.nid "
            "JOIN region r ON r.rid = n.rid WHERE o.total > 1000");
  CHECK(s.rows_out == 1);
  // A middle step that matches nothing (no part of brand zed), a scan that keeps nothing.
  // (The empty build side keeps the nested loop even at threshold 0: 0 rows are not "more".)
  s = check("SELECT i.oid FROM item i JOIN part p ON p.pid = i.pid AND p.brand = 'zed' JOIN ord o ON o.oid = i.oid");
  CHECK(s.rows_out == 0);
  REQUIRE(s.join_steps.size() == 2);
  CHECK(s.join_steps[0].joined_rows == 0);
  check_both("SELECT n.nname, COUNT(*) FROM region r JOIN nation n ON n.rid = r.rid JOIN cust c ON c.nid = n.nid "
             "WHERE r.rname = 'antarctica' GROUP BY n.nname");
}

TEST_CASE("db joins: each join step has its own cardinality rule, all in one submission") {
  ValidationClean clean;
  // Step 1 builds on 7 nations (nested loop under the default threshold of 64), step 2 on 200
  // orders (switched to the hash join on the device).
  std::string big = "oid,cid\n";
  for (int r = 0; r < 200; ++r) big += std::to_string(r) + "," + std::to_string(r % 11) + "\n";
  Database db;
  db.add(load_csv("cid,nid\n1,1\n2,3\n3,3\n4,4\n5,\n6,5\n7,8\n8,2\n9,7\n10,1\n", "cust", "cust.csv"));
  db.add(load_csv("nid,nname\n1,france\n2,germany\n3,japan\n4,china\n5,atlantis\n6,mu\n7,kenya\n", "nation", "nation.csv"));
  db.add(load_csv(big, "big", "big.csv"));
  Sqlite peer(db);
  const QueryStats s = check_query(db, peer, "SELECT n.nname, COUNT(*), SUM(b.oid) FROM cust c JOIN nation n ON n.nid = c.nid "
                                             "JOIN big b ON b.cid = c.cid GROUP BY n.nname");
  REQUIRE(s.join_steps.size() == 2);
  CHECK(s.join_steps[0].strategy == 1);
  CHECK(s.join_steps[0].build_rows == 7);
  CHECK(s.join_steps[1].strategy == 2);
  CHECK(s.join_steps[1].build_rows == 200);
  CHECK(s.join_strategy == 1);  // the first step's, as for a two-table join
  CHECK(s.rebuilds == 0);
  CHECK(s.submissions == 1);
}

TEST_CASE("db joins: a 3-way join over 2000 orders under the default rule (hash steps) agrees with SQLite") {
  ValidationClean clean;
  static Database db = random_database(2000, 150, 11, 13);
  static Sqlite peer(db);
  // Orders of the same customer paired through the customer: about 2000 * 13 joined tuples.
  const QueryStats s = check_query(db, peer,
                                   "SELECT c.tier, o.region, COUNT(*), SUM(o2.qty), MAX(o.amount - o2.amount) FROM orders o "
                                   "JOIN customers c ON o.customer = c.id JOIN orders o2 ON o2.customer = c.id "
                                   "WHERE o.id < o2.id GROUP BY c.tier, o.region ORDER BY 1, 2");
  REQUIRE(s.join_steps.size() == 2);
  CHECK(s.join_steps[0].strategy == 2);  // 150 customers > 64
  CHECK(s.join_steps[1].strategy == 2);  // 2000 orders
  CHECK(s.join_steps[1].joined_rows > 2000);
}

TEST_CASE("db joins: a join step's output larger than planned is rebuilt to fit") {
  ValidationClean clean;
  QueryOptions small;
  small.join_capacity = 4;
  const QueryStats s = check("SELECT x.oid, y.pid, z.qty FROM item x JOIN item y ON y.oid = x.oid "
                             "JOIN item z ON z.oid = y.oid",
                             small);
  // Step 2 counts what it joined from the rows step 1 kept, so a second rebuild may follow.
  CHECK(s.rebuilds >= 1);
  CHECK(s.submissions == s.rebuilds + 1);
  REQUIRE(s.join_steps.size() == 2);
  CHECK(s.join_steps[1].joined_rows > 4);
}

namespace {

// t0..t7 (k, nk, v): t_i.nk names a key of t_{i+1}; a few duplicate and NULL keys.
Database eight_tables() {
  Database db;
  for (int t = 0; t < 8; ++t) {
    std::ostringstream csv;
    csv << "k,nk,v\n";
    for (int r = 0; r < 6; ++r) {
      const int nk = (r * 5 + t) % 7;
      csv << r % 5 << "," << (nk == 6 ? std::string() : std::to_string(nk)) << "," << t * 100 + r << "\n";
    }
    db.add(load_csv(csv.str(), "t" + std::to_string(t), "t.csv"));
  }
  return db;
}

// check_query with every join step under the nested loop, then under the hash join.
void check_steps_both_ways(Database& db, Sqlite& peer, const std::string& sql, size_t steps) {
  QueryOptions nested, hash;
  nested.join_threshold = 1u << 30;
  hash.join_threshold = 0;
  const QueryStats n = check_query(db, peer, sql, nested), h = check_query(db, peer, sql, hash);
  REQUIRE(n.join_steps.size() == steps);
  REQUIRE(h.join_steps.size() == steps);
  for (size_t k = 0; k < steps; ++k) {
    CHECK(n.join_steps[k].strategy == 1);
    CHECK(h.join_steps[k].strategy == 2);
  }
}

}  // namespace

TEST_CASE("db joins: an 8-table join agrees with SQLite under both strategies in every step") {
  ValidationClean clean;
  Database db = eight_tables();
  Sqlite peer(db);
  std::string chain = "SELECT t0.v, t3.v, t7.v FROM t0";
  for (int t = 1; t < 8; ++t)
    chain += " JOIN t" + std::to_string(t) + " ON t" + std::to_string(t) + ".k = t" + std::to_string(t - 1) + ".nk";
  const std::string star = "SELECT COUNT(*), SUM(t1.v + t2.v + t3.v + t4.v + t5.v + t6.v + t7.v) FROM t0 JOIN t1 ON t1.k = t0.k "
                           "JOIN t2 ON t2.k = t0.k JOIN t3 ON t3.k = t0.nk JOIN t4 ON t4.k = t3.nk JOIN t5 ON t5.k = t0.k "
                           "JOIN t6 ON t6.nk = t2.nk JOIN t7 ON t7.k = t6.k WHERE t7.v > t0.v";
  for (const std::string& sql : {chain, star, chain + " WHERE t7.v % 2 = 0 ORDER BY 1, 2, 3"}) {
    QueryOptions nested, hash;
    nested.join_threshold = 1u << 30;
    hash.join_threshold = 0;
    const QueryStats n = check_query(db, peer, sql, nested), h = check_query(db, peer, sql, hash);
    REQUIRE(n.join_steps.size() == 7);
    REQUIRE(h.join_steps.size() == 7);
    CHECK(n.join_steps[6].strategy == 1);
    CHECK(h.join_steps[6].strategy == 2);
  }
  CHECK(prepare_sql(star, db).joins.size() == 7);
}

TEST_CASE("db joins: more than 8 tables, LEFT JOIN among more than two tables and ON reading later tables are refused") {
  Database& db = shop_db();
  std::string nine = "SELECT COUNT(*) FROM item a";
  for (const char* t : {"b", "c", "d", "e", "f", "g", "h"}) nine += std::string(" JOIN item ") + t + " ON " + t + ".oid = a.oid";
  CHECK(prepare_error(db, nine) == "(no error)");  // 8 tables plan
  const size_t col = nine.size() + 2;                   // where the 9th table's JOIN starts
  CHECK(prepare_error(db, nine + " JOIN item i ON i.oid = a.oid") ==
        "bad input: sql:1:" + std::to_string(col) + ": a join of more than 8 tables is not supported");
  CHECK(prepare_error(db, nine + " INNER JOIN item i ON i.oid = a.oid").find("a join of more than 8 tables is not supported") !=
        std::string::npos);
  CHECK(prepare_error(db, "SELECT 1 FROM ord o JOIN cust c ON o.cid = c.cid LEFT JOIN nation n ON n.nid = c.nid") ==
        "bad input: sql:1:50: LEFT JOIN with more than two tables is not supported (a LEFT JOIN joins two tables: "
        "FROM a LEFT JOIN b ON ...; inner JOINs chain up to 8)");
  CHECK(prepare_error(db, "SELECT 1 FROM ord o LEFT JOIN cust c ON o.cid = c.cid JOIN nation n ON n.nid = c.nid") ==
        "bad input: sql:1:55: LEFT JOIN with more than two tables is not supported (a LEFT JOIN joins two tables: "
        "FROM a LEFT JOIN b ON ...; inner JOINs chain up to 8)");
  CHECK(prepare_error(db, "SELECT 1 FROM ord o JOIN cust c ON n.nid = c.nid JOIN nation n ON n.nid = c.nid") ==
        "bad input: sql:1:36: JOIN ... ON may read only the tables joined so far ('n' is joined after it)");
  CHECK(prepare_error(db, "SELECT 1 FROM ord o JOIN cust c ON o.cid = c.cid AND n.nid > 1 JOIN nation n ON n.nid = c.nid") ==
        "bad input: sql:1:54: JOIN ... ON may read only the tables joined so far ('n' is joined after it)");
  CHECK(prepare_error(db, "SELECT 1 FROM ord o JOIN cust c ON o.cid = c.cid JOIN nation n ON o.oid = c.nid") ==
        "bad input: sql:1:67: JOIN ... ON needs an equality between a column of 'n' and a column of a table joined "
        "before it (t1.a = t3.b)");
  CHECK(prepare_error(db, "SELECT 1 FROM ord o JOIN cust c ON o.cid = c.cid JOIN nation n ON n.nname = c.cid") ==
        "bad input: sql:1:67: join keys must both be int or both be text (got int and text)");
  CHECK(prepare_error(db, "SELECT nid FROM ord o JOIN cust c ON o.cid = c.cid JOIN nation n ON n.nid = c.nid") ==
        "bad input: sql:1:8: column 'nid' is ambiguous (in more than one table; qualify it)");
  CHECK(prepare_error(db, "SELECT 1 FROM ord o JOIN cust c ON o.cid = c.cid JOIN cust c ON c.cid = o.cid") ==
        "bad input: sql:1:55: table name 'c' used twice (give one an alias)");
}

// Random tables t0..t4 (3 int columns a, b, c over a few values with NULLs, a text column s) and
// random 3-5 table chain/star joins over them, each compared row for row with SQLite.
namespace {

Database random_tables(std::mt19937& rng) {
  Database db;
  const char* words[] = {"x", "y", "z"};
  for (int t = 0; t < 5; ++t) {
    std::ostringstream csv;
    csv << "a,b,c,s\n";
    const int rows = rng() % 25 == 0 ? 0 : 4 + int(rng() % 10);  // empty tables too
    auto val = [&](int range) { return rng() % 8 == 0 ? std::string() : std::to_string(int(rng() % range)); };
    for (int r = 0; r < rows; ++r)
      csv << val(4) << "," << val(5) << "," << val(10) << "," << (rng() % 8 == 0 ? "" : words[rng() % 3]) << "\n";
    // A table of no rows has no values to infer types from: every column is given.
    db.add(load_csv(csv.str(), "t" + std::to_string(t), "t.csv", parse_schema("a:int,b:int,c:int,s:text")));
  }
  return db;
}

// Pieces of random queries over the tables q0..q{n-1} of random_tables.
struct RandomSql {
  std::mt19937& rng;
  int pick(int n) { return int(rng() % uint32_t(n)); }
  std::string col(int t) {
    static const char* ints[] = {"a", "b", "c"};
    return "q" + std::to_string(t) + "." + ints[pick(3)];
  }
  static std::string text(int t) { return "q" + std::to_string(t) + ".s"; }
  std::string key(int t) { return "q" + std::to_string(t) + "." + (pick(5) == 0 ? "c" : pick(2) ? "b" : "a"); }  // c rarely
  // An equality key between tables t and earlier, in either order.
  std::string key_equality(int t, int earlier) {
    std::string on = pick(6) == 0 ? text(t) + " = " + text(earlier) : key(t) + " = " + key(earlier);
    if (pick(2)) on = on.substr(on.find(" = ") + 3) + " = " + on.substr(0, on.find(" = "));
    return on;
  }
  // A condition over any of the tables, or "" (half the time).
  std::string condition(int tables) {
    switch (pick(6)) {
      case 0: return col(pick(tables)) + " < " + col(pick(tables));
      case 1: return col(pick(tables)) + " IS NOT NULL OR " + text(pick(tables)) + " = 'x'";
      case 2: return col(pick(tables)) + " + " + col(pick(tables)) + " > 3";
      default: return "";
    }
  }
  // SELECT ... `from_where`: plain columns or *, or a grouped select with aggregates.
  std::string select(int tables, const std::string& from_where) {
    if (pick(2)) {
      const std::string k = pick(4) == 0 ? text(pick(tables)) : col(pick(tables));
      return "SELECT " + k + ", COUNT(*), SUM(" + col(pick(tables)) + "), MIN(" + col(pick(tables)) + "), AVG(" +
             col(pick(tables)) + "), COUNT(DISTINCT " + col(pick(tables)) + ") " + from_where + " GROUP BY " + k;
    }
    std::string list = "SELECT ";
    const int n = 1 + pick(4);
    for (int k = 0; k < n; ++k) list += (k ? ", " : "") + (pick(5) == 0 ? text(pick(tables)) : col(pick(tables)));
    if (pick(4) == 0) list = "SELECT *";
    return list + " " + from_where;
  }
};

std::string random_join(std::mt19937& rng, int tables) {
  RandomSql r{rng};
  std::string from = "FROM t" + std::to_string(r.pick(5)) + " q0";
  for (int t = 1; t < tables; ++t) {
    const int earlier = r.pick(2) ? t - 1 : r.pick(t);  // chain or star
    std::string on = r.key_equality(t, earlier);
    if (r.pick(5) == 0) on += " AND " + r.col(t) + " <= " + r.col(r.pick(t + 1));
    if (r.pick(8) == 0) on = RandomSql::text(t) + " = " + RandomSql::text(earlier) + " AND " + on;
    from += std::string(r.pick(3) ? " JOIN" : " INNER JOIN") + " t" + std::to_string(r.pick(5)) + " q" + std::to_string(t) + " ON " + on;
  }
  const std::string where = r.condition(tables);
  return r.select(tables, from + (where.empty() ? "" : " WHERE " + where));
}

// The same kind of join written with commas: the tables listed in a random order, the keys (a
// tree over them, chain or star) among the other WHERE conjuncts in a random order, sometimes
// one more equality that closes a cycle (a residual filter, not a key).
std::string random_comma_join(std::mt19937& rng, int tables) {
  RandomSql r{rng};
  std::vector<std::string> conjuncts;
  for (int t = 1; t < tables; ++t) conjuncts.push_back(r.key_equality(t, r.pick(2) ? t - 1 : r.pick(t)));
  if (r.pick(4) == 0) conjuncts.push_back(r.key_equality(r.pick(tables), r.pick(tables)));
  if (r.pick(3) == 0) conjuncts.push_back(r.col(r.pick(tables)) + " <= " + r.col(r.pick(tables)));
  const std::string c = r.condition(tables);
  if (!c.empty()) conjuncts.push_back("(" + c + ")");
  std::vector<int> order(size_t(tables), 0);
  for (int t = 0; t < tables; ++t) order[size_t(t)] = t;
  std::shuffle(order.begin(), order.end(), rng);
  std::shuffle(conjuncts.begin(), conjuncts.end(), rng);
  std::string from = "FROM ";
  for (size_t k = 0; k < order.size(); ++k)
    from += (k ? ", t" : "t") + std::to_string(r.pick(5)) + (r.pick(4) ? " q" : " AS q") + std::to_string(order[k]);
  std::string where;
  for (const std::string& x : conjuncts) where += (where.empty() ? " WHERE " : " AND ") + x;
  return r.select(tables, from + where);
}

}  // namespace

TEST_CASE("db joins: 300 random 3-5 table joins on random small tables agree with SQLite row for row") {
  ValidationClean clean;
  std::mt19937 rng(20261127);
  int queries = 0, nonempty = 0, grouped = 0;
  for (int d = 0; d < 30; ++d) {
    Database db = random_tables(rng);
    Sqlite peer(db);
    if (getenv("WEFT_DB_SHOW_RANDOM_JOINS"))
      for (int t = 0; t < 5; ++t) MESSAGE("t" << t << ": " << db.table(size_t(t)).rows << " rows");
    for (int k = 0; k < 10; ++k, ++queries) {
      const std::string sql = random_join(rng, 3 + int(rng() % 3));
      QueryOptions o;
      // Both strategies, by turns; the far-column rerun (check_query) on every fifth query.
      o.join_threshold = (queries % 2) ? 0 : (queries % 3 ? 1u << 30 : 2);
      if (queries % 5) o.columns = QueryOptions::Columns::InWindow;
      check_query(db, peer, sql, o);
      nonempty += peer.query(sql).rows.empty() ? 0 : 1;
      grouped += sql.find("GROUP BY") != std::string::npos;
      if (getenv("WEFT_DB_SHOW_RANDOM_JOINS")) MESSAGE(peer.query(sql).rows.size() << " rows: " << sql);
    }
  }
  CHECK(queries == 300);
  // Not a vacuous differential: about half the queries return rows (153 with this seed), plain
  // and grouped ones both run. WEFT_DB_SHOW_RANDOM_JOINS=1 prints the tables' sizes and queries.
  CHECK(nonempty >= 120);
  CHECK(grouped >= 100);
}

// ---- comma joins: FROM a, b, ... WHERE <keys> AND ... -------------------------------------

TEST_CASE("db joins: a comma join of two tables takes its key from WHERE, under both strategies") {
  ValidationClean clean;
  check_all_steps_both_ways("SELECT o.oid, c.seg FROM ord o, cust c WHERE o.cid = c.cid", 1);
  check_all_steps_both_ways("SELECT o.oid, c.seg FROM ord AS o, cust AS c WHERE c.cid = o.cid AND o.total > 50 AND c.seg <> 'house'",
                            1);
  // Text keys; the key is found among the conjuncts wherever it stands.
  check_all_steps_both_ways("SELECT o.oid, x.oid FROM ord o, ord x WHERE o.total < x.total AND x.prio = o.prio", 1);
  check("SELECT * FROM cust, nation WHERE cust.nid = nation.nid");
}

TEST_CASE("db joins: comma joins of 3 and 4 tables (chains, stars, any FROM order) agree with SQLite") {
  ValidationClean clean;
  // TPC-H Q3's shape: customer, orders, lineitem.
  check_all_steps_both_ways("SELECT o.oid, SUM(i.qty * i.price) AS revenue, o.prio FROM cust c, ord o, item i "
                            "WHERE c.seg = 'auto' AND c.cid = o.cid AND i.oid = o.oid AND o.total > 10 "
                            "GROUP BY o.oid, o.prio ORDER BY revenue DESC, o.oid",
                            2);
  // A star around item.
  check_all_steps_both_ways("SELECT i.oid, i.pid, o.prio, p.brand FROM item i, ord o, part p WHERE o.oid = i.oid AND p.pid = i.pid", 2);
  // The second table listed is not joined to the first: the planner takes nation before cust.
  const std::string out_of_order = "SELECT * FROM region r, cust c, nation n WHERE c.nid = n.nid AND n.rid = r.rid";
  check_all_steps_both_ways(out_of_order, 2);
  const db::Plan p = prepare_sql(out_of_order, shop_db());
  CHECK(p.table_names == std::vector<std::string>{"r", "n", "c"});
  CHECK(p.names == std::vector<std::string>{"rid", "rname", "cid", "nid", "seg", "nid", "rid", "nname"});  // FROM order
  check_all_steps_both_ways("SELECT r.rname, n.nname, c.cid, o.oid FROM ord o, region r, cust c, nation n "
                            "WHERE n.rid = r.rid AND o.cid = c.cid AND c.nid = n.nid",
                            3);
}

TEST_CASE("db joins: comma-join conditions beyond the keys filter per table or the joined tuples") {
  ValidationClean clean;
  const char* queries[] = {
      // A second equality between joined tables closes a cycle: a residual filter.
      "SELECT c.cid, o.oid, i.pid FROM cust c, ord o, item i, nation n "
      "WHERE c.cid = o.cid AND i.oid = o.oid AND n.nid = c.nid AND n.nid = i.pid",
      // Float equality is no join key (int or text only): it filters; the int key joins.
      "SELECT o.oid, i.pid FROM ord o, item i WHERE o.total = i.price * 10 AND i.oid = o.oid",
      // Conditions across tables, OR, IS NULL, and one with no table.
      "SELECT o.oid, n.nname FROM ord o, cust c, nation n WHERE o.cid = c.cid AND n.nid = c.nid "
      "AND (n.nid < c.cid OR o.prio = 'low') AND o.prio IS NOT NULL AND 1 = 1",
      "SELECT DISTINCT c.seg, n.nname FROM cust c, nation n WHERE c.nid = n.nid ORDER BY 1, 2",
      "SELECT n.nname, COUNT(*), SUM(o.total), COUNT(DISTINCT c.seg) FROM ord o, cust c, nation n "
      "WHERE o.cid = c.cid AND c.nid = n.nid GROUP BY n.nname HAVING COUNT(*) > 1 ORDER BY 2 DESC, 1 LIMIT 3",
  };
  for (const char* sql : queries) check(sql);
  const db::Plan p = prepare_sql(queries[0], shop_db());
  CHECK(p.joins.size() == 3);
  CHECK(p.residual != nullptr);
}

TEST_CASE("db joins: comma joins of 8 tables, chain and star, agree with SQLite") {
  ValidationClean clean;
  Database db = eight_tables();
  Sqlite peer(db);
  std::string chain = "SELECT t0.v, t3.v, t7.v FROM t7, t6, t5, t4, t3, t2, t1, t0 WHERE t7.v > 0";
  for (int t = 1; t < 8; ++t)
    chain += " AND t" + std::to_string(t) + ".k = t" + std::to_string(t - 1) + ".nk";
  const std::string star = "SELECT COUNT(*), SUM(t1.v + t7.v) FROM t0, t1, t2, t3, t4, t5, t6, t7 WHERE t1.k = t0.k "
                           "AND t2.k = t0.k AND t3.k = t0.nk AND t4.k = t0.k AND t5.k = t0.k AND t6.nk = t0.nk "
                           "AND t7.k = t0.k AND t7.v > t0.v";
  check_steps_both_ways(db, peer, chain, 7);
  check_steps_both_ways(db, peer, star, 7);
  check_steps_both_ways(db, peer, chain + " ORDER BY 1, 2, 3 LIMIT 5", 7);
  CHECK(prepare_error(db, "SELECT 1 FROM t0, t1, t2, t3, t4, t5, t6, t7, t0 x WHERE t0.k = x.k") ==
        "bad input: sql:1:45: a join of more than 8 tables is not supported");
}

TEST_CASE("db joins: a comma join with a table no WHERE equality reaches (a cross product) is refused, named") {
  Database& db = shop_db();
  const std::string msg = "' to the other tables (a comma join needs a key t1.a = t2.b, int = int or text = text, per table); "
                          "a cross product is not supported";
  CHECK(prepare_error(db, "SELECT 1 FROM ord o, cust c") == "bad input: sql:1:22: no WHERE equality joins 'c" + msg);
  CHECK(prepare_error(db, "SELECT 1 FROM ord o, cust c WHERE o.cid < c.cid") == "bad input: sql:1:22: no WHERE equality joins 'c" + msg);
  // Equalities inside an OR are no keys; nor are float = float or int = text.
  CHECK(prepare_error(db, "SELECT 1 FROM ord o, cust c WHERE o.cid = c.cid OR o.oid = 1") ==
        "bad input: sql:1:22: no WHERE equality joins 'c" + msg);
  CHECK(prepare_error(db, "SELECT 1 FROM ord o, item i WHERE o.total = i.price") == "bad input: sql:1:22: no WHERE equality joins 'i" + msg);
  // Two joined pairs with nothing between them: the first table of the second pair is named.
  CHECK(prepare_error(db, "SELECT 1 FROM ord o, cust c, region r, nation n WHERE o.cid = c.cid AND n.rid = r.rid") ==
        "bad input: sql:1:30: no WHERE equality joins 'r" + msg);
  CHECK(prepare_error(db, "SELECT 1 FROM ord, cust c WHERE c.cid = 3") == "bad input: sql:1:20: no WHERE equality joins 'c" + msg);
  // What JOIN refuses, a comma join refuses the same way.
  CHECK(prepare_error(db, "SELECT * FROM ord o, cust c WHERE o.cid = c.cid GROUP BY o.oid") ==
        "bad input: sql: SELECT * cannot be combined with GROUP BY or aggregates");
  CHECK(prepare_error(db, "SELECT 1 FROM ord o, cust c WHERE o.cid = c.seg") == "bad input: sql:1:22: no WHERE equality joins 'c" + msg);
}

TEST_CASE("db joins: 300 random comma joins of 2-6 tables agree with SQLite row for row") {
  ValidationClean clean;
  std::mt19937 rng(20261128);
  int queries = 0, nonempty = 0, grouped = 0;
  for (int d = 0; d < 30; ++d) {
    Database db = random_tables(rng);
    Sqlite peer(db);
    for (int k = 0; k < 10; ++k, ++queries) {
      const std::string sql = random_comma_join(rng, 2 + int(rng() % 5));
      QueryOptions o;
      o.join_threshold = (queries % 2) ? 0 : (queries % 3 ? 1u << 30 : 2);
      if (queries % 5) o.columns = QueryOptions::Columns::InWindow;
      check_query(db, peer, sql, o);
      const ResultSet ref = peer.query(sql);
      // A grouped select over no rows still returns no row (GROUP BY), so both kinds count.
      nonempty += ref.rows.empty() ? 0 : 1;
      grouped += sql.find("GROUP BY") != std::string::npos;
      if (getenv("WEFT_DB_SHOW_RANDOM_JOINS")) MESSAGE(ref.rows.size() << " rows: " << sql);
    }
  }
  CHECK(queries == 300);
  MESSAGE(nonempty << " of 300 random comma joins return rows");
  CHECK(nonempty >= 120);  // not mostly empty
  CHECK(grouped >= 100);
}

TEST_CASE("db joins: TPC-H shapes, comma joins with IN / NOT IN subqueries (Q18, Q16), agree with SQLite") {
  ValidationClean clean;
  // Q18: the orders whose items sum past a quantity, with their customer, from a subquery.
  check_all_steps_both_ways("SELECT c.cid, o.oid, o.total, SUM(i.qty) FROM cust c, ord o, item i "
                            "WHERE o.oid IN (SELECT oid FROM item GROUP BY oid HAVING SUM(qty) > 3) AND c.cid = o.cid "
                            "AND o.oid = i.oid GROUP BY c.cid, o.oid, o.total ORDER BY o.total DESC, o.oid",
                            2);
  // Q16: parts of items not in a set of orders (item.oid has a NULL; the subquery has none).
  check_all_steps_both_ways("SELECT p.brand, p.size, COUNT(DISTINCT i.oid) FROM item i, part p WHERE p.pid = i.pid "
                            "AND p.brand <> 'core' AND i.oid NOT IN (SELECT oid FROM ord WHERE prio = 'low') "
                            "GROUP BY p.brand, p.size ORDER BY 3 DESC, 1, 2",
                            1);
  // The subquery a comma join of its own; NOT IN over a column with NULLs keeps no row.
  check("SELECT o.oid FROM ord o WHERE o.cid IN (SELECT c.cid FROM cust c, nation n WHERE c.nid = n.nid AND n.rid = 2)");
  check("SELECT o.oid FROM ord o, cust c WHERE o.cid = c.cid AND c.nid NOT IN (SELECT nid FROM cust)");
}
