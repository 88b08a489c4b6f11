// Between program.cpp (which builds the query program) and query.cpp (which runs it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "db.h"

namespace weft::db {

// Counter words (segment "counters"), reset to 0 every run.
enum Counter : uint32_t {
  kError, kScan0, kScan1, kJoined, kFiltered, kGroups, kFirst, kCount, kGroupsKept, kGroupsClaimed, kHaving, kCounters
};

// Rows flowing between stages: a count word and one row-id list per side (DB_NONE: identity /
// absent), with their Globals ranges and the other ranges a reader must declare.
struct RowSet {
  uint64_t cap = 0;
  uint32_t count_word = 0;
  uint32_t ids0 = 0xFFFFFFFFu, ids1 = 0xFFFFFFFFu;
  Range count;                            // the count word
  std::optional<Range> ids0_list, ids1_list;  // the row-id lists (absent with DB_NONE)
  std::vector<Range> columns;             // computed columns the rows index (an aggregate's output)
  std::vector<Range> id_lists() const {   // the row-id lists that exist
    std::vector<Range> r;
    for (const std::optional<Range>& l : {ids0_list, ids1_list})
      if (l) r.push_back(*l);
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
  std::optional<InstanceId> join, aggregate, having;
  InstanceId filter, output;
  RowSet input_rows;
  std::vector<OutputColumn> outputs;
  uint32_t counters_word = 0, code_word = 0, desc_word = 0;
  uint32_t output_count_word = 0, groups_word = 0xFFFFFFFFu, join_count_word = 0xFFFFFFFFu;
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
