// TPC-H data generator: the benchmark's 8 tables (region, nation, supplier, customer, part,
// partsupp, orders, lineitem) written as CSV files with a header row, at a scale factor of 0.01 to
// 10, deterministic for a seed. Written from the TPC-H specification's clause 4.2 (schema, row
// counts, key formulas, value distributions); the comment text grammar is simplified (sentences
// of the specification's word lists, without its weights), everything a query filters on follows
// the specification's lists. Vulkan-free.
//
// Each row draws its values from a generator seeded by (seed, table, row), so a row does not
// depend on how many values earlier rows drew; every table is streamed to its file row by row
// (an order and its line items together, since the order's status and total price come from its
// lines), so no table is held in memory at any scale.
//
// Types chosen for Weft: keys and counts int, money, quantities and rates float (two decimals
// written exactly), dates 'YYYY-MM-DD' text, everything else text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "csv.h"
#include "table.h"

namespace weft::db::tpch {

inline constexpr double kMinScale = 0.01;
inline constexpr double kMaxScale = 10;

struct Options {
  double scale = 0.01;
  uint64_t seed = 1;
};

// The table names in the order they are generated (each file is NAME.csv).
const std::vector<std::string>& table_names();

// The column names and Weft types of a table (BadInput for another name).
std::vector<SchemaColumn> schema(const std::string& table);

// Rows of a table at a scale factor: the specification's base count times the scale, rounded
// (region 5 and nation 25 at every scale; partsupp 4 per part). lineitem has 1..7 rows per order
// drawn at random, so it has no fixed count: BadInput.
uint64_t rows(const std::string& table, double scale);

// BadInput unless 0.01 <= scale <= 10, and for a scale whose supplier count makes the
// specification's partsupp formula give a part the same supplier twice (never a multiple of 0.01).
void check_scale(double scale);

struct Written {
  std::string table, path;
  uint64_t rows = 0;
};

// Writes the 8 tables to out_dir/NAME.csv (out_dir made when missing, as mkdir -p); returns what it
// wrote.
std::vector<Written> generate(const Options& options, const std::string& out_dir);

// The 8 CSV files of `dir` loaded with their schemas (the loader's own checks apply).
Database load(const std::string& dir);

}  // namespace weft::db::tpch
