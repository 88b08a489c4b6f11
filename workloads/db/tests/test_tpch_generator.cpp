// The TPC-H generator (tpch/generator.h) at SF 0.01, its output checked by SQLite over the loaded
// CSV files: row counts, key integrity, value ranges and the dependent-column rules of the
// specification, determinism by seed. Own ctest entry with the queries: weft_db_tpch_tests.
#include <cmath>
#include <filesystem>
#include <tuple>

#include <weft/input_file.h>

#include "device_fixture.h"
#include "generator.h"
#include "tpch_data.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::tpch_data;

namespace {

// SQLite over the SF 0.01 tables of seed 1.
Sqlite& sf001() {
  static Database db = tpch::load(tpch_data(1));
  static Sqlite peer(db);
  return peer;
}

int64_t scalar(const std::string& sql) {
  INFO(sql);
  const ResultSet r = sf001().query(sql);
  REQUIRE(r.rows.size() == 1);
  REQUIRE(!r.rows[0][0].null);
  return r.rows[0][0].i;
}

// Every condition is stated as "rows that break it": 0 expected.
void check_none(const std::string& what, const std::string& sql) {
  INFO(what);
  CHECK(scalar("select count(*) from " + sql) == 0);
}

}  // namespace

TEST_CASE("db tpch generator: tables have the specification's row counts at SF 0.01") {
  const std::pair<const char*, int64_t> counts[] = {{"region", 5},   {"nation", 25},    {"supplier", 100}, {"customer", 1500},
                                                    {"part", 2000},  {"partsupp", 8000}, {"orders", 15000}};
  for (const auto& [table, n] : counts) {
    INFO(table);
    CHECK(scalar(std::string("select count(*) from ") + table) == n);
    CHECK(tpch::rows(table, 0.01) == uint64_t(n));
  }
  // 1..7 lines per order, 4 on average.
  const int64_t lines = scalar("select count(*) from lineitem");
  CHECK(lines > 15000 * 39 / 10);
  CHECK(lines < 15000 * 41 / 10);
}

TEST_CASE("db tpch generator: row counts scale with the scale factor up to SF 10") {
  CHECK(tpch::rows("supplier", 1) == 10000);
  CHECK(tpch::rows("customer", 1) == 150000);
  CHECK(tpch::rows("part", 1) == 200000);
  CHECK(tpch::rows("partsupp", 1) == 800000);
  CHECK(tpch::rows("orders", 1) == 1500000);
  CHECK(tpch::rows("orders", 10) == 15000000);
  CHECK(tpch::rows("nation", 10) == 25);
  CHECK(tpch::rows("region", 0.5) == 5);
}

TEST_CASE("db tpch generator: scale factors outside 0.01 .. 10, unknown tables and lineitem's count are refused") {
  using weft::test::contains;
  using weft::test::error_message_of;
  CHECK(contains(error_message_of([] { tpch::check_scale(0.005); }), "scale factor 0.005 is outside 0.01 .. 10"));
  CHECK(contains(error_message_of([] { tpch::check_scale(10.5); }), "outside 0.01 .. 10"));
  CHECK(contains(error_message_of([] { tpch::check_scale(std::nan("")); }), "outside 0.01 .. 10"));
  CHECK(contains(error_message_of([] { tpch::generate({0.001, 1}, "/nonexistent"); }), "outside 0.01 .. 10"));
  CHECK(contains(error_message_of([] { tpch::rows("lineitems", 1); }), "no table 'lineitems'"));
  CHECK(contains(error_message_of([] { tpch::rows("lineitem", 1); }), "no fixed count"));
  CHECK(error_message_of([] { tpch::check_scale(0.01); }) == "(no error)");
  CHECK(error_message_of([] { tpch::check_scale(10); }) == "(no error)");
}

TEST_CASE("db tpch generator: a supplier count that makes partsupp repeat a supplier of a part is refused") {
  // 120 suppliers: a step of 30 + 10 = 40 brings supplier i = 3 back to i = 0 (3 * 40 = 120).
  CHECK(weft::test::contains(weft::test::error_message_of([] { tpch::check_scale(0.012); }), "repeats a supplier"));
}

