#include "csv.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <weft/error.h>
#include <weft/input_file.h>

namespace weft::db {

namespace {

struct Field {
  std::string text;
  bool quoted = false;
  size_t line = 0, col = 0;  // where the field starts, 1-based
};

std::string where(const std::string& source, size_t line, size_t col) {
  return source + ":" + std::to_string(line) + ":" + std::to_string(col);
}

[[noreturn]] void bad(const std::string& source, size_t line, size_t col, const std::string& msg) {
  fail(ErrorCode::BadInput, where(source, line, col) + ": " + msg);
}

// Splits the text into records of fields, tracking line and column of each field.
class Reader {
 public:
  Reader(std::string_view text, const std::string& source) : t_(text), source_(source) {}

  // False at end of input. A trailing line end after the last record is not an extra record.
  bool next(std::vector<Field>& record) {
    record.clear();
    if (pos_ >= t_.size()) return false;
    record_line_ = line_;
    for (;;) {
      Field f;
      f.line = line_;
      f.col = col_;
      if (pos_ < t_.size() && t_[pos_] == '"') {
        f.quoted = true;
        advance();
        for (;;) {
          if (pos_ >= t_.size()) bad(source_, f.line, f.col, "unterminated quoted field");
          const char c = t_[pos_];
          if (c == '"') {
            if (pos_ + 1 < t_.size() && t_[pos_ + 1] == '"') {
              f.text += '"';
              advance();
              advance();
              continue;
            }
            advance();
            break;
          }
          f.text += c;
          advance();
        }
        if (pos_ < t_.size() && !at_separator())
          bad(source_, line_, col_, std::string("unexpected character '") + printable(t_[pos_]) + "' after a closing quote");
      } else {
        while (pos_ < t_.size() && !at_separator()) {
          if (t_[pos_] == '"') bad(source_, line_, col_, "quote inside an unquoted field");
          if (t_[pos_] == '\0') bad(source_, line_, col_, "NUL byte in the text");
          f.text += t_[pos_];
          advance();
        }
      }
      record.push_back(std::move(f));
      if (record.size() > kMaxColumns) bad(source_, line_, col_, "more than " + std::to_string(kMaxColumns) + " fields");
      if (pos_ >= t_.size()) return true;
      if (t_[pos_] == ',') {
        advance();
        continue;
      }
      // line end: \n or \r\n (a lone \r also ends a line)
      if (t_[pos_] == '\r') ++pos_;
      if (pos_ < t_.size() && t_[pos_] == '\n') ++pos_;
      ++line_;
      col_ = 1;
      return true;
    }
  }
  size_t record_line() const { return record_line_; }

