// Columnar tables: what the CSV loader produces, the planner binds against and the device
// executor uploads. Vulkan-free (the fuzz targets link this library alone).
//
// Types: Int (int64), Float (double), Text. Text values are dictionary encoded with one sorted
// dictionary shared by every table of a Database, and code = 2 * rank. Codes therefore compare
// like the strings (byte order, SQLite's BINARY collation) and a string literal that is not in the
// dictionary gets the odd code 2 * insertion_point - 1, which sits between its neighbours: every
// comparison on Text is a comparison of int64 codes, on the host and on the device.
//
// NULL: an empty unquoted CSV field is NULL (in every column type); a quoted empty field "" is the
// empty string in a Text column and NULL elsewhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weft::db {

enum class Type : uint8_t { Int = 0, Float = 1, Text = 2 };
const char* type_name(Type t);

struct Column {
  std::string name;
  Type type = Type::Int;
  std::vector<int64_t> ints;         // Int values, or Text codes (after Database::encode)
  std::vector<double> floats;        // Float values
  // Text values as loaded from CSV. Empty in a Text column read from a .wdb file (core/wdb.h),
  // which holds codes alone: Database::decode(ints[row]) is the value of either kind. Codes mean
  // something only in their own Database (a column of codes alone cannot move to another).
  std::vector<std::string> strings;
  std::vector<uint8_t> nulls;        // 1 = NULL, one per row
  // The 64-bit word the device stores: int64, double bits, or the Text code.
  uint64_t bits(size_t row) const;
};

struct Table {
  std::string name;
  std::vector<Column> columns;
  size_t rows = 0;
  int find(const std::string& column) const;  // case-insensitive; -1 when absent
};

class Database {
 public:
  // Adds a table (names unique, case-insensitive) and re-encodes every Text column.
  void add(Table table);
  const std::vector<Table>& tables() const { return tables_; }
  int find(const std::string& table) const;  // -1 when absent
  const Table& table(size_t i) const { return tables_[i]; }
  // Sorted distinct strings of every Text column; code 2*k is dict()[k].
  const std::vector<std::string>& dict() const { return dict_; }
  // Code of a string: 2*rank when present, else 2*insertion_point - 1.
  int64_t code(const std::string& s) const;
  const std::string& decode(int64_t code) const;  // BadInput for an odd or out-of-range code
  // Adds strings (a query's literals) to the dictionary, re-encoding when any is new.
  void intern(const std::vector<std::string>& strings);
  // Removes tables [first, end) (a query's derived tables). The dictionary keeps their strings,
  // so no code changes.
  void remove_tables_from(size_t first);
  // Counts the times the dictionary grew and every Text code was recomputed: Text codes held
  // elsewhere (on a device) are stale once it moves.
  uint64_t encoding_generation() const { return encoding_generation_; }
  // A Database of tables whose Text columns already hold codes of `dict` (what a .wdb file holds,
  // core/wdb.h): nothing is re-encoded, and dictionary strings no column holds stay in it (as
  // interned literals do). The caller has checked the rest: dict strictly increasing, names
  // unique, every vector `rows` long; a Text code outside the dictionary is BadInput.
  static Database from_encoded(std::vector<Table> tables, std::vector<std::string> dict);

  // What a statement may add while it computes (scratch tables, interned literals): a
  // modification (INSERT / UPDATE / DELETE) rolls back to the mark before it commits or fails,
  // so that it changes nothing but its table.
  struct Mark {
    size_t tables = 0, strings = 0;
  };
  Mark mark() const { return {tables_.size(), extra_.size()}; }
  // Drops the tables and interned strings added since `m`, re-encoding when any was.
  void rollback(const Mark& m);
  // Table i's rows replaced by `table`'s (same name, columns of the same names and types,
  // Text as strings), re-encoding every Text column of the database (codes may move).
  void replace(size_t i, Table table);

 private:
  void encode();
  std::vector<std::string> missing_strings(const Table& t) const;
  void grow(std::vector<std::string> fresh);
  void encode_table(Table& t) const;
  std::vector<Table> tables_;
  std::vector<std::string> dict_, extra_;
  uint64_t encoding_generation_ = 0;
};

// Whether a Text column holds its strings (CSV) rather than codes alone (.wdb); an empty column
// counts as holding them.
bool holds_strings(const Column& c, size_t rows);

bool iequals(const std::string& a, const std::string& b);
std::string lower(std::string s);

}  // namespace weft::db
