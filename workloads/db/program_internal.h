// Between program.cpp (which builds the query program) and query.cpp (which runs it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db.h"
#include "db_ops.h"

namespace weft::db {

// Counter words (segment "counters"), reset to 0 every run. Sides 0 and 1 count their scan in
// kScan0/kScan1 and the first join step in kJoined; sides 2.. and later join steps in the words
// from kScanMore and kJoinedMore (scan_counter, join_counter). A join step's count goes on past
// its output's capacity (the host rebuilds by it); the rows later stages read are that count
// clamped to the capacity, in the words from kJoinedKept (join_kept_counter).
enum Counter : uint32_t {
  kError, kScan0, kScan1, kJoined, kFiltered, kGroups, kFirst, kCount, kGroupsKept, kGroupsClaimed, kHaving,
  kScanMore, kJoinedMore = kScanMore + DB_MAX_SIDES - 2, kJoinedKept = kJoinedMore + DB_MAX_SIDES - 2,
  kCounters = kJoinedKept + DB_MAX_SIDES - 1
};
// The scan counter of side s; the join counters of the step that joins side s (s >= 1).
inline uint32_t scan_counter(size_t s) { return s == 0 ? kScan0 : s == 1 ? kScan1 : uint32_t(kScanMore + s - 2); }
inline uint32_t join_counter(size_t s) { return s == 1 ? kJoined : uint32_t(kJoinedMore + s - 2); }
inline uint32_t join_kept_counter(size_t s) { return uint32_t(kJoinedKept + s - 1); }

// Rows flowing between stages: a count word and a row-id table (shaders/db_ops.h; absent: the
// identity on every side) naming one row-id list per side the rows hold, with their Globals
// ranges and the other ranges a reader must declare.
struct RowSet {
  uint64_t cap = 0;
  uint32_t count_word = 0;
  Range count;                   // the count word
  std::optional<Range> table;    // the row-id table, written by the host
  std::vector<uint32_t> sides;   // the sides with a list, ascending
  std::vector<Range> lists;      // their row-id lists
  std::vector<Range> columns;    // computed columns the rows index (an aggregate's output)
  std::vector<Range> id_lists() const {  // the row-id lists and the table that names them
    std::vector<Range> r = lists;
    if (table) r.push_back(*table);
    return r;
  }
  std::vector<Range> ranges() const {     // everything a reader of the rows declares
    std::vector<Range> r = id_lists();
    r.push_back(count);
    r.insert(r.end(), columns.begin(), columns.end());
    return r;
  }
};

struct Upload {
  std::string segment;
  size_t side, column;
  bool nulls;  // the NULL bitmap (else the values)
};

struct HostTable {
  std::string segment;
  std::vector<uint32_t> words;
};

struct OutputColumn {
  uint32_t values, nulls;
  std::string segment;  // values at segment + ".v", NULLs at + ".n"
};

struct BuiltQuery {
  Program program{"db"};
  std::vector<Upload> uploads;
  std::vector<HostTable> host_tables;
  std::vector<InstanceId> scans;
  std::optional<InstanceId> join, aggregate, having;  // join: the first join step's
  std::vector<InstanceId> joins;                      // every join step's, in side order
  InstanceId filter, output;
  RowSet input_rows;
  std::vector<OutputColumn> outputs;
  uint32_t counters_word = 0, code_word = 0, desc_word = 0;
  uint32_t output_count_word = 0, groups_word = 0xFFFFFFFFu, join_count_word = 0xFFFFFFFFu;  // first step's
  uint32_t perm_word = 0xFFFFFFFFu, nested_slot_word = 0xFFFFFFFFu;
  uint64_t output_cap = 0, join_capacity = 0, group_capacity = 0, group_slots = 0, rows_scanned = 0;
  uint32_t term_filters = 0;  // scans whose predicate runs as a term list (filter_terms)
  // COUNT(DISTINCT): one claim counter word per distinct aggregate's hash table (distinct_slots
  // each, one after the other).
  uint32_t distinct_claimed_word = 0xFFFFFFFFu, distinct_tables = 0;
  uint64_t distinct_slots = 0;
  // Input, set before build_query: the loop iterations one invocation may run on the device
  // (Device::loop_iteration_limit less a margin); a group reduction that would need more sets
  // DB_ERROR_LOOP_LIMIT instead of an answer the driver cut short.
  uint32_t loop_budget = 0xFFFFFFFFu;
};

void build_query(BuiltQuery& q, const Database& db, const Plan& plan, const QueryOptions& options);

}  // namespace weft::db