TEST_CASE("db tpch generator: primary keys are unique and orders use the first 8 of every 32 keys") {
  check_none("region keys", "(select r_regionkey from region group by 1 having count(*) > 1)");
  check_none("nation keys", "(select n_nationkey from nation group by 1 having count(*) > 1)");
  check_none("supplier keys 1..S", "supplier where s_suppkey < 1 or s_suppkey > 100");
  CHECK(scalar("select count(distinct s_suppkey) from supplier") == 100);
  CHECK(scalar("select count(distinct c_custkey) from customer where c_custkey between 1 and 1500") == 1500);
  CHECK(scalar("select count(distinct p_partkey) from part where p_partkey between 1 and 2000") == 2000);
  CHECK(scalar("select count(*) from (select distinct ps_partkey, ps_suppkey from partsupp)") == 8000);
  CHECK(scalar("select count(distinct o_orderkey) from orders") == 15000);
  check_none("sparse order keys", "orders where (o_orderkey - 1) % 32 >= 8");
  CHECK(scalar("select max(o_orderkey) from orders") == (15000 - 1) / 8 * 32 + 8);
  check_none("lineitem (orderkey, linenumber)", "(select l_orderkey, l_linenumber from lineitem group by 1, 2 having count(*) > 1)");
}

TEST_CASE("db tpch generator: every foreign key exists") {
  check_none("nation -> region", "nation where n_regionkey not in (select r_regionkey from region)");
  check_none("supplier -> nation", "supplier where s_nationkey not in (select n_nationkey from nation)");
  check_none("customer -> nation", "customer where c_nationkey not in (select n_nationkey from nation)");
  check_none("partsupp -> part", "partsupp where ps_partkey not in (select p_partkey from part)");
  check_none("partsupp -> supplier", "partsupp where ps_suppkey not in (select s_suppkey from supplier)");
  check_none("orders -> customer", "orders where o_custkey not in (select c_custkey from customer)");
  check_none("lineitem -> orders", "lineitem where l_orderkey not in (select o_orderkey from orders)");
  check_none("lineitem -> partsupp",
             "lineitem where not exists (select 1 from partsupp where ps_partkey = l_partkey and ps_suppkey = l_suppkey)");
  check_none("orders without lines", "orders where o_orderkey not in (select l_orderkey from lineitem)");
}

TEST_CASE("db tpch generator: partsupp has 4 distinct suppliers per part by the specification's formula") {
  check_none("4 per part", "(select ps_partkey from partsupp group by 1 having count(distinct ps_suppkey) <> 4)");
  // The formula, restated: supplier i of part p is (p + i * (S/4 + (p - 1)/S)) % S + 1, S = 100.
  check_none("formula", "partsupp where ps_suppkey not in ("
                        "(ps_partkey + 0 * (25 + (ps_partkey - 1) / 100)) % 100 + 1, (ps_partkey + 1 * (25 + (ps_partkey - 1) / 100)) % 100 + 1,"
                        "(ps_partkey + 2 * (25 + (ps_partkey - 1) / 100)) % 100 + 1, (ps_partkey + 3 * (25 + (ps_partkey - 1) / 100)) % 100 + 1)");
}

TEST_CASE("db tpch generator: customers whose key is a multiple of 3 place no orders") {
  check_none("no orders of c_custkey % 3 = 0", "orders where o_custkey % 3 = 0");
  // About a third of the customers have no order; the others most likely have one (10 per customer).
  const int64_t without = scalar("select count(*) from customer where c_custkey not in (select o_custkey from orders)");
  CHECK(without >= 500);
  CHECK(without < 520);
}

TEST_CASE("db tpch generator: line items are 1..7 per order, numbered from 1") {
  check_none("1..7 lines", "(select l_orderkey from lineitem group by 1 having count(*) < 1 or count(*) > 7)");
  check_none("numbered 1..n", "(select l_orderkey from lineitem group by 1 having max(l_linenumber) <> count(*) or min(l_linenumber) <> 1)");
  for (int n = 1; n <= 7; ++n) {  // each count is drawn: about 1/7 of the orders each
    INFO(n);
    const int64_t orders = scalar("select count(*) from (select l_orderkey from lineitem group by 1 having count(*) = " + std::to_string(n) + ")");
    CHECK(orders > 1900);
    CHECK(orders < 2400);
  }
}

TEST_CASE("db tpch generator: numeric columns stay in the specification's ranges") {
  check_none("s_acctbal", "supplier where s_acctbal < -999.99 or s_acctbal > 9999.99");
  check_none("c_acctbal", "customer where c_acctbal < -999.99 or c_acctbal > 9999.99");
  check_none("p_size", "part where p_size < 1 or p_size > 50");
  check_none("ps_availqty", "partsupp where ps_availqty < 1 or ps_availqty > 9999");
  check_none("ps_supplycost", "partsupp where ps_supplycost < 1 or ps_supplycost > 1000");
  check_none("l_quantity", "lineitem where l_quantity < 1 or l_quantity > 50 or l_quantity <> cast(l_quantity as integer)");
  check_none("l_discount", "lineitem where l_discount < 0 or l_discount > 0.10");
  check_none("l_tax", "lineitem where l_tax < 0 or l_tax > 0.08");
  check_none("o_shippriority", "orders where o_shippriority <> 0");
  check_none("o_clerk", "orders where o_clerk not like 'Clerk#%' or cast(substr(o_clerk, 7) as integer) not between 1 and 10");
  CHECK(scalar("select count(distinct l_discount * 100) from lineitem") == 11);
  CHECK(scalar("select count(distinct l_tax * 100) from lineitem") == 9);
}

