// INSERT / UPDATE / DELETE (db.h, modify()). Compute first, then commit: the statement's
// expressions run on the device as queries of the database (UPDATE and DELETE read a scratch copy
// of the target table that carries each row's position as one more column), the host builds the
// table's new rows from the results, and only then does the database change. Everything the
// computation added to the database (scratch tables, interned literals, derived tables) is rolled
// back first, so a failing statement changes nothing and a successful one only its table.
#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "db.h"

namespace weft::db {

namespace {

[[noreturn]] void refuse(size_t line, size_t col, const std::string& msg) {
  fail(ErrorCode::BadInput, "sql:" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg);
}

// The scratch column holding a row's position in the target table; a statement that names it
// is refused (only a quoted identifier could spell it).
const char* const kRowColumn = "(row)";

// Where a stored value comes from, for the refusals of values a column cannot hold.
struct Source {
  size_t line = 0, col = 0;
  std::string what;  // "the value of SET x", "column x of VALUES row 2", ...
};

// ---- SQLite's column affinity on Weft's typed columns ------------------------------------------
// Weft's types are SQLite's declared types INTEGER, REAL and TEXT (the Sqlite peer creates them
// so). SQLite converts a value to the column's affinity when it can do so without loss and keeps
// it as it is otherwise; a Weft column holds one type, so a value SQLite would keep as another
// type is refused.

const char* declared_type(Type t) { return t == Type::Int ? "INTEGER" : t == Type::Float ? "REAL" : "TEXT"; }

std::string shown(const Value& v) {
  if (v.type == Type::Int) return std::to_string(v.i);
  if (v.type == Type::Float) return format_real(v.f);
  return "'" + v.s + "'";
}

// A REAL that an INTEGER column stores as an INTEGER: integral and strictly inside the int64
// range (SQLite keeps -2^63 and 2^63 as REAL).
std::optional<int64_t> integral(double x) {
  if (!(x > -9223372036854775808.0 && x < 9223372036854775808.0)) return std::nullopt;
  const int64_t i = int64_t(x);
  if (double(i) != x) return std::nullopt;
  return i;
}

// Text that numeric affinity turns into a number: the whole text an integer or real literal,
// blanks around it allowed; an integer too large for int64 reads as a real. Hexadecimal and
// infinite values are left out (SQLite keeps hex as TEXT; an overflowing real is refused).
std::optional<Value> numeric_text(const std::string& s) {
  const char* blanks = " \t\n\v\f\r";
  const size_t b = s.find_first_not_of(blanks);
  if (b == std::string::npos) return std::nullopt;
  const std::string body = s.substr(b, s.find_last_not_of(blanks) - b + 1);
  Value v;
  v.null = false;
  if (const std::optional<int64_t> i = parse_int64(body)) {
    v.i = *i;
    return v;
  }
  if (const std::optional<double> f = parse_float(body)) {
    v.type = Type::Float;
    v.f = *f;
    return v;
  }
  return std::nullopt;
}

[[noreturn]] void refuse_value(const Source& at, const Value& v, Type column, const std::string& kept_as) {
  refuse(at.line, at.col, at.what + " is " + shown(v) + ", which SQLite keeps as " + kept_as + " in " +
                              (column == Type::Int ? "an " : "a ") + declared_type(column) + " column; a Weft column holds one type");
}

// `v` as a column of type `column` stores it.
Value stored(const Value& v, Type column, const Source& at) {
  Value out;
  out.type = column;
  if (v.null) return out;
  out.null = false;
  Value number = v;
  if (v.type == Type::Text && column != Type::Text) {
    const std::optional<Value> n = numeric_text(v.s);
    if (!n) refuse_value(at, v, column, "TEXT");
    number = *n;
  }
  switch (column) {
    case Type::Int:
      if (number.type == Type::Int) out.i = number.i;
      else if (const std::optional<int64_t> i = integral(number.f)) out.i = *i;
      else refuse_value(at, v, column, "REAL");
      break;
    case Type::Float: out.f = number.type == Type::Int ? double(number.i) : number.f; break;
    case Type::Text: out.s = v.type == Type::Int ? std::to_string(v.i) : v.type == Type::Float ? format_real(v.f) : v.s; break;
  }
  return out;
}

// Row r of `c` set to a stored value (NULL: the null flag, beside 0 or "" as the loader keeps it).
void set_cell(Column& c, size_t r, const Value& v) {
  c.nulls[r] = v.null ? 1 : 0;
  if (c.type == Type::Float) c.floats[r] = v.null ? 0.0 : v.f;
  else if (c.type == Type::Text) c.strings[r] = v.null ? std::string() : v.s;
  else c.ints[r] = v.null ? 0 : v.i;
}

void resize(Table& t, size_t rows) {
  for (Column& c : t.columns) {
    c.nulls.resize(rows, 1);
    if (c.type == Type::Float) c.floats.resize(rows, 0.0);
    if (c.type == Type::Text) c.strings.resize(rows);
    if (c.type != Type::Float) c.ints.resize(rows, 0);  // Text codes too: Database::replace re-encodes them
  }
  t.rows = rows;
}

// ---- what a statement may contain --------------------------------------------------------------

void check_query(const Query& q);

// Aggregates outside a subquery have no group to run over (SQLite: "misuse of aggregate"), and
// the scratch row column is not the user's to name.
void check_expr(const Expr& e, bool top) {
  if (top && e.kind == ExprKind::Aggregate)
    refuse(e.line, e.col, std::string("aggregate function ") + agg_name(e.agg) +
                              "() outside a subquery is not allowed in INSERT, UPDATE or DELETE");
  if (e.kind == ExprKind::Column && iequals(e.s, kRowColumn)) refuse(e.line, e.col, "no such column: " + e.s);
  for (const ExprPtr& a : e.args) check_expr(*a, top);
  if (e.subquery) check_query(*e.subquery);
}

void check_query(const Query& q) {
  for (const SelectItem& it : q.select)
    if (it.expr) check_expr(*it.expr, false);
  for (const JoinClause& j : q.joins)
    if (j.on) check_expr(*j.on, false);
  for (const ExprPtr& e : {q.where, q.having})
    if (e) check_expr(*e, false);
  for (const ExprPtr& e : q.group_by) check_expr(*e, false);
  for (const OrderItem& o : q.order_by) check_expr(*o.expr, false);
}

// ---- running expressions on the device ---------------------------------------------------------

ExprPtr column_ref(const std::string& name) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Column;
  e->s = name;
  return e;
}

// Adds `t` to the database under a name only a quoted identifier spells; returns the name.
std::string add_scratch(Database& db, Table t) {
  size_t n = 0;
  do t.name = "(modify " + std::to_string(++n) + ")";
  while (db.find(t.name) >= 0);
  const std::string name = t.name;
  db.add(std::move(t));
  return name;
}

// Table `ti` with each row's position as the last column, added as a scratch table.
std::string add_numbered_copy(Database& db, size_t ti) {
  Table copy = db.table(ti);
  if (copy.find(kRowColumn) >= 0)
    fail(ErrorCode::BadInput, "db: table " + copy.name + " has a column named " + kRowColumn +
                                  ", the name UPDATE and DELETE give the row positions they compute; rename it");
  Column row;
  row.name = kRowColumn;
  row.type = Type::Int;
  row.nulls.assign(copy.rows, 0);
  for (size_t r = 0; r < copy.rows; ++r) row.ints.push_back(int64_t(r));
  copy.columns.push_back(std::move(row));
  return add_scratch(db, std::move(copy));
}

ResultSet run_query(const Query& q, Database& db, Device& device) {
  const Plan plan = prepare_query(q, db, device);
  DeviceQuery dq(device, db, plan);
  return dq.run();
}

// SELECT (row), extra... FROM <numbered copy> AS <table> [WHERE where]: the positions of the
// rows WHERE selects, each with the values of `extra` over that row.
ResultSet selected_rows(const ModificationStatement& m, const std::vector<ExprPtr>& extra, Database& db, Device& device,
                        size_t ti) {
  Query q;
  q.from.name = add_numbered_copy(db, ti);
  q.from.alias = m.table;
  q.from.line = m.table_line;
  q.from.col = m.table_col;
  q.where = m.where;
  q.select.push_back({column_ref(kRowColumn), ""});
  for (const ExprPtr& e : extra) q.select.push_back({e, ""});
  return run_query(q, db, device);
}

// The row positions of a selected_rows result, each checked to be a row of the table once.
std::vector<size_t> positions(const ResultSet& rs, size_t rows) {
  std::vector<size_t> out;
  std::vector<uint8_t> seen(rows, 0);
  for (const Row& r : rs.rows) {
    const int64_t p = r[0].i;
    if (r[0].null || p < 0 || uint64_t(p) >= rows || seen[size_t(p)])
      fail(ErrorCode::InvalidProgram, "db: the row-position query returned a position outside the table or twice");
    seen[size_t(p)] = 1;
    out.push_back(size_t(p));
  }
  return out;
}

// ---- the statements ----------------------------------------------------------------------------

struct Change {
  Table table;
  uint64_t rows = 0;
};

// Table `ti` as a statement edits it: every Text column holding its strings (a table loaded from
// a .wdb file holds codes alone, which the dictionary may move before the change commits).
Table editable_table(const Database& db, size_t ti) {
  Table t = db.table(ti);
  for (Column& c : t.columns)
    if (c.type == Type::Text && !holds_strings(c, t.rows)) {
      c.strings.assign(t.rows, std::string());
      for (size_t r = 0; r < t.rows; ++r)
        if (!c.nulls[r]) c.strings[r] = db.decode(c.ints[r]);
    }
  return t;
}

int column_index(const Table& t, const std::string& name, size_t line, size_t col) {
  const int c = t.find(name);
  if (c < 0) refuse(line, col, "table " + t.name + " has no column named " + name);
  return c;
}

Change update(const ModificationStatement& m, Database& db, Device& device, size_t ti) {
  std::vector<int> targets;
  std::vector<ExprPtr> values;
  for (const Assignment& a : m.set) {
    const int c = column_index(db.table(ti), a.column, a.line, a.col);
    if (std::find(targets.begin(), targets.end(), c) != targets.end())
      refuse(a.line, a.col, "column " + a.column + " is assigned twice");
    targets.push_back(c);
    values.push_back(a.value);
  }
  const ResultSet rs = selected_rows(m, values, db, device, ti);
  Change ch{editable_table(db, ti), 0};
  const std::vector<size_t> rows = positions(rs, ch.table.rows);
  for (size_t k = 0; k < rows.size(); ++k)
    for (size_t j = 0; j < targets.size(); ++j) {
      Column& c = ch.table.columns[size_t(targets[j])];
      const Source at{m.set[j].line, m.set[j].col, "the value of SET " + c.name};
      set_cell(c, rows[k], stored(rs.rows[k][1 + j], c.type, at));
    }
  ch.rows = rows.size();
  return ch;
}

Change delete_rows(const ModificationStatement& m, Database& db, Device& device, size_t ti) {
  Change ch{editable_table(db, ti), 0};
  std::vector<uint8_t> gone(ch.table.rows, m.where ? 0 : 1);
  if (m.where)
    for (size_t r : positions(selected_rows(m, {}, db, device, ti), ch.table.rows)) gone[r] = 1;
  size_t kept = 0;  // the kept rows move down in place, in their order
  for (size_t r = 0; r < ch.table.rows; ++r) {
    if (gone[r]) continue;
    for (Column& c : ch.table.columns) {
      if (kept == r) break;
      c.nulls[kept] = c.nulls[r];
      if (c.type == Type::Float) c.floats[kept] = c.floats[r];
      else if (c.type == Type::Text) c.strings[kept] = std::move(c.strings[r]);
      else c.ints[kept] = c.ints[r];
    }
    ++kept;
  }
  ch.rows = ch.table.rows - kept;
  resize(ch.table, kept);
  return ch;
}

// The columns an INSERT fills, in the order its values come: the list, or every column.
std::vector<size_t> insert_columns(const ModificationStatement& m, const Table& t) {
  std::vector<size_t> cols;
  if (m.columns.empty())
    for (size_t c = 0; c < t.columns.size(); ++c) cols.push_back(c);
  for (size_t k = 0; k < m.columns.size(); ++k) {
    const auto [line, col] = m.column_at[k];
    const size_t c = size_t(column_index(t, m.columns[k], line, col));
    if (std::find(cols.begin(), cols.end(), c) != cols.end()) refuse(line, col, "column " + m.columns[k] + " is listed twice");
    cols.push_back(c);
  }
  return cols;
}

void check_count(const ModificationStatement& m, size_t values, size_t columns, size_t line, size_t col) {
  if (values == columns) return;
  refuse(line, col, m.columns.empty() ? "table " + m.table + " has " + std::to_string(columns) + " columns but " +
                                            std::to_string(values) + " values were supplied"
                                      : std::to_string(values) + " values for " + std::to_string(columns) + " columns");
}

// A VALUES row of literals (a negated real included) converts on the host.
std::optional<Row> constant_row(const std::vector<ExprPtr>& row) {
  Row out;
  for (const ExprPtr& e : row) {
    const bool negated_real = e->kind == ExprKind::Unary && e->op == "-" && e->args[0]->kind == ExprKind::Float;
    const Expr& lit = negated_real ? *e->args[0] : *e;
    Value v;
    v.null = lit.kind == ExprKind::Null;
    if (lit.kind == ExprKind::Int) v.i = lit.i;
    else if (lit.kind == ExprKind::Float) v.type = Type::Float, v.f = negated_real ? -lit.f : lit.f;
    else if (lit.kind == ExprKind::String) v.type = Type::Text, v.s = lit.s;
    else if (lit.kind != ExprKind::Null) return std::nullopt;
    out.push_back(v);
  }
  return out;
}

// A VALUES row of expressions: one query over a scratch table of one row and no user columns.
Row evaluated_row(const std::vector<ExprPtr>& row, Database& db, Device& device) {
  Table one;
  Column c;
  c.name = kRowColumn;
  c.ints = {0};
  c.nulls = {0};
  one.columns.push_back(std::move(c));
  one.rows = 1;
  Query q;
  q.from.name = add_scratch(db, std::move(one));
  for (const ExprPtr& e : row) q.select.push_back({e, ""});
  ResultSet rs = run_query(q, db, device);
  if (rs.rows.size() != 1) fail(ErrorCode::InvalidProgram, "db: a VALUES row evaluated to " + std::to_string(rs.rows.size()) + " rows");
  return std::move(rs.rows[0]);
}

// The rows an INSERT adds, as its values (before affinity) with where each came from.
std::vector<Row> inserted_values(const ModificationStatement& m, size_t columns, Database& db, Device& device,
                                 std::vector<Source>& at) {
  std::vector<Row> rows;
  if (m.select) {
    ResultSet rs = run_query(*m.select, db, device);
    check_count(m, rs.names.size(), columns, m.select_line, m.select_col);
    for (size_t r = 0; r < rs.rows.size(); ++r)
      at.push_back({m.select_line, m.select_col, "row " + std::to_string(r + 1) + " of the SELECT"});
    return std::move(rs.rows);
  }
  for (size_t r = 0; r < m.values.size(); ++r) {
    const auto [line, col] = m.row_at[r];
    check_count(m, m.values[r].size(), columns, line, col);
    std::optional<Row> row = constant_row(m.values[r]);
    rows.push_back(row ? std::move(*row) : evaluated_row(m.values[r], db, device));
    at.push_back({line, col, "VALUES row " + std::to_string(r + 1)});
  }
  return rows;
}

Change insert(const ModificationStatement& m, Database& db, Device& device, size_t ti) {
  const std::vector<size_t> cols = insert_columns(m, db.table(ti));
  std::vector<Source> at;
  const std::vector<Row> rows = inserted_values(m, cols.size(), db, device, at);
  Change ch{editable_table(db, ti), rows.size()};
  const size_t first = ch.table.rows;
  if (first + rows.size() > kMaxRows)
    refuse(m.table_line, m.table_col, "table " + m.table + " would hold more than " + std::to_string(kMaxRows) + " rows");
  resize(ch.table, first + rows.size());  // columns the INSERT does not name stay NULL
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t k = 0; k < cols.size(); ++k) {
      Column& c = ch.table.columns[cols[k]];
      const Expr* written = m.values.empty() ? nullptr : m.values[r][k].get();  // VALUES: the value's own place
      const Source where{written ? written->line : at[r].line, written ? written->col : at[r].col,
                         "the value for column " + c.name + " in " + at[r].what};
      set_cell(c, first + r, stored(rows[r][k], c.type, where));
    }
  return ch;
}

