#include "decorrelate.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <utility>

#include <weft/error.h>

namespace weft::db {

namespace {

[[noreturn]] void err(const Expr& at, const std::string& msg) {
  fail(ErrorCode::BadInput, "sql:" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + msg);
}

// Which columns a subquery's own tables hold: the rest read an enclosing query.
class OwnTables {
 public:
  OwnTables(const Query& q, const Database& db) {
    add(q.from, db);
    for (const JoinClause& j : q.joins) add(j.table, db);
  }
  bool holds(const Expr& column) const {
    for (const auto& [name, table] : tables_)
      if ((column.table.empty() || iequals(column.table, name)) && table->find(column.s) >= 0) return true;
    return false;
  }

 private:
  void add(const TableRef& t, const Database& db) {
    const int idx = db.find(t.name);
    if (idx >= 0) tables_.emplace_back(t.alias.empty() ? t.name : t.alias, &db.table(size_t(idx)));
  }
  std::vector<std::pair<std::string, const Table*>> tables_;
};

// What columns an expression reads (a nested subquery's own WHERE is its own business: its
// columns are bound, or refused, when it is planned).
struct Reads {
  bool own = false, outer = false;
};
void collect_reads(const Expr& e, const OwnTables& own, Reads& r) {
  if (e.kind == ExprKind::Column) (own.holds(e) ? r.own : r.outer) = true;
  for (const ExprPtr& a : e.args) collect_reads(*a, own, r);
}
Reads reads_of(const Expr& e, const OwnTables& own) {
  Reads r;
  collect_reads(e, own, r);
  return r;
}

void conjuncts_of(const ExprPtr& e, std::vector<ExprPtr>& out) {
  if (e->kind == ExprKind::Binary && e->op == "AND") {
    conjuncts_of(e->args[0], out);
    conjuncts_of(e->args[1], out);
  } else {
    out.push_back(e);
  }
}

// A new node at `at`'s place in the query text (messages and result names point there).
ExprPtr node_at(const Expr& at, ExprKind kind) {
  auto e = std::make_shared<Expr>();
  e->kind = kind;
  e->line = at.line;
  e->col = at.col;
  e->source = at.source;
  e->begin = at.begin;
  e->end = at.end;
  return e;
}
ExprPtr with_args(ExprPtr e, std::vector<ExprPtr> args) {
  for (const ExprPtr& a : args) e->height = std::max(e->height, a->height + 1);
  e->args = std::move(args);
  return e;
}
ExprPtr and_of(ExprPtr a, ExprPtr b) {
  if (!a) return b;
  ExprPtr e = node_at(*a, ExprKind::Binary);
  e->op = "AND";
  return with_args(e, {a, b});
}
ExprPtr is_not_null(const ExprPtr& x) {
  ExprPtr e = node_at(*x, ExprKind::IsNull);
  e->negated = true;
  return with_args(e, {x});
}

const char* flipped(const std::string& op) {
  if (op == "<") return ">";
  if (op == "<=") return ">=";
  if (op == ">") return "<";
  if (op == ">=") return "<=";
  return op == "=" ? "=" : "!=";
}
bool comparison(const Expr& e) {
  return e.kind == ExprKind::Binary && (e.op == "=" || e.op == "!=" || e.op == "<" || e.op == "<=" || e.op == ">" || e.op == ">=");
}

// One correlated conjunct: `inner = outer` (a key), or another comparison of the two sides.
void split_conjunct(const ExprPtr& c, const OwnTables& own, Correlation& out) {
  const std::string refused = "correlated condition '" + c->text() + "' is not supported";
  if (!comparison(*c))
    err(*c, refused + " (a correlated subquery's WHERE may relate its tables to the enclosing query only by comparisons "
                      "inner = outer, and one other comparison, joined by AND)");
  const Reads l = reads_of(*c->args[0], own), r = reads_of(*c->args[1], own);
  const bool inner_left = l.own && !l.outer && r.outer && !r.own;
  const bool inner_right = r.own && !r.outer && l.outer && !l.own;
  if (!inner_left && !inner_right)
    err(*c, refused + " (each side must read only the subquery's tables or only the enclosing query's)");
  const ExprPtr& inner = inner_left ? c->args[0] : c->args[1];
  const ExprPtr& outer = inner_left ? c->args[1] : c->args[0];
  if (c->op == "=") {
    out.inner_keys.push_back(inner);
    out.outer_keys.push_back(outer);
    return;
  }
  if (out.compare)
    err(*c, refused + " (one correlated comparison besides the equalities is supported; '" + out.compare->at->text() +
                "' is one already)");
  out.compare = CorrelatedComparison{inner, outer, inner_left ? c->op : flipped(c->op), c.get()};
}

}  // namespace

std::optional<Correlation> split_correlation(const Expr& subquery, const Database& db) {
  const Query& q = *subquery.subquery;
  if (!q.where) return std::nullopt;
  const OwnTables own(q, db);
  if (!reads_of(*q.where, own).outer) return std::nullopt;
  if (!q.group_by.empty() || q.having || q.limit || q.offset)
    err(subquery, "a correlated subquery with GROUP BY, HAVING, LIMIT or OFFSET is not supported");
  std::vector<ExprPtr> conds;
  conjuncts_of(q.where, conds);
  Correlation out;
  for (const ExprPtr& c : conds) {
    if (reads_of(*c, own).outer) split_conjunct(c, own, out);
    else out.inner_where = and_of(out.inner_where, c);
  }
  if (out.inner_keys.empty())
    err(*out.compare->at, "correlated condition '" + out.compare->at->text() +
                              "' is not supported without an equality inner = outer (the subquery is grouped by those)");
  return out;
}

Query grouped_query(const Expr& subquery, const Correlation& c, ExprPtr select) {
  Query g = *subquery.subquery;
  g.distinct = false;
  g.select = {SelectItem{std::move(select), ""}};
  g.where = c.inner_where;
  for (const ExprPtr& k : c.inner_keys) g.where = and_of(g.where, is_not_null(k));
  g.group_by = c.inner_keys;
  g.order_by.clear();
  for (const ExprPtr& k : c.inner_keys) g.order_by.push_back(OrderItem{k, false});
  return g;
}

Query empty_query(const Expr& subquery, const Correlation& c) {
  Query g = *subquery.subquery;
  g.where = and_of(c.inner_where, node_at(subquery, ExprKind::Int));  // AND 0 (a comma join keeps its keys)
  g.order_by.clear();
  return g;
}

ExprPtr min_or_max(AggFn fn, const ExprPtr& x) {
  ExprPtr e = node_at(*x, ExprKind::Aggregate);
  e->agg = fn;
  return with_args(e, {x});
}

ExprPtr any_null(const ExprPtr& y) {
  ExprPtr is_null = node_at(*y, ExprKind::IsNull);
  return min_or_max(AggFn::Max, with_args(is_null, {y}));
}

namespace {

void sort_signed(std::vector<std::pair<uint64_t, uint64_t>>& entries) {
  std::sort(entries.begin(), entries.end(),
            [](const auto& a, const auto& b) { return int64_t(a.first) < int64_t(b.first); });
}

// Key j's distinct values -> their rank (0, 1, ...), as the device looks them up.
std::shared_ptr<const CodeMap> rank_map(const Column64& key, uint64_t& distinct) {
  std::vector<uint64_t> values;
  for (const std::optional<uint64_t>& v : key) values.push_back(*v);
  std::sort(values.begin(), values.end(), [](uint64_t a, uint64_t b) { return int64_t(a) < int64_t(b); });
  values.erase(std::unique(values.begin(), values.end()), values.end());
  auto m = std::make_shared<CodeMap>();
  m->label = "rank";
  m->codes = values;
  for (uint64_t r = 0; r < values.size(); ++r) m->results.push_back(r);
  distinct = values.size();
  return m;
}

uint64_t rank_of(const CodeMap& m, uint64_t v) {
  auto it = std::lower_bound(m.codes.begin(), m.codes.end(), v,
                             [](uint64_t a, uint64_t b) { return int64_t(a) < int64_t(b); });
  return m.results[size_t(it - m.codes.begin())];
}

}  // namespace

void check_group_keys(const std::vector<Column64>& keys, const Expr& at) {
  const size_t rows = keys.empty() ? 0 : keys[0].size();
  for (const Column64& k : keys) {
    bool whole = k.size() == rows;
    for (const std::optional<uint64_t>& v : k) whole = whole && v;
    if (!whole)
      err(at, "a correlated subquery's group keys came back NULL or of unequal lengths (its runner did not run the "
              "grouped query)");
  }
}

GroupCodes group_codes(const std::vector<Column64>& keys, const Expr& at) {
  GroupCodes g;
  const size_t rows = keys.empty() ? 0 : keys[0].size();
  check_group_keys(keys, at);
  if (keys.size() == 1) {
    for (const std::optional<uint64_t>& v : keys[0]) g.codes.push_back(*v);
    return g;
  }
  // Several keys: rank0 * n1 * n2 ... + rank1 * n2 ... + ...; the product of the counts must
  // stay an int64 (the device computes the same sum per enclosing row).
  uint64_t product = 1;
  for (const Column64& k : keys) {
    uint64_t n = 0;
    g.ranks.push_back(rank_map(k, n));
    g.radix.push_back(n);
    if (n > 0 && product > uint64_t(INT64_MAX) / n)
      err(at, "a correlated subquery's groups are too many to combine their keys into one int64");
    product *= std::max<uint64_t>(n, 1);
  }
  g.codes.assign(rows, 0);
  for (size_t j = 0; j < keys.size(); ++j)
    for (size_t r = 0; r < rows; ++r) g.codes[r] = g.codes[r] * g.radix[j] + rank_of(*g.ranks[j], *keys[j][r]);
  return g;
}

std::shared_ptr<const CodeMap> lookup_map(const std::vector<uint64_t>& codes, const Column64& values, Type type,
                                          const std::string& label) {
  if (values.size() != codes.size())
    fail(ErrorCode::BadInput, "a correlated subquery's " + label + " came back with " + std::to_string(values.size()) +
                                  " rows for " + std::to_string(codes.size()) + " groups");
  std::vector<std::pair<uint64_t, uint64_t>> entries;
  for (size_t r = 0; r < codes.size(); ++r) {
    const std::optional<uint64_t>& v = values[r];
    if (!v || (type == Type::Float && std::isnan(std::bit_cast<double>(*v)))) continue;
    entries.emplace_back(codes[r], *v);
  }
  sort_signed(entries);
  auto m = std::make_shared<CodeMap>();
  m->label = label;
  for (const auto& [code, value] : entries) {
    m->codes.push_back(code);
    m->results.push_back(value);
  }
  return m;
}

}  // namespace weft::db