TEST_CASE("db tpch generator: prices follow the retail price formula and the order totals its lines") {
  check_none("p_retailprice",
             "part where abs(p_retailprice - (90000 + (p_partkey / 10) % 20001 + 100 * (p_partkey % 1000)) / 100.0) > 0.001");
  check_none("l_extendedprice = quantity * retail price",
             "lineitem join part on p_partkey = l_partkey where abs(l_extendedprice - l_quantity * p_retailprice) > 0.001");
  // Each line's charge is rounded to the cent, so the total may differ by half a cent per line.
  check_none("o_totalprice", "orders join (select l_orderkey, sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)) as t, count(*) as n "
                             "from lineitem group by 1) on l_orderkey = o_orderkey where abs(o_totalprice - t) > 0.005 * n + 1e-6");
}

TEST_CASE("db tpch generator: dates follow the specification's ranges and dependencies") {
  // Orders from STARTDATE 1992-01-01 to ENDDATE 1998-12-31 less 151 days.
  CHECK(scalar("select min(o_orderdate) >= '1992-01-01' and max(o_orderdate) <= '1998-08-02' from orders") == 1);
  CHECK(scalar("select min(o_orderdate) < '1992-01-08' and max(o_orderdate) > '1998-07-25' from orders") == 1);
  check_none("valid dates", "lineitem where date(l_shipdate) is null or date(l_commitdate) is null or date(l_receiptdate) is null "
                            "or date(l_shipdate) <> l_shipdate");
  check_none("shipdate = orderdate + 1..121",
             "lineitem join orders on o_orderkey = l_orderkey where julianday(l_shipdate) - julianday(o_orderdate) not between 1 and 121");
  check_none("commitdate = orderdate + 30..90",
             "lineitem join orders on o_orderkey = l_orderkey where julianday(l_commitdate) - julianday(o_orderdate) not between 30 and 90");
  check_none("receiptdate = shipdate + 1..30", "lineitem where julianday(l_receiptdate) - julianday(l_shipdate) not between 1 and 30");
}

TEST_CASE("db tpch generator: return flag, line status and order status follow the current date 1995-06-17") {
  check_none("linestatus", "lineitem where l_linestatus <> case when l_shipdate > '1995-06-17' then 'O' else 'F' end");
  check_none("returnflag N after the current date", "lineitem where l_receiptdate > '1995-06-17' and l_returnflag <> 'N'");
  check_none("returnflag R or A before", "lineitem where l_receiptdate <= '1995-06-17' and l_returnflag not in ('R', 'A')");
  CHECK(scalar("select count(*) from lineitem where l_returnflag = 'R'") > 10000);
  CHECK(scalar("select count(*) from lineitem where l_returnflag = 'A'") > 10000);
  check_none("orderstatus", "orders join (select l_orderkey, sum(l_linestatus = 'O') as o, count(*) as n from lineitem group by 1) "
                            "on l_orderkey = o_orderkey where o_orderstatus <> case when o = n then 'O' when o = 0 then 'F' else 'P' end");
  CHECK(scalar("select count(distinct o_orderstatus) from orders") == 3);
}