 private:
  static char printable(char c) { return (c >= 32 && c < 127) ? c : '?'; }
  bool at_separator() const { return t_[pos_] == ',' || t_[pos_] == '\n' || t_[pos_] == '\r'; }
  void advance() {
    if (t_[pos_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++pos_;
  }
  std::string_view t_;
  const std::string& source_;
  size_t pos_ = 0, line_ = 1, col_ = 1, record_line_ = 1;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

Type parse_type(const std::string& s) {
  const std::string l = lower(s);
  if (l == "int" || l == "integer" || l == "int64" || l == "bigint") return Type::Int;
  if (l == "float" || l == "real" || l == "double" || l == "float64") return Type::Float;
  if (l == "text" || l == "string" || l == "varchar") return Type::Text;
  fail(ErrorCode::BadInput, "schema: unknown type '" + s + "' (int, float or text)");
}

}  // namespace

std::optional<int64_t> parse_int64(std::string_view s) {
  size_t i = 0;
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
  if (i == s.size()) return std::nullopt;
  uint64_t v = 0;
  const uint64_t limit = neg ? uint64_t(1) << 63 : (uint64_t(1) << 63) - 1;
  for (; i < s.size(); ++i) {
    if (!is_digit(s[i])) return std::nullopt;
    const uint64_t d = uint64_t(s[i] - '0');
    if (v > (limit - d) / 10) return std::nullopt;
    v = v * 10 + d;
  }
  return neg ? int64_t(0 - v) : int64_t(v);
}

std::optional<double> parse_float(std::string_view s) {
  // [+-]? (digits [. digits*] | . digits) ([eE] [+-]? digits)?
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t mant = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++mant;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++mant;
  }
  if (mant == 0) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp = 0;
    while (i < s.size() && is_digit(s[i])) ++i, ++exp;
    if (exp == 0) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  const std::string copy(s);
  errno = 0;
  const double v = std::strtod(copy.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::vector<SchemaColumn> parse_schema(const std::string& text) {
  std::vector<SchemaColumn> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos || colon == 0)
      fail(ErrorCode::BadInput, "schema: '" + item + "' is not name:type");
    out.push_back({item.substr(0, colon), parse_type(item.substr(colon + 1))});
  }
  if (out.empty()) fail(ErrorCode::BadInput, "schema: empty");
  return out;
}

Table load_csv(std::string_view text, const std::string& table_name, const std::string& source,
               const std::optional<std::vector<SchemaColumn>>& schema) {
  Reader reader(text, source);
  std::vector<Field> header;
  if (!reader.next(header) || (header.size() == 1 && header[0].text.empty() && !header[0].quoted))
    bad(source, 1, 1, "no header row (the first line must name the columns)");
  Table t;
  t.name = table_name;
  for (const Field& f : header) {
    if (f.text.empty()) bad(source, f.line, f.col, "empty column name");
    for (const Column& c : t.columns)
      if (iequals(c.name, f.text)) bad(source, f.line, f.col, "column '" + f.text + "' named twice");
    Column c;
    c.name = f.text;
    t.columns.push_back(std::move(c));
  }
  const size_t ncol = t.columns.size();
  if (schema) {
    if (schema->size() != ncol)
      bad(source, 1, 1, "schema names " + std::to_string(schema->size()) + " columns, the header " + std::to_string(ncol));
    for (size_t c = 0; c < ncol; ++c) {
      if (!iequals((*schema)[c].name, t.columns[c].name))
        bad(source, header[c].line, header[c].col,
            "header column '" + t.columns[c].name + "' but the schema says '" + (*schema)[c].name + "'");
      t.columns[c].type = (*schema)[c].type;
    }
  }
  // Read every record, keeping field text and position until the types are known.
  std::vector<std::vector<Field>> cells(ncol);
  std::vector<Field> rec;
  while (reader.next(rec)) {
    if (rec.size() == 1 && rec[0].text.empty() && !rec[0].quoted && ncol > 1) continue;  // blank line
    if (rec.size() != ncol) {
      const Field& at = rec.size() > ncol ? rec[ncol] : rec.back();
      bad(source, at.line, at.col,
          "record has " + std::to_string(rec.size()) + " fields, the header " + std::to_string(ncol));
    }
    if (t.rows == kMaxRows) bad(source, rec[0].line, 1, "more than " + std::to_string(kMaxRows) + " rows");
    for (size_t c = 0; c < ncol; ++c) cells[c].push_back(std::move(rec[c]));
    ++t.rows;
  }
  for (size_t c = 0; c < ncol; ++c) {
    Column& col = t.columns[c];
    auto is_null = [&](const Field& f) { return f.text.empty() && (!f.quoted || col.type != Type::Text); };
    if (!schema) {
      bool all_int = true, all_num = true;
      for (const Field& f : cells[c]) {
        if (f.text.empty()) continue;
        if (all_int && !parse_int64(f.text)) all_int = false;
        if (!all_int && !parse_float(f.text)) {
          all_num = false;
          break;
        }
      }
      col.type = all_int ? Type::Int : all_num ? Type::Float : Type::Text;
      bool any = false;
      for (const Field& f : cells[c]) any |= !f.text.empty();
      if (!any) col.type = Type::Text;  // no value to infer from: NULLs (and "") as Text
    }
    col.nulls.assign(t.rows, 0);
    if (col.type == Type::Int) col.ints.assign(t.rows, 0);
    if (col.type == Type::Float) col.floats.assign(t.rows, 0.0);
    if (col.type == Type::Text) col.strings.assign(t.rows, std::string());
    for (size_t r = 0; r < t.rows; ++r) {
      Field& f = cells[c][r];
      if (is_null(f)) {
        col.nulls[r] = 1;
        continue;
      }
      if (col.type == Type::Int) {
        auto v = parse_int64(f.text);
        if (!v) bad(source, f.line, f.col, "column '" + col.name + "' is int, '" + f.text + "' is not a 64-bit integer");
        col.ints[r] = *v;
      } else if (col.type == Type::Float) {
        auto v = parse_float(f.text);
        if (!v) bad(source, f.line, f.col, "column '" + col.name + "' is float, '" + f.text + "' is not a finite number");
        col.floats[r] = *v;
      } else {
        col.strings[r] = std::move(f.text);
      }
    }
  }
  return t;
}

Table load_csv_file(const std::string& path, const std::string& table_name,
                    const std::optional<std::vector<SchemaColumn>>& schema) {
  return load_csv(read_text_file(path, "cannot open", kDataFileBytes), table_name, path, schema);
}

}  // namespace weft::db
