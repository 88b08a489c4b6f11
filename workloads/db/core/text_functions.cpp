#include "text_functions.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include <weft/error.h>

#include "date.h"
#include "sql.h"

namespace weft::db {

namespace {

[[noreturn]] void refuse_at(const Expr& at, const std::string& msg) {
  fail(ErrorCode::BadInput, "sql:" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + msg);
}

// SQLite's SQLITE_SKIP_UTF8: a lead byte 0xC0.. swallows the continuation bytes after it.
size_t next_char(const std::string& s, size_t i) {
  if (static_cast<unsigned char>(s[i++]) >= 0xC0)
    while (i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
  return i;
}

int64_t characters(const std::string& s) {
  int64_t n = 0;
  for (size_t i = 0; i < s.size(); i = next_char(s, i)) ++n;
  return n;
}

// Byte offset of character `k` (the end when there are fewer).
size_t char_offset(const std::string& s, int64_t k) {
  size_t i = 0;
  for (; i < s.size() && k > 0; --k) i = next_char(s, i);
  return i;
}

// SQLite's substrFunc on characters: a start of 0 takes one character less, a negative start
// counts from the end, a negative length takes the characters before the start.
std::string substr_of(const std::string& x, int64_t p1, int64_t p2, bool has_count) {
  const int64_t len = characters(x);
  bool neg = false;
  if (!has_count) p2 = std::numeric_limits<int32_t>::max();
  else if (p2 < 0) {
    p2 = p2 == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -p2;
    neg = true;
  }
  if (p1 < 0) {
    p1 += len;
    if (p1 < 0) {
      p2 = p2 + p1 < 0 ? 0 : p2 + p1;
      p1 = 0;
    }
  } else if (p1 > 0) {
    --p1;
  } else if (p2 > 0) {
    --p2;
  }
  if (neg) {
    p1 -= p2;
    if (p1 < 0) {
      p2 += p1;
      p1 = 0;
    }
  }
  if (p1 >= len || p2 <= 0) return "";
  const size_t from = char_offset(x, p1);
  const size_t to = from + char_offset(x.substr(from), p2 > len ? len : p2);
  return x.substr(from, to - from);
}

// SQLite's instr(x, y) of text: the character position of y's first occurrence in x, from 1;
// 0 when there is none (1 for an empty y).
int64_t instr_of(const std::string& x, const std::string& needle) {
  const size_t at = x.find(needle);
  return at == std::string::npos ? 0 : characters(x.substr(0, at)) + 1;
}

std::string ascii_case(std::string s, bool up) {
  for (char& ch : s)
    if (static_cast<unsigned char>(ch) < 0x80) ch = char(up ? std::toupper(ch) : std::tolower(ch));
  return s;
}

// SQLite's sqlite3Atoi64 as CAST(text AS INTEGER) uses it: leading spaces, a sign, the decimal
// digits up to the first other character, saturating at the int64 ends. A number with an
// exponent ('1e3') is refused: SQLite versions disagree on it (1 or 1000).
int64_t text_to_int(const std::string& x) {
  size_t i = 0;
  while (i < x.size() && (x[i] == ' ' || (x[i] >= '\t' && x[i] <= '\r'))) ++i;
  const bool minus = i < x.size() && x[i] == '-';
  if (i < x.size() && (x[i] == '-' || x[i] == '+')) ++i;
  const size_t digits = i;
  uint64_t v = 0;
  bool over = false;
  for (; i < x.size() && std::isdigit(static_cast<unsigned char>(x[i])); ++i) {
    over = over || v > (std::numeric_limits<uint64_t>::max() - 9) / 10;
    if (!over) v = v * 10 + uint64_t(x[i] - '0');
  }
  size_t j = i;
  if (j < x.size() && x[j] == '.')
    for (++j; j < x.size() && std::isdigit(static_cast<unsigned char>(x[j]));) ++j;
  size_t k = j + 1;  // past an 'e', and its sign
  if (k < x.size() && (x[k] == '+' || x[k] == '-')) ++k;
  if (j > digits && k < x.size() && (x[j] == 'e' || x[j] == 'E') && std::isdigit(static_cast<unsigned char>(x[k])))
    fail(ErrorCode::BadInput, "CAST('" + x + "' AS INTEGER): a number with an exponent is not supported "
                              "(SQLite versions differ on it)");
  if (minus) return over || v > uint64_t(1) << 63 ? std::numeric_limits<int64_t>::min() : int64_t(0 - v);
  return over || v > uint64_t(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max() : int64_t(v);
}

struct Ymd {
  int y = 0, m = 0, d = 0;
};

// A time value as date() and strftime() read it: the 'YYYY-MM-DD' date (trailing spaces
// dropped), nullopt for a string SQLite gives NULL for; refused, naming it, otherwise.
std::optional<std::string> date_text(const std::string& x, const char* fn) {
  std::string t = x;
  while (!t.empty() && t.back() == ' ') t.pop_back();
  auto digit = [&](size_t k) { return std::isdigit(static_cast<unsigned char>(t[k])) != 0; };
  const bool shaped = t.size() == 10 && t[4] == '-' && t[7] == '-' && digit(0) && digit(1) && digit(2) && digit(3) &&
                      digit(5) && digit(6) && digit(8) && digit(9);
  if (shaped) {
    const int m = std::stoi(t.substr(5, 2)), d = std::stoi(t.substr(8, 2));
    if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;  // SQLite's parser rejects these fields
    if (fold_date({t}).refused < 0) return t;
    fail(ErrorCode::BadInput, std::string(fn) + "() of '" + x +
                                  "': a day past its month's end is not supported (SQLite versions differ on it)");
  }
  bool any_digit = false;
  for (char ch : t) any_digit |= std::isdigit(static_cast<unsigned char>(ch)) != 0;
  if (!any_digit && lower(t).find("now") == std::string::npos) return std::nullopt;  // no time value SQLite reads
  fail(ErrorCode::BadInput, std::string(fn) + "() of '" + x +
                                "' is not supported (Weft reads 'YYYY-MM-DD' dates; SQLite may read this as a time, a julian "
                                "day number or 'now')");
}

Ymd ymd_of(const std::string& date) {
  return {std::stoi(date.substr(0, 4)), std::stoi(date.substr(5, 2)), std::stoi(date.substr(8, 2))};
}

int day_of_year(Ymd d) {
  static const int kBefore[] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334};
  const bool leap = (d.y % 4 == 0 && d.y % 100 != 0) || d.y % 400 == 0;
  return kBefore[d.m - 1] + d.d + (leap && d.m > 2 ? 1 : 0);
}

std::string zero_padded(int v, int width) {
  std::string s = std::to_string(v);
  return std::string(size_t(width) > s.size() ? size_t(width) - s.size() : 0, '0') + s;
}

std::string strftime_of(const std::string& format, Ymd d) {
  std::string out;
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    const char f = format[++i];
    if (f == 'Y') out += zero_padded(d.y, 4);
    else if (f == 'm') out += zero_padded(d.m, 2);
    else if (f == 'd') out += zero_padded(d.d, 2);
    else if (f == 'j') out += zero_padded(day_of_year(d), 3);
    else out += '%';
  }
  return out;
}

TextValue text(std::string s) { return {false, std::move(s), 0}; }
TextValue integer(int64_t i) { return {false, {}, i}; }

TextValue date_function(const TextFunction& f, const std::string& x) {
  const char* name = f.kind == TextFunction::Date ? "date" : "strftime";
  const std::optional<std::string> date = date_text(x, name);
  if (!date) return {};
  if (f.kind == TextFunction::Strftime) return text(strftime_of(f.format, ymd_of(*date)));
  std::vector<std::string> args{*date};
  args.insert(args.end(), f.modifiers.begin(), f.modifiers.end());
  const DateFold folded = fold_date(args);
  if (folded.refused >= 0) fail(ErrorCode::BadInput, "date() of '" + x + "': " + folded.why);
  return text(folded.date);
}

// strftime formats Weft evaluates: %Y %m %d %j %% and literal text.
void check_format(const Expr& at, const std::string& format) {
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') continue;
    const char f = i + 1 < format.size() ? format[i + 1] : '\0';
    if (f != 'Y' && f != 'm' && f != 'd' && f != 'j' && f != '%')
      refuse_at(at, "strftime() format '%" + std::string(f ? 1 : 0, f) +
                        "' is not supported (only %Y %m %d %j %% and literal text)");
    ++i;
  }
}

// Modifiers are checked once on a date they cannot carry out of range.
void check_modifiers(const Expr& call, const std::vector<std::string>& modifiers) {
  std::vector<std::string> args{"2000-06-15"};
  args.insert(args.end(), modifiers.begin(), modifiers.end());
  const DateFold d = fold_date(args);
  if (d.refused > 0) refuse_at(*call.args[size_t(d.refused)], "date(): " + d.why);
}

const Expr& operand_of(const Expr& e) { return *e.args[e.s == "strftime" ? 1 : 0]; }

int64_t int_argument(const Expr& a, const char* what) {
  if (a.kind != ExprKind::Int) refuse_at(a, std::string("substr() ") + what + " must be an integer literal");
  return a.i;
}

std::optional<TextCall> concat_call(const Expr& e) {
  for (const ExprPtr& side : e.args)
    if (side->kind == ExprKind::Float)
      refuse_at(*side, "'||' of a real literal is not supported (write it as a string literal)");
  const bool left = is_text_constant(*e.args[0]), right = is_text_constant(*e.args[1]);
  if (!left && !right)
    refuse_at(e, "'||' of two non-constant values is not supported (only a value with constant text: x || 'lit')");
  // The constant is the left side when both are (the right one is then the operand).
  const Expr& constant = left ? *e.args[0] : *e.args[1];
  TextCall c;
  c.fn.kind = TextFunction::Concat;
  c.operand = left ? e.args[1].get() : e.args[0].get();
  (left ? c.fn.prefix : c.fn.suffix) = constant_text(constant).value_or("");
  c.fn.null_constant = !constant_text(constant);
  return c;
}

TextValue evaluate(const TextFunction& f, const std::string& x) {
  if (f.null_constant) return {};
  switch (f.kind) {
    case TextFunction::Lower: return text(ascii_case(x, false));
    case TextFunction::Upper: return text(ascii_case(x, true));
    case TextFunction::Length: return integer(characters(x));
    case TextFunction::Substr: return text(substr_of(x, f.start, f.count, f.has_count));
    case TextFunction::Concat: return text(f.prefix + x + f.suffix);
    case TextFunction::Date:
    case TextFunction::Strftime: return date_function(f, x);
    case TextFunction::CastInt: return integer(text_to_int(x));
    case TextFunction::Instr: return integer(instr_of(x, f.needle));
  }
  return {};
}


// derived_strings, query by query.
class Deriver {
 public:
  Deriver(const Database& db, std::vector<std::string>& out) : db_(db), out_(out) {}

