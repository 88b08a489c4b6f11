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
  tables_.push_back(std::move(table));
  encode();
}

void Database::intern(const std::vector<std::string>& strings) {
  bool fresh = false;
  for (const std::string& s : strings)
    if (code(s) & 1) {
      extra_.push_back(s);
      fresh = true;
    }
  if (fresh) encode();
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
          if (!c.nulls[r]) all.push_back(c.strings[r]);
  std::sort(all.begin(), all.end());
  all.erase(std::unique(all.begin(), all.end()), all.end());
  dict_ = std::move(all);
  for (Table& t : tables_)
    for (Column& c : t.columns)
      if (c.type == Type::Text) {
        c.ints.assign(t.rows, 0);
        for (size_t r = 0; r < t.rows; ++r)
          if (!c.nulls[r]) c.ints[r] = code(c.strings[r]);
      }
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
