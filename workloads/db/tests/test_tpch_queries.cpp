// The 22 TPC-H queries (tpch/queries) at SF 0.01 through Weft and SQLite (tpch/harness.h): each
// must match SQLite or be on the committed expected-refusal list (tpch/expected_refusals.txt)
// with the message it lists, so a query that starts to run, changes its refusal or gives a wrong
// answer fails. Prints the summary table. Own ctest entry: weft_db_tpch_tests.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "device_fixture.h"
#include "harness.h"
#include "tpch_data.h"

using namespace weft;
using namespace weft::db;
using weft::db::test::device;
using weft::db::test::tpch_data;
using weft::db::test::ValidationClean;

TEST_CASE("db tpch queries: each of the 22 matches SQLite at SF 0.01 or is an expected refusal with its message") {
  ValidationClean clean;
  Database db = tpch::load(tpch_data(1));
  Sqlite peer(db);
  const auto expected = tpch::load_expected_refusals(WEFT_DB_TPCH_SOURCE "/expected_refusals.txt");
  std::vector<tpch::Outcome> outcomes;
  for (const tpch::QueryFile& q : tpch::load_queries(WEFT_DB_TPCH_SOURCE "/queries")) {
    outcomes.push_back(tpch::run_query(device(), db, peer, q));
    const std::string verdict = tpch::judge(outcomes.back(), expected);
    CHECK_MESSAGE(verdict.empty(), verdict);
  }
  std::cout << "TPC-H at SF 0.01, seed 1:\n" << tpch::summary_table(outcomes);
  for (const auto& [name, message] : expected) {
    INFO(name);
    CHECK(std::count_if(outcomes.begin(), outcomes.end(), [&](const tpch::Outcome& o) { return o.name == name; }) == 1);
  }
}

namespace {

tpch::Outcome outcome(const char* name, tpch::Status status, const char* message = "") {
  tpch::Outcome o;
  o.name = name, o.status = status, o.message = message;
  return o;
}

}  // namespace

TEST_CASE("db tpch harness: a match is allowed only for a query off the expected-refusal list") {
  const std::map<std::string, std::string> expected = {{"q02", "correlated subqueries"}};
  CHECK(tpch::judge(outcome("q01", tpch::Status::Match), expected).empty());
  CHECK(weft::test::contains(tpch::judge(outcome("q02", tpch::Status::Match), expected), "take it off the expected-refusal list"));
}

TEST_CASE("db tpch harness: a refusal is allowed only when listed, with the listed message") {
  const std::map<std::string, std::string> expected = {{"q02", "correlated subqueries"}};
  CHECK(tpch::judge(outcome("q02", tpch::Status::Refused, "BadInput: sql:1:2: correlated subqueries are not supported"), expected).empty());
  CHECK(weft::test::contains(tpch::judge(outcome("q02", tpch::Status::Refused, "BadInput: WITH is not supported"), expected),
                             "another message than listed"));
  CHECK(weft::test::contains(tpch::judge(outcome("q03", tpch::Status::Refused, "BadInput: x"), expected), "not on the expected-refusal list"));
}

TEST_CASE("db tpch harness: a wrong answer or a query SQLite rejects is never allowed, listed or not") {
  const std::map<std::string, std::string> expected = {{"q02", ""}, {"q05", "x"}};
  CHECK(weft::test::contains(tpch::judge(outcome("q01", tpch::Status::Wrong, "row 0"), expected), "wrong answer"));
  CHECK(weft::test::contains(tpch::judge(outcome("q05", tpch::Status::Wrong, "row 0: x"), expected), "wrong answer"));
  CHECK(weft::test::contains(tpch::judge(outcome("q02", tpch::Status::PeerFailed, "sqlite: x"), expected), "SQLite rejects"));
}

TEST_CASE("db tpch harness: the expected-refusal list refuses a line without a message and a query listed twice") {
  const std::string dir = std::string(WEFT_DB_TPCH_DIR);
  std::filesystem::create_directories(dir);
  auto list = [&](const char* text) {
    std::ofstream(dir + "/list.txt") << text;
    return weft::test::error_message_of([&] { tpch::load_expected_refusals(dir + "/list.txt"); });
  };
  CHECK(list("# comment\n\nq01 a message\n") == "(no error)");
  CHECK(weft::test::contains(list("q01\n"), "list.txt:1: expected 'qNN message-part'"));
  CHECK(weft::test::contains(list("q01 a\n# c\nq01 b\n"), "list.txt:3: q01 is listed twice"));
}