  void query(const Query& q) {
    for (const SelectItem& it : q.select)
      if (it.expr) walk(*it.expr, q);
    for (const JoinClause& j : q.joins)
      if (j.on) walk(*j.on, q);
    for (const ExprPtr& e : {q.where, q.having})
      if (e) walk(*e, q);
    for (const ExprPtr& e : q.group_by) walk(*e, q);
    for (const OrderItem& o : q.order_by) walk(*o.expr, q);
  }

 private:
  void walk(const Expr& e, const Query& q) {
    if (const std::optional<TextCall> c = text_call(e); c && c->fn.result() == Type::Text) {
      const std::vector<std::string> texts = strings(e, q);
      out_.insert(out_.end(), texts.begin(), texts.end());
    }
    if (e.subquery) query(*e.subquery);
    for (const ExprPtr& a : e.args) walk(*a, q);
  }
  // The strings `e` can hold, as far as the names tell.
  std::vector<std::string> strings(const Expr& e, const Query& q) {
    if (const std::optional<TextCall> c = text_call(e)) {
      std::vector<std::string> out;
      if (c->fn.null_constant) return out;
      for (const std::string& s : strings(*c->operand, q)) {
        try {
          const TextValue v = evaluate(c->fn, s);
          if (!v.null) out.push_back(v.s);
        } catch (const Error&) {  // refused: the planner names it if the column is the one it binds
        }
      }
      return out;
    }
    if (e.kind == ExprKind::Column) return column_strings(e, q);
    if (e.kind == ExprKind::Aggregate && !e.args.empty()) return strings(*e.args[0], q);
    if (e.kind == ExprKind::String) return {e.s};
    return {};
  }
  std::vector<std::string> column_strings(const Expr& e, const Query& q) const {
    std::vector<const TableRef*> refs{&q.from};
    for (const JoinClause& j : q.joins) refs.push_back(&j.table);
    std::vector<std::string> out;
    for (const TableRef* r : refs) {
      const int t = db_.find(r->name);
      if (t < 0 || (!e.table.empty() && !iequals(e.table, r->alias.empty() ? r->name : r->alias))) continue;
      const Table& table = db_.table(size_t(t));
      const int c = table.find(e.s);
      if (c < 0 || table.columns[size_t(c)].type != Type::Text) continue;
      const std::vector<std::string> strings = distinct_strings(table.columns[size_t(c)], db_);
      out.insert(out.end(), strings.begin(), strings.end());
    }
    return out;
  }

