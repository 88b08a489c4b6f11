#include "derived.h"

#include <unordered_map>

#include <weft/error.h>

namespace weft::db {

namespace {

[[noreturn]] void refuse(size_t line, size_t col, const std::string& msg) {
  fail(ErrorCode::BadInput, "sql:" + std::to_string(line) + ":" + std::to_string(col) + ": " + msg);
}

// The common tables a query sees: its own WITH entries so far, then the enclosing query's.
struct Scope {
  std::vector<std::pair<std::string, std::string>> tables;  // WITH name -> table of the Database
  const Scope* outer = nullptr;
  const std::string* find(const std::string& name) const {
    for (const auto& [with_name, table] : tables)
      if (iequals(with_name, name)) return &table;
    return outer ? outer->find(name) : nullptr;
  }
};

bool reads_derived(const Query& q);

bool has_subquery(const Expr& e) {
  if (e.subquery) return true;
  for (const ExprPtr& a : e.args)
    if (has_subquery(*a)) return true;
  return false;
}

bool reads_derived(const Expr& e) {
  if (e.subquery && reads_derived(*e.subquery)) return true;
  for (const ExprPtr& a : e.args)
    if (reads_derived(*a)) return true;
  return false;
}

bool reads_derived(const Query& q) {
  if (!q.with.empty() || q.from.derived) return true;
  for (const JoinClause& j : q.joins)
    if (j.table.derived || (j.on && reads_derived(*j.on))) return true;
  for (const SelectItem& it : q.select)
    if (it.expr && reads_derived(*it.expr)) return true;
  for (const ExprPtr& e : {q.where, q.having})
    if (e && reads_derived(*e)) return true;
  for (const ExprPtr& e : q.group_by)
    if (reads_derived(*e)) return true;
  for (const OrderItem& o : q.order_by)
    if (reads_derived(*o.expr)) return true;
  return false;
}

class Materializer {
 public:
  Materializer(Database& db, const TableRunner& run) : db_(db), run_(run) {}

  Query query(const Query& in, const Scope* outer) {
    Scope scope{{}, outer};
    Query q = in;
    q.with.clear();
    for (const CommonTable& c : in.with) scope.tables.emplace_back(c.name, common_table(c, scope));
    q.from = table_ref(in.from, scope);
    for (JoinClause& j : q.joins) {
      j.table = table_ref(j.table, scope);
      if (j.on) j.on = expr(j.on, scope);
    }
    for (SelectItem& it : q.select)
      if (it.expr) it.expr = expr(it.expr, scope);
    for (ExprPtr* e : {&q.where, &q.having})
      if (*e) *e = expr(*e, scope);
    for (ExprPtr& e : q.group_by) e = expr(e, scope);
    for (OrderItem& o : q.order_by) o.expr = expr(o.expr, scope);
    return q;
  }

 private:
  // A WITH entry runs when its WITH clause is read (the entries before it in scope).
  std::string common_table(const CommonTable& c, const Scope& scope) {
    Table t = run(*c.query, scope, c.line, c.col);
    if (!c.columns.empty()) {
      if (c.columns.size() != t.columns.size())
        refuse(c.line, c.col, "table " + c.name + " has " + std::to_string(t.columns.size()) + " values for " +
                                  std::to_string(c.columns.size()) + " columns");
      for (size_t k = 0; k < c.columns.size(); ++k) t.columns[k].name = c.columns[k];
    }
    return add(std::move(t), c.line, c.col);
  }

  TableRef table_ref(const TableRef& in, const Scope& scope) {
    TableRef t = in;
    if (in.derived) {
      t.derived = nullptr;
      t.name = add(run(*in.derived, scope, in.line, in.col), in.line, in.col);
    } else if (const std::string* table = scope.find(in.name)) {
      if (t.alias.empty()) t.alias = in.name;
      t.name = *table;
    }
    return t;
  }

  Table run(const Query& inner, const Scope& scope, size_t line, size_t col) {
    if (!run_) refuse(line, col, "derived tables and WITH need a device to run them first");
    return run_(query(inner, &scope));
  }

  // Adds a result table under a name only a quoted identifier spells (a space, parentheses);
  // the count goes past any table a user already gave such a name.
  std::string add(Table t, size_t line, size_t col) {
    for (size_t a = 0; a < t.columns.size(); ++a)
      for (size_t b = 0; b < a; ++b)
        if (iequals(t.columns[a].name, t.columns[b].name))
          refuse(line, col, "the derived table has two columns named '" + t.columns[a].name +
                                "' (give them distinct aliases)");
    std::string name;
    do name = "(derived " + std::to_string(++count_) + ")";
    while (db_.find(name) >= 0);
    t.name = name;
    db_.add(std::move(t));
    return name;
  }

  // The expression with its subqueries materialized; nodes without any are shared, not copied.
  ExprPtr expr(const ExprPtr& e, const Scope& scope) {
    if (!has_subquery(*e)) return e;
    auto copy = std::make_shared<Expr>(*e);
    if (e->subquery) copy->subquery = std::make_shared<const Query>(query(*e->subquery, &scope));
    for (ExprPtr& a : copy->args) a = expr(a, scope);
    return copy;
  }

  Database& db_;
  const TableRunner& run_;
  size_t count_ = 0;
};

}  // namespace

Query materialize_derived(const Query& q, Database& db, const TableRunner& run) {
  if (!reads_derived(q)) return q;
  return Materializer(db, run).query(q, nullptr);
}

}  // namespace weft::db