TEST_CASE("db tpch generator: names, phones and categories use the specification's lists") {
  check_none("regions", "region where r_name not in ('AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST') or r_name <> "
                        "case r_regionkey when 0 then 'AFRICA' when 1 then 'AMERICA' when 2 then 'ASIA' when 3 then 'EUROPE' else 'MIDDLE EAST' end");
  CHECK(scalar("select count(*) from nation join region on r_regionkey = n_regionkey where (n_name, r_name) in "
               "(values ('GERMANY', 'EUROPE'), ('SAUDI ARABIA', 'MIDDLE EAST'), ('CANADA', 'AMERICA'), ('BRAZIL', 'AMERICA'), "
               "('FRANCE', 'EUROPE'), ('CHINA', 'ASIA'))") == 6);
  check_none("s_name", "supplier where s_name <> 'Supplier#' || substr('000000000' || s_suppkey, -9)");
  check_none("c_name", "customer where c_name <> 'Customer#' || substr('000000000' || c_custkey, -9)");
  check_none("c_phone country code", "customer where cast(substr(c_phone, 1, 2) as integer) <> c_nationkey + 10 or length(c_phone) <> 15");
  check_none("s_phone country code", "supplier where cast(substr(s_phone, 1, 2) as integer) <> s_nationkey + 10 or length(s_phone) <> 15");
  check_none("c_mktsegment", "customer where c_mktsegment not in ('AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD')");
  check_none("o_orderpriority", "orders where o_orderpriority not in ('1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW')");
  check_none("l_shipmode", "lineitem where l_shipmode not in ('REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB')");
  check_none("l_shipinstruct", "lineitem where l_shipinstruct not in ('DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN')");
  check_none("p_mfgr/p_brand", "part where p_mfgr not in ('Manufacturer#1', 'Manufacturer#2', 'Manufacturer#3', 'Manufacturer#4', "
                               "'Manufacturer#5') or substr(p_brand, 1, 7) <> 'Brand#' || substr(p_mfgr, 14) or substr(p_brand, 8) not between '1' and '5' "
                               "or length(p_brand) <> 8");
  CHECK(scalar("select count(distinct p_brand) from part") == 25);
  CHECK(scalar("select count(distinct p_type) from part") == 150);
  CHECK(scalar("select count(distinct p_container) from part") == 40);
  check_none("p_type syllables", "part where p_type not like '% % %' or substr(p_type, 1, instr(p_type, ' ') - 1) not in "
                                 "('STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO')");
  check_none("p_container", "part where substr(p_container, instr(p_container, ' ') + 1) not in "
                            "('CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM')");
  // p_name: five distinct words; the queries' colours occur.
  check_none("five words", "part where length(p_name) - length(replace(p_name, ' ', '')) <> 4");
  CHECK(scalar("select count(*) from part where p_name like '%green%'") > 50);
  CHECK(scalar("select count(*) from part where p_name like 'forest%'") > 5);
}

TEST_CASE("db tpch generator: comments have the specification's lengths and the words the queries look for") {
  const std::tuple<const char*, const char*, int, int> comments[] = {
      {"region", "r_comment", 31, 115}, {"nation", "n_comment", 31, 114},   {"supplier", "s_comment", 25, 100},
      {"customer", "c_comment", 29, 116}, {"part", "p_comment", 5, 22},     {"partsupp", "ps_comment", 49, 198},
      {"orders", "o_comment", 19, 78},  {"lineitem", "l_comment", 10, 43}};
  for (const auto& [table, column, lo, hi] : comments)
    check_none(column, std::string(table) + " where length(" + column + ") not between " + std::to_string(lo) + " and " + std::to_string(hi));
  CHECK(scalar("select count(*) from orders where o_comment like '%special%requests%'") > 5);
  CHECK(scalar("select count(*) from supplier where s_comment like '%Customer%Complaints%'") == 1);
  CHECK(scalar("select count(*) from supplier where s_comment like '%Customer%Recommends%'") == 1);
}

TEST_CASE("db tpch generator: the same seed writes the same bytes, another seed other rows") {
  const std::string a = tpch_data(1), b = tpch_data(1, "-again"), c = tpch_data(2);
  for (const std::string& t : tpch::table_names()) {
    INFO(t);
    CHECK(read_text_file(a + "/" + t + ".csv") == read_text_file(b + "/" + t + ".csv"));
    if (t != "region" && t != "nation") continue;
    CHECK(read_text_file(a + "/" + t + ".csv") != read_text_file(c + "/" + t + ".csv"));  // comments differ
  }
  CHECK(read_text_file(a + "/lineitem.csv") != read_text_file(c + "/lineitem.csv"));
  CHECK(read_text_file(a + "/orders.csv") != read_text_file(c + "/orders.csv"));
}

TEST_CASE("db tpch generator: a missing output folder is made; a path through a file is refused by name") {
  const std::string root = std::string(WEFT_DB_TPCH_DIR) + "/made-here";
  std::filesystem::remove_all(root);
  const std::vector<tpch::Written> written = tpch::generate(tpch::Options{}, root + "/a/b");
  CHECK(written.size() == tpch::table_names().size());
  CHECK(read_text_file(root + "/a/b/region.csv") == read_text_file(tpch_data(1) + "/region.csv"));
  try {
    tpch::generate(tpch::Options{}, root + "/a/b/region.csv/inner");  // region.csv is a file
    FAIL("a folder inside a file was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    CHECK(std::string(e.what()).find("region.csv/inner") != std::string::npos);
  }
}