  const Database& db_;
  std::vector<std::string>& out_;
};

}  // namespace

std::vector<std::string> derived_strings(const Query& q, const Database& db) {
  std::vector<std::string> out;
  Deriver(db, out).query(q);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::string sql_quoted(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("''") : std::string(1, ch);
  return q + "'";
}

std::vector<std::string> distinct_strings(const Column& c, const Database& db) {
  std::vector<int64_t> codes;
  for (size_t r = 0; r < c.ints.size(); ++r)
    if (!c.nulls[r]) codes.push_back(c.ints[r]);
  std::sort(codes.begin(), codes.end());
  codes.erase(std::unique(codes.begin(), codes.end()), codes.end());
  std::vector<std::string> out;
  for (int64_t code : codes) out.push_back(db.decode(code));
  return out;
}

const char* TextFunction::name() const {
  static const char* kNames[] = {"lower", "upper", "length", "substr", "||", "date", "strftime", "CAST", "instr"};
  return kNames[kind];
}

Type TextFunction::result() const { return kind == Length || kind == CastInt || kind == Instr ? Type::Int : Type::Text; }

std::string TextFunction::describe(const std::string& x) const {
  switch (kind) {
    case Lower: return "lower(" + x + ")";
    case Upper: return "upper(" + x + ")";
    case Length: return "length(" + x + ")";
    case Substr:
      return "substr(" + x + ", " + std::to_string(start) + (has_count ? ", " + std::to_string(count) : "") + ")";
    case Concat: return (prefix.empty() ? "" : sql_quoted(prefix) + " || ") + x + (suffix.empty() ? "" : " || " + sql_quoted(suffix));
    case Date: {
      std::string s = "date(" + x;
      for (const std::string& m : modifiers) s += ", " + sql_quoted(m);
      return s + ")";
    }
    case Strftime: return "strftime(" + sql_quoted(format) + ", " + x + ")";
    case CastInt: return "CAST(" + x + " AS INTEGER)";
    case Instr: return "instr(" + x + ", " + sql_quoted(needle) + ")";
  }
  return x;
}

TextValue apply_text_function(const TextFunction& f, const std::string& x, const Expr& at) {
  try {
    return evaluate(f, x);
  } catch (const Error& e) {
    refuse_at(at, e.message());
  }
}


bool is_text_constant(const Expr& e) {
  return e.kind == ExprKind::String || e.kind == ExprKind::Int || e.kind == ExprKind::Null;
}

std::optional<std::string> constant_text(const Expr& e) {
  if (e.kind == ExprKind::String) return e.s;
  if (e.kind == ExprKind::Int) return std::to_string(e.i);
  return std::nullopt;
}

std::optional<TextCall> text_call(const Expr& e) {
  if (e.kind == ExprKind::Binary && e.op == "||") return concat_call(e);
  if (e.kind != ExprKind::Call) return std::nullopt;
  TextCall c;
  const std::string& n = e.s;
  if (n == "lower") c.fn.kind = TextFunction::Lower;
  else if (n == "upper") c.fn.kind = TextFunction::Upper;
  else if (n == "length") c.fn.kind = TextFunction::Length;
  else if (n == "substr") c.fn.kind = TextFunction::Substr;
  else if (n == "date") c.fn.kind = TextFunction::Date;
  else if (n == "strftime") c.fn.kind = TextFunction::Strftime;
  else if (n == "instr") c.fn.kind = TextFunction::Instr;
  else return std::nullopt;
  c.operand = &operand_of(e);
  for (size_t k = 0; k < e.args.size(); ++k) {
    const Expr& a = *e.args[k];
    if (&a == c.operand) continue;
    if (a.kind == ExprKind::Null) c.fn.null_constant = true;  // SQLite: a NULL argument makes NULL
    else if (c.fn.kind == TextFunction::Substr) (k == 1 ? c.fn.start : c.fn.count) = int_argument(a, k == 1 ? "start" : "length");
    else if (c.fn.kind == TextFunction::Instr && constant_text(a)) c.fn.needle = *constant_text(a);
    else if (a.kind != ExprKind::String) refuse_at(a, n + "() takes a string literal here");
    else if (c.fn.kind == TextFunction::Date) c.fn.modifiers.push_back(a.s);
    else c.fn.format = a.s;
  }
  c.fn.has_count = c.fn.kind == TextFunction::Substr && e.args.size() > 2;
  if (c.fn.null_constant) return c;
  if (c.fn.kind == TextFunction::Strftime) check_format(*e.args[0], c.fn.format);
  if (c.fn.kind == TextFunction::Date) check_modifiers(e, c.fn.modifiers);
  return c;
}

}  // namespace weft::db
