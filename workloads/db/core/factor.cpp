#include "factor.h"

#include <algorithm>

namespace weft::db {

namespace {

void split(const ExprPtr& e, const char* op, std::vector<ExprPtr>& out) {
  if (e->kind == ExprKind::Binary && e->op == op) {
    split(e->args[0], op, out);
    split(e->args[1], op, out);
  } else {
    out.push_back(e);
  }
}

// a op b as the parser builds it: its source text runs from a to b.
ExprPtr joined(const char* op, const ExprPtr& a, const ExprPtr& b) {
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Binary;
  e->op = op;
  e->line = a->line;
  e->col = a->col;
  e->source = a->source;
  e->begin = std::min(a->begin, b->begin);
  e->end = std::max(a->end, b->end);
  e->height = std::max(a->height, b->height) + 1;
  e->args = {a, b};
  return e;
}

ExprPtr chain(const char* op, const std::vector<ExprPtr>& terms) {
  ExprPtr r = terms[0];
  for (size_t k = 1; k < terms.size(); ++k) r = joined(op, r, terms[k]);
  return r;
}

// The same condition: the same tree, or an equality with its sides swapped (= is symmetric in
// SQLite, affinity conversions included).
bool same_conjunct(const Expr& a, const Expr& b) {
  if (same_expr(a, b)) return true;
  const auto equality = [](const Expr& e) { return e.kind == ExprKind::Binary && (e.op == "=" || e.op == "=="); };
  return equality(a) && equality(b) && same_expr(*a.args[0], *b.args[1]) && same_expr(*a.args[1], *b.args[0]);
}

bool holds(const std::vector<ExprPtr>& terms, const Expr& e) {
  return std::any_of(terms.begin(), terms.end(), [&](const ExprPtr& t) { return same_conjunct(*t, e); });
}

// One conjunct: an OR whose branches share conjuncts becomes shared AND (OR of the rest).
std::vector<ExprPtr> factored(const ExprPtr& c) {
  std::vector<ExprPtr> branches;
  split(c, "OR", branches);
  if (branches.size() < 2) return {c};
  std::vector<std::vector<ExprPtr>> terms(branches.size());
  for (size_t b = 0; b < branches.size(); ++b) split(branches[b], "AND", terms[b]);
  std::vector<ExprPtr> common;
  for (const ExprPtr& t : terms[0])
    if (!holds(common, *t) &&
        std::all_of(terms.begin() + 1, terms.end(), [&](const std::vector<ExprPtr>& ts) { return holds(ts, *t); }))
      common.push_back(t);
  if (common.empty()) return {c};
  std::vector<ExprPtr> rest;
  for (const std::vector<ExprPtr>& ts : terms) {
    std::vector<ExprPtr> own;
    for (const ExprPtr& t : ts)
      if (!holds(common, *t)) own.push_back(t);
    if (own.empty()) return common;  // this branch is true whenever the common part is
    rest.push_back(chain("AND", own));
  }
  common.push_back(chain("OR", rest));
  return common;
}

}  // namespace

ExprPtr factor_or_conjuncts(const ExprPtr& where) {
  if (!where) return where;
  std::vector<ExprPtr> conds, out;
  split(where, "AND", conds);
  bool changed = false;
  for (const ExprPtr& c : conds) {
    const std::vector<ExprPtr> f = factored(c);
    changed |= f.size() != 1 || f[0] != c;
    out.insert(out.end(), f.begin(), f.end());
  }
  return changed ? chain("AND", out) : where;
}

}  // namespace weft::db