void check_statement(const ModificationStatement& m) {
  for (const std::vector<ExprPtr>& row : m.values)
    for (const ExprPtr& e : row) check_expr(*e, true);
  for (const Assignment& a : m.set) check_expr(*a.value, true);
  if (m.where) check_expr(*m.where, true);
}

Change compute(const ModificationStatement& m, Database& db, Device& device, size_t ti) {
  check_statement(m);
  switch (m.kind) {
    case ModificationKind::Insert: return insert(m, db, device, ti);
    case ModificationKind::Update: return update(m, db, device, ti);
    case ModificationKind::Delete: return delete_rows(m, db, device, ti);
  }
  fail(ErrorCode::InvalidProgram, "db: unknown modification");
}

}  // namespace

Modification modify(const std::string& sql, Database& db, Device& device) {
  const ModificationStatement m = parse_modification(sql);
  const int ti = db.find(m.table);
  if (ti < 0) refuse(m.table_line, m.table_col, "no such table: " + m.table);
  const std::vector<std::string> dict = db.dict();
  const Database::Mark mark = db.mark();
  Change ch;
  try {
    ch = compute(m, db, device, size_t(ti));
  } catch (...) {
    db.rollback(mark);
    throw;
  }
  db.rollback(mark);
  db.replace(size_t(ti), std::move(ch.table));
  return {size_t(ti), ch.rows, db.dict() != dict};
}

}  // namespace weft::db
