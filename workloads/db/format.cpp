// Output formatting compatible with the sqlite3 shell. REAL values go through SQLite's own
// printf ("%!.15g", what sqlite3_column_text does in 3.40), so the text is the shell's by
// construction; the CSV quoting rule is the shell's: a field is quoted when it is empty or holds
// a byte below 0x21 (space included), '"', '\'', 0x7f, a byte >= 0x80, or the separator.
#include <sqlite3.h>

#include <algorithm>
#include <sstream>

#include "db.h"

namespace weft::db {

std::string format_real(double v) {
  char buf[64];
  sqlite3_snprintf(sizeof(buf), buf, "%!.15g", v);
  return buf;
}

namespace {

std::string text_of(const Value& v) {
  if (v.null) return "";
  switch (v.type) {
    case Type::Int: return std::to_string(v.i);
    case Type::Float: return format_real(v.f);
    case Type::Text: return v.s;
  }
  return "";
}

std::string csv_quote(const std::string& s) {
  bool quote = s.empty() || s.find(',') != std::string::npos;
  for (unsigned char c : s) quote |= c < 0x21 || c == '"' || c == '\'' || c >= 0x7f;
  if (!quote) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string format_csv(const ResultSet& r, bool header) {
  std::string out;
  auto line = [&](const std::vector<std::string>& fields, const std::vector<bool>& is_null) {
    for (size_t c = 0; c < fields.size(); ++c) {
      if (c) out += ',';
      out += is_null[c] ? "" : csv_quote(fields[c]);
    }
    out += "\n";
  };
  if (header) line(r.names, std::vector<bool>(r.names.size(), false));
  for (const Row& row : r.rows) {
    std::vector<std::string> f;
    std::vector<bool> n;
    for (const Value& v : row) {
      f.push_back(text_of(v));
      n.push_back(v.null);
    }
    line(f, n);
  }
  return out;
}

std::string format_table(const ResultSet& r) {
  std::vector<size_t> w;
  for (const std::string& n : r.names) w.push_back(n.size());
  std::vector<std::vector<std::string>> cells;
  for (const Row& row : r.rows) {
    cells.emplace_back();
    for (size_t c = 0; c < row.size(); ++c) {
      cells.back().push_back(row[c].null ? "NULL" : text_of(row[c]));
      w[c] = std::max(w[c], cells.back().back().size());
    }
  }
  std::ostringstream o;
  auto line = [&](const std::vector<std::string>& f) {
    for (size_t c = 0; c < f.size(); ++c) {
      o << (c ? "  " : "") << f[c];
      if (c + 1 < f.size()) o << std::string(w[c] - f[c].size(), ' ');
    }
    o << "\n";
  };
  line(r.names);
  std::vector<std::string> rule;
  for (size_t x : w) rule.push_back(std::string(x, '-'));
  line(rule);
  for (const auto& c : cells) line(c);
  o << "(" << r.rows.size() << " row" << (r.rows.size() == 1 ? "" : "s") << ")\n";
  return o.str();
}

}  // namespace weft::db
