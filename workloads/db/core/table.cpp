#include "table.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <weft/error.h>

namespace weft::db {

const char* type_name(Type t) {
  switch (t) {
    case Type::Int: return "int";
    case Type::Float: return "float";
    case Type::Text: return "text";
  }
  return "?";
}

bool iequals(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

uint64_t Column::bits(size_t row) const {
  if (type == Type::Float) {
    uint64_t b;
    std::memcpy(&b, &floats[row], 8);
    return b;
  }
  return uint64_t(ints[row]);
}

bool holds_strings(const Column& c, size_t rows) { return c.strings.size() == rows; }

int Table::find(const std::string& column) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (iequals(columns[i].name, column)) return int(i);
  return -1;
}

int Database::find(const std::string& table) const {
  for (size_t i = 0; i < tables_.size(); ++i)
    if (iequals(tables_[i].name, table)) return int(i);
  return -1;
}

void Database::add(Table table) {
  if (find(table.name) >= 0) fail(ErrorCode::BadInput, "table '" + table.name + "' is given twice");
  // The table's new strings join the dictionary (the other tables' codes move with it), then its
  // own strings get their codes.
  grow(missing_strings(table));
  tables_.push_back(std::move(table));
  encode_table(tables_.back());
}

void Database::intern(const std::vector<std::string>& strings) {
  std::vector<std::string> fresh;
  for (const std::string& s : strings)
    if (code(s) & 1) fresh.push_back(s);
  extra_.insert(extra_.end(), fresh.begin(), fresh.end());
  grow(std::move(fresh));
}

// The strings of `t`'s Text columns that the dictionary lacks (a column of codes alone has none).
std::vector<std::string> Database::missing_strings(const Table& t) const {
  std::vector<std::string> out;
  for (const Column& c : t.columns)
    if (c.type == Type::Text && holds_strings(c, t.rows))
      for (size_t r = 0; r < t.rows; ++r)
        if (!c.nulls[r] && (code(c.strings[r]) & 1)) out.push_back(c.strings[r]);
  return out;
}

// Merges `fresh` (strings the dictionary lacks) into it. Every code of the tables moves from
// old rank k to that string's rank in the merged dictionary, without a string looked up again:
// growing costs a sort of the new strings and one pass over the codes, not a sort of all.
void Database::grow(std::vector<std::string> fresh) {
  if (fresh.empty()) return;
  std::sort(fresh.begin(), fresh.end());
  fresh.erase(std::unique(fresh.begin(), fresh.end()), fresh.end());
  std::vector<std::string> merged;
  merged.reserve(dict_.size() + fresh.size());
  std::vector<int64_t> recode(dict_.size());
  for (size_t i = 0, j = 0; i < dict_.size() || j < fresh.size();) {
    if (j == fresh.size() || (i < dict_.size() && dict_[i] < fresh[j])) {
      recode[i] = int64_t(2 * merged.size());
      merged.push_back(std::move(dict_[i++]));
    } else {
      merged.push_back(std::move(fresh[j++]));
    }
  }
  dict_ = std::move(merged);
  ++encoding_generation_;
  for (Table& t : tables_)
    for (Column& c : t.columns)
      if (c.type == Type::Text)
        for (size_t r = 0; r < t.rows; ++r)
          if (!c.nulls[r]) c.ints[r] = recode[size_t(c.ints[r] / 2)];
}

void Database::remove_tables_from(size_t first) {
  if (first < tables_.size()) tables_.erase(tables_.begin() + std::ptrdiff_t(first), tables_.end());
}

// Codes for the Text columns of `t` that hold their strings, from the dictionary as it is.
void Database::encode_table(Table& t) const {
  for (Column& c : t.columns)
    if (c.type == Type::Text && holds_strings(c, t.rows)) {
      c.ints.assign(t.rows, 0);
      for (size_t r = 0; r < t.rows; ++r)
        if (!c.nulls[r]) c.ints[r] = code(c.strings[r]);
    }
}

Database Database::from_encoded(std::vector<Table> tables, std::vector<std::string> dict) {
  std::vector<uint8_t> used(dict.size(), 0);
  for (const Table& t : tables)
    for (const Column& c : t.columns)
      if (c.type == Type::Text)
        for (size_t r = 0; r < t.rows; ++r) {
          if (c.nulls[r]) continue;
          const int64_t code = c.ints[r];
          if (code < 0 || (code & 1) || uint64_t(code / 2) >= dict.size())
            fail(ErrorCode::BadInput, "table '" + t.name + "' column '" + c.name + "' row " + std::to_string(r) +
                                          ": text code " + std::to_string(code) + " is not in the dictionary");
          used[size_t(code / 2)] = 1;
        }
  Database db;
  for (size_t k = 0; k < dict.size(); ++k)
    if (!used[k]) db.extra_.push_back(dict[k]);
  db.tables_ = std::move(tables);
  db.dict_ = std::move(dict);
  return db;
}

void Database::rollback(const Mark& m) {
  if (tables_.size() == m.tables && extra_.size() == m.strings) return;
  tables_.resize(m.tables);
  extra_.resize(m.strings);
  encode();
}

void Database::replace(size_t i, Table table) {
  const Table& old = tables_.at(i);
  bool same = iequals(old.name, table.name) && old.columns.size() == table.columns.size();
  for (size_t c = 0; same && c < old.columns.size(); ++c)
    same = iequals(old.columns[c].name, table.columns[c].name) && old.columns[c].type == table.columns[c].type;
  if (!same) fail(ErrorCode::InvalidProgram, "db: table '" + old.name + "' replaced by rows of another shape");
  tables_[i] = std::move(table);
  encode();
}

void Database::encode() {
  std::vector<std::string> all = extra_;
  for (const Table& t : tables_)
    for (const Column& c : t.columns)
      if (c.type == Type::Text)
        for (size_t r = 0; r < t.rows; ++r)
          if (!c.nulls[r]) all.push_back(holds_strings(c, t.rows) ? c.strings[r] : dict_[size_t(c.ints[r] / 2)]);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  std::vector<std::string> old = std::move(dict_);
  dict_ = std::move(all);
  ++encoding_generation_;
  // A column of codes alone moves each old rank to the code of its string in the new dictionary.
  std::vector<int64_t> recode(old.size());
  for (size_t k = 0; k < old.size(); ++k) recode[k] = code(old[k]);
  for (Table& t : tables_)
    for (Column& c : t.columns)
      if (c.type == Type::Text && !holds_strings(c, t.rows))
        for (size_t r = 0; r < t.rows; ++r)
          if (!c.nulls[r]) c.ints[r] = recode[size_t(c.ints[r] / 2)];
  for (Table& t : tables_) encode_table(t);
}

int64_t Database::code(const std::string& s) const {
  const auto it = std::lower_bound(dict_.begin(), dict_.end(), s);
  const int64_t k = int64_t(it - dict_.begin());
  return (it != dict_.end() && *it == s) ? 2 * k : 2 * k - 1;
}

const std::string& Database::decode(int64_t code) const {
  if (code < 0 || (code & 1) || uint64_t(code / 2) >= dict_.size())
    fail(ErrorCode::BadInput, "text code " + std::to_string(code) + " is not in the dictionary");
  return dict_[size_t(code / 2)];
}

}  // namespace weft::db
