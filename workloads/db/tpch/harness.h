// The 22 TPC-H queries run through Weft and through SQLite on the same tables, each query's
// outcome classified: the same rows as SQLite, refused by Weft (a weft::Error, its message kept),
// a wrong answer, or a query SQLite itself rejects. Used by `weft db tpch` and the ctest
// weft_db_tpch_tests, which holds every query to "matches SQLite" or to an entry of the committed
// expected-refusal list (tpch/expected_refusals.txt) whose message it must still give.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "db.h"

namespace weft::db::tpch {

// SUM/AVG of doubles: Weft rounds the exact sum once, SQLite after every term in row order. For
// the n <= 6e4 terms of SF 0.01 (same signs: prices, quantities) SQLite's error is at most
// n * 2^-53 ~ 7e-12 relative; 1e-9 leaves room for SF 1 (6e6 terms, 7e-10) and for the products
// and quotients the queries take of such sums, while a wrong row, a lost term (>= 1e-6 of a sum
// of 6e4 similar terms) or a swapped group stays far outside it.
inline constexpr double kFloatRel = 1e-9;

struct QueryFile {
  std::string name;  // "q01" .. "q22"
  std::string sql;
};

// q01.sql .. q22.sql of `dir`, all 22 (BadInput naming a missing one).
std::vector<QueryFile> load_queries(const std::string& dir);

enum class Status { Match, Refused, Wrong, PeerFailed };
const char* status_name(Status s);

struct Outcome {
  std::string name;
  Status status = Status::Wrong;
  size_t rows = 0;       // SQLite's rows
  std::string message;   // Weft's refusal, what differs, or SQLite's error
};

// Plans and runs `q` on the device (subqueries included) and in `peer`, and compares the rows:
// in order when the query has ORDER BY, as multisets otherwise, floats within kFloatRel.
Outcome run_query(Device& device, Database& db, Sqlite& peer, const QueryFile& q);

// The expected-refusal list: lines "qNN message-part" ('#' starts a comment); a query on it must
// be refused with a message that contains message-part.
std::map<std::string, std::string> load_expected_refusals(const std::string& path);

// "" when the outcome is what the list allows (a match for a query not on it, a refusal naming
// the listed message for one on it), else what is wrong. A wrong answer is never allowed.
std::string judge(const Outcome& o, const std::map<std::string, std::string>& expected);

// query | rows | status | message, one line per outcome, aligned.
std::string summary_table(const std::vector<Outcome>& outcomes);

}  // namespace weft::db::tpch
