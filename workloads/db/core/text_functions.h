// SQLite's scalar functions of one text value, on the host: lower, upper, length,
// substr/substring, instr(x, 'lit'), `||` with constants, date(x, modifiers), strftime(fmt, x) and CAST(x AS
// INTEGER). The planner evaluates one over the distinct strings a column can hold (once per
// string, not per row) and the device looks the row's code up in the resulting map
// (DB_OP_MAP); a call of constants only is folded when the query is parsed. Vulkan-free.
//
// Semantics (SQLite 3's built-ins): lower/upper fold ASCII letters only; length and substr count
// characters as SQLite walks UTF-8 (a byte 0xC0.. starts a character, 0x80..0xBF continue it);
// substr follows SQLite's rules for a zero or negative start and a negative length. Dates: a
// 'YYYY-MM-DD' string (trailing spaces allowed, as SQLite does) with a real day of its month is
// computed; a string SQLite cannot read as a time value (no digit, not 'now') gives NULL; any
// other string (a time of day, a julian day number, a day past its month's end, 'now', ...) is
// refused naming it, since SQLite's answer there is not one Weft reproduces.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "table.h"

namespace weft::db {

struct Expr;
struct Query;

// A function of one text operand, its other arguments constants.
struct TextFunction {
  enum Kind { Lower, Upper, Length, Substr, Concat, Date, Strftime, CastInt, Instr } kind = Lower;
  int64_t start = 0, count = 0;  // Substr: start and (with has_count) length, as written
  bool has_count = false;
  std::string prefix, suffix;           // Concat: prefix || x || suffix
  std::vector<std::string> modifiers;   // Date
  std::string format;                   // Strftime
  std::string needle;                   // Instr: instr(x, needle)
  bool null_constant = false;           // a NULL constant argument: NULL whatever the operand
  Type result() const;
  const char* name() const;  // "lower", "||", "CAST", ...
  // How the call reads with `operand` in the operand's place ("substr(a, 1, 2)").
  std::string describe(const std::string& operand) const;
};

// One result: NULL, or a string (Text results), an int64 (Length, CastInt, Instr).
struct TextValue {
  bool null = true;
  std::string s;
  int64_t i = 0;
};

// f(x). BadInput at the line:col of `at` (the call), naming x, when x is a string whose answer
// SQLite gives Weft does not reproduce (dates: see above; CAST of a number with an exponent).
TextValue apply_text_function(const TextFunction& f, const std::string& x, const Expr& at);

// A text-function call of the parse tree: the function and its operand (the one argument that is
// not a constant); nullopt when `e` is no such call. BadInput (with the line:col of the argument)
// for a constant argument of the wrong kind, a format or modifier Weft does not evaluate, or a
// call with two non-constant operands.
struct TextCall {
  TextFunction fn;
  const Expr* operand = nullptr;
};
std::optional<TextCall> text_call(const Expr& e);

// The strings a query's text functions can give (its subqueries' included): each Text-valued
// call evaluated over every string its operand can hold, a column named by the operand read in
// every table of the query that has a Text column of that name (a superset of the one the
// planner binds). The executor adds them to the dictionary before planning, so that a derived
// string compares, sorts, groups and prints like any other. Strings the planner would refuse
// are skipped here (the planner names them).
std::vector<std::string> derived_strings(const Query& q, const Database& db);

// The distinct strings of a Text column, in dictionary order (sorted by code, not string by
// string: a column of millions of rows holds few distinct dates).
std::vector<std::string> distinct_strings(const Column& c, const Database& db);

// A string as an SQL literal ('it''s').
std::string sql_quoted(const std::string& s);

// Whether a node is a literal (Int, String or NULL) a text function may take as a constant.
bool is_text_constant(const Expr& e);
// The text of a constant operand as SQLite converts it (an integer's decimals); nullopt: NULL.
std::optional<std::string> constant_text(const Expr& e);

}  // namespace weft::db
