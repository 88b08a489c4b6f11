// The SQLite peer's time limit (Sqlite::set_time_limit), which `weft bench db --tpch` uses to
// bound queries SQLite runs for hours without an index.
#include <doctest/doctest.h>

#include <chrono>

#include "db.h"

using namespace weft;
using namespace weft::db;

namespace {

// Counts to n through a recursive common table expression: SQLite's time grows with n, and no
// table is needed.
std::string count_to(long long n) {
  return "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < " + std::to_string(n) + ") SELECT count(*) FROM c";
}

ErrorCode code_of_query(Sqlite& peer, const std::string& sql) {
  try {
    peer.query(sql);
  } catch (const Error& e) {
    return e.code();
  }
  FAIL("the query was not interrupted");
  return ErrorCode::BadInput;
}

}  // namespace

TEST_CASE("db sqlite peer: a query past its time limit fails with Timeout soon after the limit") {
  Sqlite peer{Database{}};
  peer.set_time_limit(0.2);
  const auto start = std::chrono::steady_clock::now();
  CHECK(code_of_query(peer, count_to(1000000000000LL)) == ErrorCode::Timeout);
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 5.0);
}

TEST_CASE("db sqlite peer: a query within its time limit returns its rows, also after an interrupted one") {
  Sqlite peer{Database{}};
  peer.set_time_limit(0.2);
  CHECK(code_of_query(peer, count_to(1000000000000LL)) == ErrorCode::Timeout);
  peer.set_time_limit(30);
  const ResultSet rs = peer.query(count_to(1000));
  REQUIRE(rs.rows.size() == 1);
  CHECK(rs.rows[0][0].i == 1000);
}

TEST_CASE("db sqlite peer: a time limit of 0 removes the limit") {
  Sqlite peer{Database{}};
  peer.set_time_limit(0.01);
  peer.set_time_limit(0);
  const ResultSet rs = peer.query(count_to(3000000));  // about 1 s, far past 0.01 s
  REQUIRE(rs.rows.size() == 1);
  CHECK(rs.rows[0][0].i == 3000000);
}
