#include "plan.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <utility>

#include <weft/error.h>

#include "decorrelate.h"
#include "factor.h"
#include "like.h"

namespace weft::db {

bool BExpr::uses_side(uint32_t s) const {
  if (kind == Col && side == s) return true;
  for (const BExprPtr& a : args)
    if (a->uses_side(s)) return true;
  return false;
}

Type direct_type(const Plan& plan, uint32_t column) {
  return column < plan.keys.size() ? plan.keys[column]->type : plan.aggs[column - plan.keys.size()].out;
}

namespace {

[[noreturn]] void err(const Expr& at, const std::string& msg) {
  fail(ErrorCode::BadInput, "sql:" + std::to_string(at.line) + ":" + std::to_string(at.col) + ": " + msg);
}

BExprPtr node(BExpr e) { return std::make_shared<const BExpr>(std::move(e)); }

BExprPtr null_const(Type t) {
  BExpr e;
  e.kind = BExpr::Const;
  e.null = true;
  e.type = t;
  return node(e);
}
bool is_null_const(const BExprPtr& e) { return e->kind == BExpr::Const && e->null; }
bool numeric(Type t) { return t == Type::Int || t == Type::Float; }

// A REAL constant; NaN is NULL, as SQLite stores it.
BExprPtr float_const(double v) {
  if (std::isnan(v)) return null_const(Type::Float);
  BExpr e;
  e.kind = BExpr::Const;
  e.type = Type::Float;
  e.bits = std::bit_cast<uint64_t>(v);
  return node(e);
}
double const_float(const BExprPtr& e) { return std::bit_cast<double>(e->bits); }
bool present_const(const BExprPtr& e, Type t) { return e->kind == BExpr::Const && !e->null && e->type == t; }

// Constant REAL arithmetic done here, as the device would do it (one IEEE double operation, the
// same bits), so that `x BETWEEN 0.06 - 0.01 AND 0.06 + 0.01` is a comparison with constants
// (the scan's term list) rather than arithmetic per row. / and % are left to the device (their
// zero rules).
std::optional<BExprPtr> folded_float_arith(const std::string& op, const BExprPtr& l, const BExprPtr& r) {
  if (!present_const(l, Type::Float) || !present_const(r, Type::Float)) return std::nullopt;
  const double x = const_float(l), y = const_float(r);
  if (op == "+") return float_const(x + y);
  if (op == "-") return float_const(x - y);
  if (op == "*") return float_const(x * y);
  return std::nullopt;
}

BExprPtr to_float(BExprPtr e) {
  if (e->type == Type::Float) return e;
  if (is_null_const(e)) return null_const(Type::Float);
  if (present_const(e, Type::Int)) return float_const(double(int64_t(e->bits)));  // as the device converts
  BExpr c;
  c.kind = BExpr::ToFloat;
  c.type = Type::Float;
  c.args = {e};
  return node(c);
}

// A numeric value as a truth value (Int 0/1 or NULL): Floats compare with 0.0.
BExprPtr truth(const Expr& at, BExprPtr e, const char* where) {
  if (e->type == Type::Text && !is_null_const(e)) err(at, std::string(where) + " needs a number or a comparison, not text");
  if (e->type != Type::Float) return e;
  BExpr zero;
  zero.kind = BExpr::Const;
  zero.type = Type::Float;
  BExpr c;
  c.kind = BExpr::Compare;
  c.op = "!=";
  c.type = Type::Int;
  c.args = {e, node(zero)};
  return node(c);
}

// SQLite shows an int-or-float CASE's ints as ints (0, not 0.0) and groups by the row's value.
void refuse_mixed(const Expr& e, const BExpr& bound, const char* as) {
  if (bound.mixed)
    err(e, "a CASE of int and float values as " + std::string(as) + " is not supported ('" + e.text() +
               "': SQLite gives each row its branch's type; make the ints floats, e.g. 0.0)");
}

[[noreturn]] void refuse_mixed_use(const Expr& e) {
  err(e, "'" + e.text() + "' reads a CASE of int and float values, which is supported only in comparisons, "
         "conditions, SUM/MIN/MAX/AVG and arithmetic with a float (SQLite gives each row its branch's type)");
}

bool same_bound(const BExpr& a, const BExpr& b) {
  if (a.kind != b.kind || a.type != b.type || a.op != b.op || a.args.size() != b.args.size()) return false;
  if (a.kind == BExpr::Const && (a.null != b.null || a.bits != b.bits)) return false;
  if (a.kind == BExpr::Col && (a.side != b.side || a.column != b.column)) return false;
  if ((a.kind == BExpr::IsNull || a.kind == BExpr::InSet || a.kind == BExpr::InValues) && a.negated != b.negated) return false;
  if (a.kind == BExpr::InValues && (a.values->sorted != b.values->sorted || a.values->any_null != b.values->any_null ||
                                    a.values->rows != b.values->rows))
    return false;  // the same values (GROUP BY x IN (SELECT ...) matches the selected one)
  for (size_t k = 0; k < a.args.size(); ++k)
    if (!same_bound(*a.args[k], *b.args[k])) return false;
  return true;
}

bool has_aggregate(const Expr& e) {
  if (e.kind == ExprKind::Aggregate) return true;
  for (const ExprPtr& a : e.args)
    if (has_aggregate(*a)) return true;
  return false;
}

Plan plan_in(const Query& q, const Database& db, const SubqueryRunner& run, const class Binder* outer);

class Binder {
 public:
  // `outer`: the binder of the query a subquery sits in (its columns are refused here, by name:
  // a correlated subquery).
  Binder(const Database& db, Plan& plan, const Query& q, const SubqueryRunner& run, const Binder* outer)
      : db_(db), plan_(plan), run_(run), outer_(outer) {
    add_table(q.from);
    for (const JoinClause& j : q.joins) add_table(j.table);
  }

  // `grouped`: bind as a value per group (aggregates allowed, bare columns must be GROUP BY keys).
  // A grouped node without aggregates is bound plainly to compare it with the keys, and then its
  // children again: plain bindings and aggregate tests are memoised per node, so that an
  // operator chain binds in linear time, not quadratic (the SQL fuzzer's slow units).
  BExprPtr bind(const Expr& e, bool grouped) {
    if (!grouped) {
      auto it = plain_.find(&e);
      if (it != plain_.end()) return it->second;
      BExprPtr r = mixed_checked(e, bind_node(e, false));
      plain_.emplace(&e, r);
      return r;
    }
    return mixed_checked(e, bind_node(e, true));
  }

  // A node that reads a mixed value (an int-or-float CASE) is one whose answer is SQLite's
  // either way: a comparison, a condition, round, a CAST to int, arithmetic with a (plain) float,
  // or another CASE; anything else could show or use the int as a float, and is refused.
  BExprPtr mixed_checked(const Expr& e, BExprPtr r) {
    const auto mixed = [](const BExprPtr& a) { return a->mixed; };
    if (r->mixed || std::none_of(r->args.begin(), r->args.end(), mixed)) return r;
    switch (r->kind) {
      case BExpr::Compare: case BExpr::And: case BExpr::Or: case BExpr::Not: case BExpr::IsNull:
      case BExpr::ToInt: case BExpr::Round: case BExpr::Arith: return r;  // binary() checked arithmetic
      default: break;
    }
    refuse_mixed_use(e);
  }

  // HAVING may name a result column by its alias where no table column has the name (SQLite's
  // rule: a column wins over an alias).
  void allow_aliases(const std::vector<SelectItem>* select) { aliases_ = select; }
  const Expr* alias_target(const Expr& e) const {
    if (!aliases_ || e.kind != ExprKind::Column || !e.table.empty()) return nullptr;
    for (const Table* t : tables_)
      if (t->find(e.s) >= 0) return nullptr;
    for (const SelectItem& it : *aliases_)
      if (it.expr && !it.alias.empty() && iequals(it.alias, e.s)) return it.expr.get();
    return nullptr;
  }

  BExprPtr bind_node(const Expr& e, bool grouped) {
    if (const Expr* aliased = alias_target(e)) {
      const std::vector<SelectItem>* saved = std::exchange(aliases_, nullptr);  // an alias names no alias
      BExprPtr r = bind(*aliased, grouped);
      aliases_ = saved;
      return r;
    }
    if (grouped) {
      if (!contains_aggregate(e) && e.kind != ExprKind::Int && e.kind != ExprKind::Float && e.kind != ExprKind::String &&
          e.kind != ExprKind::Null) {
        BExprPtr r = bind(e, false);
        for (size_t k = 0; k < plan_.keys.size(); ++k)
          if (same_bound(*r, *plan_.keys[k])) return direct(uint32_t(k));
        if (e.kind == ExprKind::Column)
          err(e, "column '" + e.text() + "' must appear in GROUP BY or inside an aggregate");
      }
      if (e.kind == ExprKind::Aggregate) return aggregate(e);
    } else if (e.kind == ExprKind::Aggregate) {
      err(e, std::string("aggregate ") + agg_name(e.agg) + " is not allowed here");
    }
    switch (e.kind) {
      case ExprKind::Int: return konst(Type::Int, uint64_t(e.i));
      case ExprKind::Float: {
        uint64_t b;
        std::memcpy(&b, &e.f, 8);
        return konst(Type::Float, b);
      }
      case ExprKind::String: return konst(Type::Text, uint64_t(db_.code(e.s)));
      case ExprKind::Null: return null_const(Type::Int);
      case ExprKind::Column: return column(e);
      case ExprKind::Star: err(e, "'*' is not allowed here");
      case ExprKind::IsNull: {
        BExprPtr a = bind(*e.args[0], grouped);
        BExpr c;
        c.kind = BExpr::IsNull;
        c.negated = e.negated;
        c.args = {a};
        return node(c);
      }
      case ExprKind::Unary: {
        BExprPtr a = bind(*e.args[0], grouped);
        if (e.op == "NOT") {
          a = truth(e, a, "NOT");
          if (is_null_const(a)) return a;
          BExpr c;
          c.kind = BExpr::Not;
          c.args = {a};
          return node(c);
        }
        if (!numeric(a->type) && !is_null_const(a)) err(e, "cannot negate text");
        if (is_null_const(a)) return a;
        BExpr c;
        c.kind = BExpr::Neg;
        c.type = a->type;
        c.args = {a};
        return node(c);
      }
      case ExprKind::Binary:
        if (e.op == "||") return text_function(e, *text_call(e), grouped);
        return binary(e, bind(*e.args[0], grouped), bind(*e.args[1], grouped));
      case ExprKind::Call:
        if (const std::optional<TextCall> tc = text_call(e)) return text_function(e, *tc, grouped);
        return call(e, grouped);
      case ExprKind::Case: return case_of(e, grouped);
      case ExprKind::Cast: return cast(e, bind(*e.args[0], grouped));
      case ExprKind::Like: return like(e, bind(*e.args[0], grouped));
      case ExprKind::InSelect:
        if (const std::optional<Correlation> c = split_correlation(e, db_)) return correlated_in(e, *c, grouped);
        return in_select(e, bind(*e.args[0], grouped));
      case ExprKind::Exists:
        if (const std::optional<Correlation> c = split_correlation(e, db_)) return correlated_exists(e, *c, grouped);
        return konst(Type::Int, subquery_rows(e).empty() ? 0 : 1);  // never NULL
      case ExprKind::Scalar:
        if (const std::optional<Correlation> c = split_correlation(e, db_)) return correlated_scalar(e, *c, grouped);
        return scalar_select(e);
      case ExprKind::Aggregate: break;
    }
    err(e, "unsupported expression");
  }

  BExprPtr binary(const Expr& e, BExprPtr l, BExprPtr r) {
    const std::string& op = e.op;
    BExpr c;
    if (op == "AND" || op == "OR") {
      c.kind = op == "AND" ? BExpr::And : BExpr::Or;
      c.args = {truth(e, l, op.c_str()), truth(e, r, op.c_str())};
      return node(c);
    }
    if (op == "IS" || op == "IS NOT") return is_comparison(e, l, r);
    const bool cmp = op == "=" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
    if (cmp) {
      if (is_null_const(l) || is_null_const(r)) return null_const(Type::Int);
      if ((l->type == Type::Text) != (r->type == Type::Text))
        err(e, "cannot compare " + std::string(type_name(l->type)) + " with " + type_name(r->type) + " in '" + e.text() + "'");
      // Int against Float keeps both types: the device compares them exactly, as SQLite does
      // (converting the int to a double would make 2^53 + 1 equal 2^53).
      c.kind = BExpr::Compare;
      c.op = op;
      c.type = Type::Int;
      c.args = {l, r};
      return node(c);
    }
    // arithmetic
    for (const BExprPtr& x : {l, r})
      if (x->type == Type::Text && !is_null_const(x)) err(e, "cannot apply '" + op + "' to text in '" + e.text() + "'");
    Type t = (l->type == Type::Float || r->type == Type::Float) ? Type::Float : Type::Int;
    if (op == "%" && t == Type::Float) err(e, "'%' needs integer operands in '" + e.text() + "'");
    // An int-or-float CASE beside a float is a float in SQLite whichever branch ran.
    if ((l->mixed || r->mixed) && (l->type != Type::Float || r->type != Type::Float || (l->mixed && r->mixed)))
      refuse_mixed_use(e);
    if (is_null_const(l) || is_null_const(r)) return null_const(t);
    if (t == Type::Float) {
      l = to_float(l);
      r = to_float(r);
      if (std::optional<BExprPtr> folded = folded_float_arith(op, l, r)) return *folded;
    }
    c.kind = BExpr::Arith;
    c.op = op;
    c.type = t;
    c.args = {l, r};
    return node(c);
  }

  // x IS y: 1 when both are NULL or both equal, else 0, never NULL (SQLite's); IS NOT its negation.
  // Bound as CASE WHEN x = y THEN 1 ELSE x IS NULL AND y IS NULL END.
  BExprPtr is_comparison(const Expr& e, const BExprPtr& l, const BExprPtr& r) {
    const bool negated = e.op == "IS NOT";
    if (!is_null_const(l) && !is_null_const(r) && (l->type == Type::Text) != (r->type == Type::Text))
      err(e, "cannot compare " + std::string(type_name(l->type)) + " with " + type_name(r->type) + " in '" + e.text() + "'");
    auto null_test = [&](const BExprPtr& x, bool is_not) {
      BExpr c;
      c.kind = BExpr::IsNull;
      c.negated = is_not;
      c.args = {x};
      return node(c);
    };
    if (is_null_const(l) && is_null_const(r)) return konst(Type::Int, negated ? 0 : 1);
    if (is_null_const(l) || is_null_const(r)) return null_test(is_null_const(l) ? r : l, negated);
    BExpr both, equal;
    both.kind = BExpr::And;
    both.args = {null_test(l, false), null_test(r, false)};
    equal.kind = BExpr::Compare;
    equal.op = "=";
    equal.args = {l, r};
    const BExprPtr is = choose(node(equal), konst(Type::Int, 1), node(both), Type::Int);
    if (!negated) return is;
    BExpr n;
    n.kind = BExpr::Not;
    n.args = {is};
    return node(n);
  }

  // The one type of the values a CASE or coalesce may return (NULL literals take it). SQLite
  // keeps each value's own type, so int with float would change the answer's type: refused.
  Type result_type(const Expr& at, const std::vector<BExprPtr>& values, const char* what) {
    std::optional<Type> t;
    for (const BExprPtr& v : values) {
      if (is_null_const(v)) continue;
      if (t && *t != v->type)
        err(at, std::string(what) + " values of different types (" + type_name(*t) + " and " + type_name(v->type) +
                    ") are not supported");
      t = v->type;
    }
    return t.value_or(Type::Int);
  }
  BExprPtr choose(BExprPtr condition, BExprPtr value, BExprPtr otherwise, Type t) {
    if (is_null_const(value)) value = null_const(t);
    if (is_null_const(otherwise)) otherwise = null_const(t);
    BExpr c;
    c.kind = BExpr::Choose;
    c.type = t;
    c.args = {condition, value, otherwise};
    return node(c);
  }
  // CASE WHEN c1 THEN v1 WHEN c2 THEN v2 ELSE e END = choose(c1, v1, choose(c2, v2, e)).
  BExprPtr case_of(const Expr& e, bool grouped) {
    std::vector<BExprPtr> conditions, values;
    for (size_t k = 0; k + 1 < e.args.size(); k += 2) {
      conditions.push_back(truth(*e.args[k], bind(*e.args[k], grouped), "a WHEN condition"));
      values.push_back(bind(*e.args[k + 1], grouped));
    }
    values.push_back(bind(*e.args.back(), grouped));
    // Every value NULL: the CASE is NULL whatever the conditions, a NULL literal beside any type
    // (typing it Int would refuse it beside a float as a CASE of int and float).
    if (std::all_of(values.begin(), values.end(), is_null_const)) return null_const(Type::Int);
    if (mixes_int_and_float(values)) return mixed_case(e, conditions, values);
    const Type t = result_type(e, values, "CASE");
    BExprPtr r = is_null_const(values.back()) ? null_const(t) : values.back();
    for (size_t k = conditions.size(); k-- > 0;) r = choose(conditions[k], values[k], r, t);
    return r;
  }
  static bool mixes_int_and_float(const std::vector<BExprPtr>& values) {
    bool any_int = false, any_float = false, any_text = false;
    for (const BExprPtr& v : values) {
      if (is_null_const(v)) continue;
      any_int |= v->type == Type::Int;
      any_float |= v->type == Type::Float;
      any_text |= v->type == Type::Text;
    }
    return any_int && any_float && !any_text;
  }
  // CASE of int and float values, as a Float that holds the ints exactly (marked mixed): the int
  // values must be constants a double holds exactly, so that the float equals SQLite's int.
  BExprPtr mixed_case(const Expr& e, const std::vector<BExprPtr>& conditions, std::vector<BExprPtr> values) {
    for (size_t k = 0; k < values.size(); ++k) {
      BExprPtr& v = values[k];
      if (v->type != Type::Int || is_null_const(v)) continue;
      const Expr& at = k + 1 < values.size() ? *e.args[2 * k + 1] : *e.args.back();
      constexpr int64_t kExact = int64_t(1) << 53;
      if (v->kind != BExpr::Const || int64_t(v->bits) < -kExact || int64_t(v->bits) > kExact)
        err(at, "CASE values of int and float mix only where the int values are constants within +-2^53 ('" +
                    at.text() + "' is not)");
      v = konst(Type::Float, std::bit_cast<uint64_t>(double(int64_t(v->bits))));
    }
    BExprPtr r = is_null_const(values.back()) ? null_const(Type::Float) : values.back();
    for (size_t k = conditions.size(); k-- > 0;) r = choose(conditions[k], values[k], r, Type::Float);
    BExpr top = *r;
    top.mixed = true;
    return node(top);
  }
  BExprPtr numeric_argument(const Expr& e, BExprPtr a) {
    if (a->type == Type::Text && !is_null_const(a)) err(e, e.s + "() of text is not supported");
    return a;
  }
  BExprPtr call(const Expr& e, bool grouped) {
    std::vector<BExprPtr> args;
    for (const ExprPtr& a : e.args) args.push_back(bind(*a, grouped));
    if (e.s == "coalesce" || e.s == "ifnull") {  // the first non-NULL argument
      const Type t = result_type(e, args, e.s.c_str());
      BExprPtr r = is_null_const(args.back()) ? null_const(t) : args.back();
      for (size_t k = args.size() - 1; k-- > 0;) {
        if (is_null_const(args[k])) continue;
        BExpr present;
        present.kind = BExpr::IsNull;
        present.negated = true;
        present.args = {args[k]};
        r = choose(node(present), args[k], r, t);
      }
      return r;
    }
    if (e.s == "nullif") return nullif(e, args[0], args[1]);
    BExprPtr a = numeric_argument(e, args[0]);
    BExpr c;
    c.kind = e.s == "abs" ? BExpr::Abs : BExpr::Round;
    if (c.kind == BExpr::Round) {
      if (args.size() == 2 && !(e.args[1]->kind == ExprKind::Int && e.args[1]->i == 0))
        err(*e.args[1], "round() to digits after the point is not supported (only round(x) and round(x, 0))");
      a = to_float(a);  // round() of anything is a REAL in SQLite
    }
    if (is_null_const(a)) return null_const(c.kind == BExpr::Round ? Type::Float : a->type);
    c.type = a->type;
    c.args = {a};
    return node(c);
  }
  // nullif(a, b): NULL where a = b holds, else a (a NULL or NaN a stays NULL; a NULL b never
  // equals, so a). Compared as = compares, so text against a number is refused.
  BExprPtr nullif(const Expr& e, const BExprPtr& a, const BExprPtr& b) {
    if (!is_null_const(a) && !is_null_const(b) && (a->type == Type::Text) != (b->type == Type::Text))
      err(e, "cannot compare " + std::string(type_name(a->type)) + " with " + type_name(b->type) + " in '" + e.text() + "'");
    if (is_null_const(a) || is_null_const(b)) return a;
    BExpr equal;
    equal.kind = BExpr::Compare;
    equal.op = "=";
    equal.args = {a, b};
    return choose(node(equal), null_const(a->type), a, a->type);
  }
  // CAST(x AS INTEGER | REAL), by SQLite's affinity rule on the type name.
  BExprPtr cast(const Expr& e, BExprPtr a) {
    const bool to_int = e.s.find("INT") != std::string::npos;
    const bool to_real = !to_int && (e.s.find("REAL") != std::string::npos || e.s.find("FLOA") != std::string::npos ||
                                     e.s.find("DOUB") != std::string::npos);
    if (!to_int && !to_real) err(e, "CAST to " + e.s + " is not supported (only to INTEGER or REAL types)");
    if (is_null_const(a)) return null_const(to_int ? Type::Int : Type::Float);
    if (a->type == Type::Text && to_real) err(e, "CAST of text AS " + e.s + " is not supported (only AS INTEGER)");
    if (a->type == Type::Text) {
      TextFunction to_int;
      to_int.kind = TextFunction::CastInt;
      return mapped(e, to_int, a);
    }
    if (to_real) return to_float(a);
    if (a->type == Type::Int) return a;
    BExpr c;
    c.kind = BExpr::ToInt;
    c.type = Type::Int;
    c.args = {a};
    return node(c);
  }

  // A text function of one operand (text_functions.h): NULL for a NULL operand or constant
  // argument, else a Map of the operand.
  BExprPtr text_function(const Expr& e, const TextCall& tc, bool grouped) {
    const BExprPtr x = bind(*tc.operand, grouped);
    if (is_null_const(x) || tc.fn.null_constant) return null_const(tc.fn.result());
    return mapped(e, tc.fn, x);
  }
  // f(x) as a lookup the device makes per row: f is evaluated here over every string x can hold,
  // and each result must already be in the dictionary (the executor interns a query's derived
  // strings before planning it, query.cpp).
  BExprPtr mapped(const Expr& e, const TextFunction& fn, const BExprPtr& x) {
    if (x->type != Type::Text)
      err(e, std::string(fn.name()) + " of " + type_name(x->type) + " in '" + e.text() +
                 "' is not supported (only of text: a function of a number would be computed per row)");
    auto m = std::make_shared<CodeMap>();
    m->fn = fn;
    std::vector<std::pair<uint64_t, uint64_t>> entries;
    for (const std::string& s : operand_strings(e, *x)) {
      const TextValue v = apply_text_function(fn, s, e);
      if (v.null) continue;
      uint64_t result = uint64_t(v.i);
      if (fn.result() == Type::Text) {
        const int64_t code = db_.code(v.s);
        if (code & 1)
          err(e, "'" + e.text() + "' gives '" + v.s + "', a string the dictionary lacks (plan the query through prepare_sql, "
                 "which adds a query's derived strings first)");
        result = uint64_t(code);
        m->texts.push_back(v.s);
      }
      entries.emplace_back(uint64_t(db_.code(s)), result);
    }
    std::sort(entries.begin(), entries.end());
    for (const auto& [code, result] : entries) {
      m->codes.push_back(code);
      m->results.push_back(result);
    }
    std::sort(m->texts.begin(), m->texts.end());
    m->texts.erase(std::unique(m->texts.begin(), m->texts.end()), m->texts.end());
    BExpr c;
    c.kind = BExpr::Map;
    c.type = fn.result();
    c.op = fn.describe("x");
    c.map = m;
    c.args = {x};
    return node(c);
  }
  // Every string a Text operand can hold: a column's distinct strings (a group key's or a
  // MIN/MAX's, those of its argument), a text function's results, a constant. Other operands
  // (CASE, coalesce, ...) are refused: their strings are not known before the query runs.
  std::vector<std::string> operand_strings(const Expr& e, const BExpr& x) const {
    if (x.kind == BExpr::Map && !x.map->label.empty())
      err(e, "'" + e.text() + "' is not supported: a text function of a correlated subquery's value");
    if (x.kind == BExpr::Map) return x.map->texts;
    if (x.kind == BExpr::Const) return {db_.decode(int64_t(x.bits))};
    if (x.kind == BExpr::Col && x.side != kSideDirect) return distinct_strings(tables_[x.side]->columns[x.column], db_);
    if (x.kind == BExpr::Col && x.column < plan_.keys.size()) return operand_strings(e, *plan_.keys[x.column]);
    if (x.kind == BExpr::Col) {
      const AggPlan& a = plan_.aggs[x.column - plan_.keys.size()];
      if (a.fn == AggFn::Min || a.fn == AggFn::Max) return operand_strings(e, *a.arg);
    }
    err(e, "'" + e.text() + "' is not supported: a text function's operand must be a text column, a text function of one, or "
           "a constant");
  }

  // x [NOT] LIKE 'pattern' [ESCAPE 'c']: the pattern is matched against every dictionary string
  // here, once, and the device tests the code's bit in the matching set: dictionary-size bits
  // however many strings match, where an IN list of their codes would grow the bytecode.
  BExprPtr like(const Expr& e, BExprPtr x) {
    const std::string form = e.negated ? "NOT LIKE" : "LIKE";
    const Expr& pattern = *e.args[1];
    const Expr* escape = e.args.size() > 2 ? e.args[2].get() : nullptr;
    if (pattern.kind != ExprKind::String && pattern.kind != ExprKind::Null)
      err(pattern, form + " with a pattern other than a string literal is not supported");
    if (escape && escape->kind != ExprKind::String && escape->kind != ExprKind::Null)
      err(*escape, "ESCAPE with other than a string literal is not supported");
    if (pattern.kind == ExprKind::Null || (escape && escape->kind == ExprKind::Null) || is_null_const(x))
      return null_const(Type::Int);  // SQLite: a NULL operand, pattern or escape makes NULL
    if (x->type != Type::Text) err(e, form + " of " + type_name(x->type) + " is not supported (only of text)");
    if (pattern.s.size() > kLikePatternLimit)
      err(pattern, form + " pattern longer than " + std::to_string(kLikePatternLimit) +
                       " bytes is not supported (SQLite: LIKE or GLOB pattern too complex)");
    if (has_absent_text(*x))
      err(e, form + " of a string literal that is not in the database's dictionary is not supported");
    BExpr c;
    c.kind = BExpr::InSet;
    c.type = Type::Int;
    c.negated = e.negated;
    c.op = "LIKE " + sql_quoted(pattern.s) + (escape ? " ESCAPE " + sql_quoted(escape->s) : "");
    c.set = matching_codes(pattern.s, escape ? escape_character(*escape) : 0);
    c.args = {x};
    return node(c);
  }
  // The code point of an ESCAPE literal, which must hold one character (SQLite's error).
  static uint32_t escape_character(const Expr& escape) {
    const std::optional<uint32_t> c = single_character(escape.s);
    if (!c) err(escape, "ESCAPE expression must be a single character");
    return *c;
  }
  // Bit k set when dictionary string k (code 2k) matches.
  std::shared_ptr<const std::vector<uint32_t>> matching_codes(const std::string& pattern, uint32_t escape) const {
    const std::vector<std::string>& dict = db_.dict();
    auto set = std::make_shared<std::vector<uint32_t>>((dict.size() + 31) / 32, 0u);
    for (size_t k = 0; k < dict.size(); ++k)
      if (like_matches(pattern, dict[k], escape)) (*set)[k / 32] |= 1u << (k % 32);
    return set;
  }
  // Whether a Text constant of `e` has an odd code: a string the dictionary lacks (the executor
  // interns a query's literals first), so no set of dictionary codes can say whether it matches.
  static bool has_absent_text(const BExpr& e) {
    if (e.kind == BExpr::Const && e.type == Type::Text && !e.null && (e.bits & 1)) return true;
    for (const BExprPtr& a : e.args)
      if (has_absent_text(*a)) return true;
    return false;
  }

  // x [NOT] IN (SELECT y ...): the subquery runs first, alone (uncorrelated), and its values
  // become a sorted set in x's type that the device searches (DB_OP_IN_VALUES).
  BExprPtr in_select(const Expr& e, BExprPtr x) {
    const Plan& sub = subquery_plan(e);
    if (sub.visible != 1)
      err(e, "IN (SELECT ...) must select one column, not " + std::to_string(sub.visible));
    const BExprPtr& y = sub.outputs[0];
    if (!is_null_const(x) && !is_null_const(y) && (x->type == Type::Text) != (y->type == Type::Text))
      err(e, "cannot compare " + std::string(type_name(x->type)) + " with " + type_name(y->type) + " in '" + e.text() + "'");
    auto set = std::make_shared<ValueSet>();
    const Type as = is_null_const(x) ? Type::Int : x->type;
    for (const std::optional<uint64_t>& v : subquery_rows(e)) {
      ++set->rows;
      if (!v || (y->type == Type::Float && std::isnan(std::bit_cast<double>(*v)))) set->any_null = true;
      else if (std::optional<uint64_t> in_x = converted(*v, y->type, as)) set->sorted.push_back(*in_x);
    }
    sort_unique(set->sorted, as);
    BExpr c;
    c.kind = BExpr::InValues;
    c.type = Type::Int;
    c.negated = e.negated;
    c.op = "IN (SELECT ...)";
    c.values = set;
    c.args = {x};
    return node(c);
  }
  // (SELECT y ...) as a value: the subquery runs first, alone (uncorrelated); no row gives NULL,
  // one row its value. SQLite takes the first of several rows, and which row is first is not
  // defined without an ORDER BY that orders them all, so more than one row is refused rather
  // than guessed.
  BExprPtr scalar_select(const Expr& e) {
    const Plan& sub = subquery_plan(e);
    if (sub.visible != 1) err(e, "a scalar subquery must select one column, not " + std::to_string(sub.visible));
    const Type t = sub.outputs[0]->type;
    const std::vector<std::optional<uint64_t>>& rows = subquery_rows(e);
    if (rows.size() > 1)
      err(e, "the scalar subquery returned " + std::to_string(rows.size()) +
                 " rows; Weft takes at most one (SQLite would take the first, which is not defined without a total ORDER BY)");
    if (rows.empty() || !rows[0] || (t == Type::Float && std::isnan(std::bit_cast<double>(*rows[0])))) return null_const(t);
    return konst(t, *rows[0]);
  }
  // A value of type `from` as one of type `to` that equals it exactly, if there is one: SQLite
  // compares int with real by value, so an int equals only an integral real and a real only an
  // int it holds exactly.
  static std::optional<uint64_t> converted(uint64_t bits, Type from, Type to) {
    if (from == to) return bits;
    if (from == Type::Float) {  // to Int
      const double d = std::bit_cast<double>(bits);
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || std::trunc(d) != d) return std::nullopt;
      return uint64_t(int64_t(d));
    }
    const int64_t i = int64_t(bits);  // Int to Float
    const double d = double(i);
    if (d >= 9223372036854775808.0 || int64_t(d) != i) return std::nullopt;
    return std::bit_cast<uint64_t>(d);
  }
  static void sort_unique(std::vector<uint64_t>& v, Type t) {
    if (t == Type::Float) {
      for (uint64_t& b : v)
        if (std::bit_cast<double>(b) == 0.0) b = 0;  // -0.0 is 0.0
      auto less = [](uint64_t a, uint64_t b) { return std::bit_cast<double>(a) < std::bit_cast<double>(b); };
      std::sort(v.begin(), v.end(), less);
    } else {
      std::sort(v.begin(), v.end(), [](uint64_t a, uint64_t b) { return int64_t(a) < int64_t(b); });
    }
    v.erase(std::unique(v.begin(), v.end()), v.end());
  }
  // A correlated subquery (decorrelate.h): grouped by its keys, run first, one run per column
  // (keys, then values) in key order; what the enclosing rows look up, made once per node.
  struct Decorrelated {
    GroupCodes groups;
    std::vector<Type> key_types;
    std::shared_ptr<const CodeMap> present;      // group code -> 1
    std::shared_ptr<const CodeMap> value;        // scalar: group code -> its value
    std::shared_ptr<const CodeMap> low, high;    // EXISTS with a comparison: MIN / MAX of its inner side
    Type value_type = Type::Int, compared_type = Type::Int;
    std::optional<uint64_t> empty;               // scalar: its value over no rows (nullopt: NULL)
  };
  Column64 grouped_column(const Expr& e, const Correlation& c, ExprPtr select, Type& type) {
    const Plan p = plan_in(grouped_query(e, c, std::move(select)), db_, run_, this);
    type = p.outputs[0]->type;
    return run_(p);
  }
  std::shared_ptr<const CodeMap> grouped_lookup(const Expr& e, const Correlation& c, const GroupCodes& g, ExprPtr select,
                                                Type& type, const char* label) {
    return lookup_map(g.codes, grouped_column(e, c, std::move(select), type), type, label);
  }
  const Decorrelated& decorrelated(const Expr& e, const Correlation& c, bool scalar) {
    auto it = decorrelated_.find(&e);
    if (it != decorrelated_.end()) return it->second;
    if (!run_) err(e, "subqueries need a device to run them first (IN (SELECT ...), EXISTS, (SELECT ...))");
    Decorrelated d;
    std::vector<Column64> keys;
    for (const ExprPtr& k : c.inner_keys) {
      keys.push_back(grouped_column(e, c, k, d.key_types.emplace_back()));
      if (d.key_types.back() == Type::Float)
        err(*k, "a correlated equality on float ('" + k->text() + "') is not supported (only int = int or text = text)");
    }
    d.groups = group_codes(keys, e);
    d.present = lookup_map(d.groups.codes, Column64(d.groups.codes.size(), uint64_t(1)), Type::Int, "correlated group");
    if (scalar) {
      d.value = grouped_lookup(e, c, d.groups, e.subquery->select[0].expr, d.value_type, "correlated value");
      const std::vector<std::optional<uint64_t>> none = run_(plan_in(empty_query(e, c), db_, run_, this));
      if (none.size() == 1 && none[0] && !(d.value_type == Type::Float && std::isnan(std::bit_cast<double>(*none[0]))))
        d.empty = none[0];
    }
    if (c.compare) {
      d.low = grouped_lookup(e, c, d.groups, min_or_max(AggFn::Min, c.compare->inner), d.compared_type, "correlated min");
      d.high = grouped_lookup(e, c, d.groups, min_or_max(AggFn::Max, c.compare->inner), d.compared_type, "correlated max");
    }
    return decorrelated_.emplace(&e, std::move(d)).first->second;
  }
  BExprPtr lookup(BExprPtr x, std::shared_ptr<const CodeMap> m, Type t, const Expr& e, const std::string& label = "") {
    BExpr c;
    c.kind = BExpr::Map;
    c.type = t;
    c.op = (label.empty() ? m->label : label) + ": " + e.text();  // the same subquery's same lookup compares equal
    c.map = std::move(m);
    c.args = {std::move(x)};
    return node(c);
  }
  BExprPtr present(BExprPtr x) {
    BExpr c;
    c.kind = BExpr::IsNull;
    c.negated = true;
    c.args = {std::move(x)};
    return node(c);
  }
  BExprPtr int_arith(const char* op, BExprPtr l, BExprPtr r) {
    BExpr c;
    c.kind = BExpr::Arith;
    c.op = op;
    c.type = Type::Int;
    c.args = {std::move(l), std::move(r)};
    return node(c);
  }
  // The enclosing row's group code: its side of the one key, or of several keys their ranks
  // combined as the groups' were (NULL where a key has no group).
  BExprPtr group_code(const Correlation& c, const Decorrelated& d, bool grouped) {
    return combined_code(outer_key_values(c, d, grouped), d.groups, c.outer_keys, "rank");
  }
  // The enclosing row's side of each key, bound and checked against the inner key's type.
  std::vector<BExprPtr> outer_key_values(const Correlation& c, const Decorrelated& d, bool grouped) {
    std::vector<BExprPtr> outer;
    for (size_t j = 0; j < c.outer_keys.size(); ++j) {
      const Expr& at = *c.outer_keys[j];
      BExprPtr x = bind(at, grouped);
      const std::string key = "'" + c.inner_keys[j]->text() + " = " + at.text() + "'";
      if (!is_null_const(x) && x->type == Type::Float)
        err(at, "a correlated equality on float (" + key + ") is not supported (only int = int or text = text)");
      if (!is_null_const(x) && x->type != d.key_types[j])
        err(at, "cannot compare " + std::string(type_name(d.key_types[j])) + " with " + type_name(x->type) + " in " + key);
      outer.push_back(x);
    }
    return outer;
  }
  // One value, itself; several, their ranks among the groups' combined as group_codes combined
  // them (NULL where a value has no rank). `label` keeps lookups of different groupings apart.
  BExprPtr combined_code(const std::vector<BExprPtr>& outer, const GroupCodes& g, const std::vector<ExprPtr>& at,
                         const std::string& label) {
    if (outer.size() == 1) return outer[0];
    BExprPtr code;
    for (size_t j = 0; j < outer.size(); ++j) {
      BExprPtr rank = lookup(outer[j], g.ranks[j], Type::Int, *at[j], label);
      code = code ? int_arith("+", int_arith("*", code, konst(Type::Int, g.radix[j])), rank) : rank;
    }
    return code;
  }
  // EXISTS: the code has a group; with a comparison `x OP y`, MIN(x) or MAX(x) of the group
  // decides whether a row of it passes (NULL: no group, or no x, so no row passes).
  BExprPtr correlated_exists(const Expr& e, const Correlation& c, bool grouped) {
    const Decorrelated& d = decorrelated(e, c, false);
    const BExprPtr code = group_code(c, d, grouped);
    BExprPtr holds = present(lookup(code, d.present, Type::Int, e));
    if (c.compare) holds = passes_comparison(e, *c.compare, d, code, grouped);
    if (!e.negated) return holds;
    BExpr n;
    n.kind = BExpr::Not;
    n.args = {holds};
    return node(n);
  }
  BExprPtr passes_comparison(const Expr& e, const CorrelatedComparison& cc, const Decorrelated& d, const BExprPtr& code,
                             bool grouped) {
    const BExprPtr y = bind(*cc.outer, grouped);
    if (d.compared_type == Type::Text || y->type == Type::Text)
      err(*cc.at, "a correlated comparison of text ('" + cc.at->text() + "') is not supported (only of numbers)");
    if (is_null_const(y)) return konst(Type::Int, 0);
    auto compare = [&](const std::shared_ptr<const CodeMap>& m) {
      BExpr c;
      c.kind = BExpr::Compare;
      c.op = cc.op;
      c.type = Type::Int;
      c.args = {lookup(code, m, d.compared_type, e), y};
      return node(c);
    };
    BExprPtr test;
    if (cc.op == "<" || cc.op == "<=") test = compare(d.low);
    else if (cc.op == ">" || cc.op == ">=") test = compare(d.high);
    else {  // !=: some x differs from y unless every x equals it
      BExpr either;
      either.kind = BExpr::Or;
      either.args = {compare(d.low), compare(d.high)};
      test = node(either);
    }
    return choose(test, konst(Type::Int, 1), konst(Type::Int, 0), Type::Int);  // never NULL
  }
  // (SELECT f(aggregates) ...): the group's value; a row with no group takes f over no rows.
  BExprPtr correlated_scalar(const Expr& e, const Correlation& c, bool grouped) {
    const Query& q = *e.subquery;
    if (q.select.size() != 1 || !q.select[0].expr || !has_aggregate(*q.select[0].expr))
      err(e, "a correlated scalar subquery must select one aggregate value (as SELECT MIN(x) ...); others are not supported");
    if (c.compare)
      err(*c.compare->at, "correlated condition '" + c.compare->at->text() +
                              "' is not supported in a scalar subquery (only equalities inner = outer)");
    const Decorrelated& d = decorrelated(e, c, true);
    const BExprPtr code = group_code(c, d, grouped);
    const BExprPtr value = lookup(code, d.value, d.value_type, e);
    if (!d.empty) return value;
    return choose(present(lookup(code, d.present, Type::Int, e)), value, konst(d.value_type, *d.empty), d.value_type);
  }

  // x [NOT] IN (SELECT y ... WHERE inner = outer ...), SQLite's three-valued IN over the rows of
  // the enclosing row's group: no group, 0 (even for a NULL x); else a NULL x, NULL; x among the
  // group's y, 1; else NULL when the group holds a NULL y, 0 otherwise. NOT IN is its negation.
  BExprPtr correlated_in(const Expr& e, const Correlation& c, bool grouped) {
    const Query& q = *e.subquery;
    if (q.select.size() != 1 || !q.select[0].expr || q.select[0].expr->kind == ExprKind::Star)
      err(e, "a correlated IN subquery must select one column (IN (SELECT y ...))");
    if (has_aggregate(*q.select[0].expr))
      err(e, "a correlated IN subquery of an aggregate is not supported (write x = (SELECT MAX(y) ...) for one value)");
    if (c.compare)
      err(*c.compare->at, "correlated condition '" + c.compare->at->text() +
                              "' is not supported in an IN subquery (only equalities inner = outer)");
    const BExprPtr x = bind(*e.args[0], grouped);
    if (x->mixed) refuse_mixed_use(e);
    const Decorrelated& d = decorrelated(e, c, false);
    const BExprPtr code = group_code(c, d, grouped);
    const BExprPtr has_group = present(lookup(code, d.present, Type::Int, e));
    BExprPtr in = null_const(Type::Int);  // a NULL x in a group
    if (!is_null_const(x)) {
      const Membership& m = membership(e, c, d, x);
      std::vector<BExprPtr> outer = outer_key_values(c, d, grouped);
      outer.push_back(x);
      std::vector<ExprPtr> at = c.outer_keys;
      at.push_back(e.args[0]);
      const BExprPtr hit = present(lookup(combined_code(outer, m.pairs, at, "member rank"), m.present, Type::Int, e));
      const BExprPtr miss = choose(lookup(code, m.any_null, Type::Int, e), null_const(Type::Int), konst(Type::Int, 0), Type::Int);
      in = choose(present(x), choose(hit, konst(Type::Int, 1), miss, Type::Int), null_const(Type::Int), Type::Int);
    }
    in = choose(has_group, in, konst(Type::Int, 0), Type::Int);
    if (!e.negated) return in;
    BExpr n;
    n.kind = BExpr::Not;
    n.args = {in};
    return node(n);
  }
  // A correlated IN's lookups beside its groups: the (keys, y) pairs with y not NULL, y in x's
  // type (values that equal no x of that type dropped, -0.0 as 0.0), and the groups with a NULL y.
  struct Membership {
    GroupCodes pairs;
    std::shared_ptr<const CodeMap> present, any_null;
  };
  const Membership& membership(const Expr& e, const Correlation& c, const Decorrelated& d, const BExprPtr& x) {
    auto it = memberships_.find(&e);
    if (it != memberships_.end()) return it->second;
    const ExprPtr& y = e.subquery->select[0].expr;
    Correlation pairs = c;
    pairs.inner_keys.push_back(y);
    pairs.outer_keys.push_back(e.args[0]);
    std::vector<Column64> keys;
    Type key_type = Type::Int, y_type = Type::Int;
    for (const ExprPtr& k : c.inner_keys) keys.push_back(grouped_column(e, pairs, k, key_type));
    keys.push_back(grouped_column(e, pairs, y, y_type));
    if ((y_type == Type::Text) != (x->type == Type::Text))
      err(e, "cannot compare " + std::string(type_name(x->type)) + " with " + type_name(y_type) + " in '" + e.text() + "'");
    check_group_keys(keys, e);
    keep_comparable(keys, y_type, x->type);
    Membership m;
    m.pairs = group_codes(keys, e);
    if (x->type == Type::Float) m.pairs.ranks.back() = with_negative_zero(*m.pairs.ranks.back());
    m.present = lookup_map(m.pairs.codes, Column64(m.pairs.codes.size(), uint64_t(1)), Type::Int, "correlated member");
    Type flag_type = Type::Int;
    m.any_null = lookup_map(d.groups.codes, grouped_column(e, c, any_null(y), flag_type), Type::Int, "correlated null");
    return memberships_.emplace(&e, std::move(m)).first->second;
  }
  // The pair rows whose y (the last column) equals some value of x's type, y converted to it.
  static void keep_comparable(std::vector<Column64>& keys, Type from, Type to) {
    std::vector<Column64> kept(keys.size());
    for (size_t r = 0; r < keys.back().size(); ++r) {
      std::optional<uint64_t> y = converted(*keys.back()[r], from, to);
      if (!y) continue;
      if (to == Type::Float && std::bit_cast<double>(*y) == 0.0) y = 0;  // -0.0 is 0.0
      for (size_t j = 0; j + 1 < keys.size(); ++j) kept[j].push_back(keys[j][r]);
      kept.back().push_back(y);
    }
    keys = std::move(kept);
  }
  // A float rank map that also finds -0.0 where it finds 0.0 (the device looks x up by its bits).
  static std::shared_ptr<const CodeMap> with_negative_zero(const CodeMap& ranks) {
    auto m = std::make_shared<CodeMap>(ranks);
    const auto zero = std::find(m->codes.begin(), m->codes.end(), uint64_t(0));
    if (zero == m->codes.end()) return m;
    const uint64_t rank = m->results[size_t(zero - m->codes.begin())];
    m->codes.insert(m->codes.begin(), std::bit_cast<uint64_t>(-0.0));  // INT64_MIN: first in signed order
    m->results.insert(m->results.begin(), rank);
    return m;
  }

  // The plan and the rows of a subquery, each made once per node (a grouped binding binds a
  // node twice).
  const Plan& subquery_plan(const Expr& e) {
    auto it = subplans_.find(&e);
    if (it != subplans_.end()) return it->second;
    if (!run_) err(e, "subqueries need a device to run them first (IN (SELECT ...), EXISTS, (SELECT ...))");
    return subplans_.emplace(&e, plan_in(*e.subquery, db_, run_, this)).first->second;
  }
  const std::vector<std::optional<uint64_t>>& subquery_rows(const Expr& e) {
    auto it = subrows_.find(&e);
    if (it != subrows_.end()) return it->second;
    const Plan& sub = subquery_plan(e);
    return subrows_.emplace(&e, run_(sub)).first->second;
  }
  // Whether a column reference names a column of this query's tables or an enclosing query's.
  bool resolves(const Expr& e) const {
    for (size_t s = 0; s < tables_.size(); ++s)
      if ((e.table.empty() || iequals(e.table, names_[s])) && tables_[s]->find(e.s) >= 0) return true;
    return outer_ && outer_->resolves(e);
  }

  bool contains_aggregate(const Expr& e) {
    auto it = has_agg_.find(&e);
    if (it != has_agg_.end()) return it->second;
    bool r = e.kind == ExprKind::Aggregate;
    if (const Expr* aliased = alias_target(e)) r = contains_aggregate(*aliased);
    for (const ExprPtr& a : e.args) r = r || contains_aggregate(*a);
    has_agg_.emplace(&e, r);
    return r;
  }

  const std::vector<const Table*>& tables() const { return tables_; }
  const std::vector<std::string>& names() const { return names_; }
  const Database& db() const { return db_; }

 private:
  void add_table(const TableRef& t) {
    if (t.derived)
      fail(ErrorCode::BadInput, "sql:" + std::to_string(t.line) + ":" + std::to_string(t.col) +
                                    ": derived tables need a device to run them first");
    const int idx = db_.find(t.name);
    if (idx < 0) {
      std::string known;
      for (const Table& x : db_.tables()) known += (known.empty() ? "" : ", ") + x.name;
      fail(ErrorCode::BadInput, "sql:" + std::to_string(t.line) + ":" + std::to_string(t.col) + ": no table '" + t.name +
                                    "' (tables: " + (known.empty() ? "none" : known) + ")");
    }
    const std::string name = t.alias.empty() ? t.name : t.alias;
    for (const std::string& n : names_)
      if (iequals(n, name))
        fail(ErrorCode::BadInput, "sql:" + std::to_string(t.line) + ":" + std::to_string(t.col) + ": table name '" + name +
                                      "' used twice (give one an alias)");
    plan_.tables.push_back(idx);
    plan_.table_names.push_back(name);
    tables_.push_back(&db_.table(size_t(idx)));
    names_.push_back(name);
  }
  BExprPtr konst(Type t, uint64_t bits) {
    BExpr c;
    c.kind = BExpr::Const;
    c.type = t;
    c.bits = bits;
    return node(c);
  }
  BExprPtr direct(uint32_t column) {
    BExpr c;
    c.kind = BExpr::Col;
    c.side = kSideDirect;
    c.column = column;
    c.type = direct_type(plan_, column);
    return node(c);
  }
  BExprPtr column(const Expr& e) {
    int side = -1, col = -1;
    for (size_t s = 0; s < tables_.size(); ++s) {
      if (!e.table.empty() && !iequals(e.table, names_[s])) continue;
      const int c = tables_[s]->find(e.s);
      if (c < 0) continue;
      if (side >= 0) err(e, "column '" + e.s + "' is ambiguous (in more than one table; qualify it)");
      side = int(s);
      col = c;
    }
    if (side < 0) {
      if (outer_ && outer_->resolves(e))
        err(e, "correlated subqueries are not supported ('" + e.text() + "' reads a table of the enclosing query)");
      if (!e.table.empty()) {
        bool known = false;
        for (const std::string& n : names_) known |= iequals(n, e.table);
        if (!known) err(e, "no table '" + e.table + "' in FROM/JOIN");
      }
      err(e, "no column '" + e.text() + "'");
    }
    BExpr c;
    c.kind = BExpr::Col;
    c.side = uint32_t(side);
    c.column = uint32_t(col);
    c.type = tables_[size_t(side)]->columns[size_t(col)].type;
    return node(c);
  }
  BExprPtr aggregate(const Expr& e) {
    AggPlan a;
    a.fn = e.agg;
    a.star = e.star;
    a.distinct = e.distinct && e.agg == AggFn::Count;  // MIN/MAX(DISTINCT x) are MIN/MAX(x)
    if (!e.star) {
      if (has_aggregate(*e.args[0])) err(e, "aggregates cannot be nested");
      a.arg = bind(*e.args[0], false);
      if (a.fn != AggFn::Count && a.fn != AggFn::Min && a.fn != AggFn::Max && a.arg->type == Type::Text &&
          !is_null_const(a.arg))
        err(e, std::string(agg_name(a.fn)) + " of text is not supported");
    }
    switch (a.fn) {
      case AggFn::Count: a.out = Type::Int; break;
      case AggFn::Avg: a.out = Type::Float; break;
      default: a.out = a.arg->type;
    }
    for (size_t k = 0; k < plan_.aggs.size(); ++k) {
      const AggPlan& o = plan_.aggs[k];
      if (o.fn == a.fn && o.star == a.star && o.distinct == a.distinct && (a.star || same_bound(*o.arg, *a.arg)))
        return with_mixed(a, direct(uint32_t(plan_.keys.size() + k)));
    }
    plan_.aggs.push_back(a);
    return with_mixed(a, direct(uint32_t(plan_.keys.size() + plan_.aggs.size() - 1)));
  }
  // SUM, MIN and MAX of a mixed value are mixed (SQLite's SUM of ints alone is an int).
  static BExprPtr with_mixed(const AggPlan& a, BExprPtr r) {
    if (!a.arg || !a.arg->mixed || a.fn == AggFn::Avg || a.fn == AggFn::Count) return r;
    BExpr c = *r;
    c.mixed = true;
    return node(c);
  }

  const Database& db_;
  Plan& plan_;
  const SubqueryRunner& run_;
  const Binder* outer_;
  std::unordered_map<const Expr*, Plan> subplans_;
  std::unordered_map<const Expr*, std::vector<std::optional<uint64_t>>> subrows_;
  std::unordered_map<const Expr*, Decorrelated> decorrelated_;
  std::unordered_map<const Expr*, Membership> memberships_;
  std::vector<const Table*> tables_;
  std::vector<std::string> names_;
  std::unordered_map<const Expr*, BExprPtr> plain_;  // plain bindings, by node
  std::unordered_map<const Expr*, bool> has_agg_;     // contains_aggregate, by node
  const std::vector<SelectItem>* aliases_ = nullptr;  // while binding HAVING
};

void conjuncts(const ExprPtr& e, std::vector<ExprPtr>& out) {
  if (e->kind == ExprKind::Binary && e->op == "AND") {
    conjuncts(e->args[0], out);
    conjuncts(e->args[1], out);
  } else {
    out.push_back(e);
  }
}

// A LEFT JOIN ON condition besides the key: one on the right table alone (or on no table)
// limits which right rows match; one that reads the left table would keep the left row with
// NULLs where it fails, which the join kernels do not evaluate.
BExprPtr left_join_condition(const Expr& c, Binder& b) {
  BExprPtr bc = truth(c, b.bind(c, false), "a condition");
  if (bc->uses_side(0))
    err(c, "LEFT JOIN ... ON conditions that read the left table are not supported (only the key equality and "
           "conditions on the right table)");
  return bc;
}

// SELECT DISTINCT e1, e2, ... is GROUP BY e1, e2, ... (NULLs one group, as DISTINCT has them).
std::vector<ExprPtr> distinct_keys(const Query& q, bool aggregates) {
  auto refuse = [&](const std::string& what) {
    fail(ErrorCode::BadInput, "sql:" + std::to_string(q.distinct_line) + ":" + std::to_string(q.distinct_col) +
                                  ": SELECT DISTINCT " + what + " is not supported");
  };
  if (aggregates) refuse("with GROUP BY or aggregates");
  std::vector<ExprPtr> keys;
  for (const SelectItem& it : q.select) {
    if (!it.expr) refuse("* (name the columns)");
    keys.push_back(it.expr);
  }
  return keys;
}

// An ORDER BY term of SELECT DISTINCT must be one of the selected expressions (SQLite would
// sort by a value of an arbitrary row of each distinct row).
void require_selected(const Expr& e, Binder& b, const Plan& plan) {
  const BExprPtr be = b.bind(e, false);
  for (const BExprPtr& k : plan.keys)
    if (same_bound(*k, *be)) return;
  err(e, "ORDER BY of SELECT DISTINCT must name a selected expression ('" + e.text() + "' is not one)");
}

BExprPtr and_of(BExprPtr a, BExprPtr b) {
  if (!a) return b;
  BExpr c;
  c.kind = BExpr::And;
  c.args = {a, b};
  return node(c);
}

// a AND b as the parser would build it (b alone when there is no a); its text runs from a to b.
ExprPtr and_expr(ExprPtr a, ExprPtr b) {
  if (!a) return b;
  auto e = std::make_shared<Expr>();
  e->kind = ExprKind::Binary;
  e->op = "AND";
  e->line = a->line;
  e->col = a->col;
  e->source = a->source;
  e->begin = a->begin;
  e->end = std::max(a->end, b->end);
  e->height = std::max(a->height, b->height) + 1;
  e->args = {a, b};
  return e;
}

// A query's FROM as the planner joins it: the query (comma joins rewritten as JOINs) and the
// side of each table in the order the query lists them (SELECT * follows that order).
struct JoinOrder {
  Query query;
  std::vector<uint32_t> side_of_listed;
};

// A comma join (FROM a, b, c WHERE ...) as the inner-join chain it means: the tables in an order
// where each after the first has, among the WHERE conjuncts, an equality `column = column`
// (int = int or text = text, the join keys the device has) with a table before it; that
// conjunct becomes its JOIN's ON, the others stay in WHERE (pushed down or residual, as for
// JOIN). The first table stays first; then, each time, the first table in FROM order that a
// key joins to the tables so far, by the first such conjunct in WHERE order. A table no key
// reaches would be a cross product: refused, named.
JoinOrder with_join_keys(const Query& q, const Database& db, const SubqueryRunner& run, const Binder* outer) {
  std::vector<uint32_t> listed(q.joins.size() + 1);
  for (uint32_t s = 0; s < listed.size(); ++s) listed[s] = s;
  if (q.joins.empty() || q.joins[0].kind != JoinKind::Comma) return {q, listed};
  std::vector<const TableRef*> refs{&q.from};
  for (const JoinClause& j : q.joins) refs.push_back(&j.table);
  std::vector<ExprPtr> conds;
  if (q.where) conjuncts(q.where, conds);

  // The key candidates: conjunct k is `column = column` between tables a and b.
  struct Key {
    size_t cond;
    uint32_t a, b;
  };
  std::vector<Key> keys;
  Plan scratch;
  Binder binder(db, scratch, q, run, outer);
  for (size_t k = 0; k < conds.size(); ++k) {
    const Expr& c = *conds[k];
    if (c.kind != ExprKind::Binary || c.op != "=" || c.args[0]->kind != ExprKind::Column ||
        c.args[1]->kind != ExprKind::Column)
      continue;
    const BExprPtr x = binder.bind(*c.args[0], false), y = binder.bind(*c.args[1], false);
    if (x->side != y->side && x->type == y->type && x->type != Type::Float) keys.push_back({k, x->side, y->side});
  }

  std::vector<bool> joined(refs.size(), false), used(conds.size(), false);
  joined[0] = true;
  Query out = q;
  out.joins.clear();
  out.where = nullptr;
  for (size_t n = 1; n < refs.size(); ++n) {
    std::optional<std::pair<size_t, size_t>> next;  // (table, conjunct)
    for (size_t t = 1; t < refs.size() && !next; ++t) {
      if (joined[t]) continue;
      for (const Key& key : keys)
        if ((key.a == t && joined[key.b]) || (key.b == t && joined[key.a])) {
          next = {t, key.cond};
          break;
        }
    }
    if (!next) {
      const size_t t = size_t(std::find(joined.begin(), joined.end(), false) - joined.begin());
      const TableRef& r = *refs[t];
      fail(ErrorCode::BadInput, "sql:" + std::to_string(r.line) + ":" + std::to_string(r.col) + ": no WHERE equality joins '" +
                                    (r.alias.empty() ? r.name : r.alias) +
                                    "' to the other tables (a comma join needs a key t1.a = t2.b, int = int or text = "
                                    "text, per table); a cross product is not supported");
    }
    const auto [t, cond] = *next;
    listed[t] = uint32_t(n);
    joined[t] = true;
    used[cond] = true;
    JoinClause j = q.joins[t - 1];
    j.kind = JoinKind::Inner;
    j.on = conds[cond];
    out.joins.push_back(j);
  }
  for (size_t k = 0; k < conds.size(); ++k)
    if (!used[k]) out.where = and_expr(out.where, conds[k]);

  return {out, listed};
}

}  // namespace

Plan plan_query(const Query& q, const Database& db, const SubqueryRunner& run) {
  if (!q.with.empty())
    fail(ErrorCode::BadInput, "sql:" + std::to_string(q.with[0].line) + ":" + std::to_string(q.with[0].col) +
                                  ": WITH needs a device to run its tables first");
  return plan_in(q, db, run, nullptr);
}

namespace {

Plan plan_in(const Query& parsed, const Database& db, const SubqueryRunner& run, const Binder* outer) {
  Query query = parsed;
  query.where = factor_or_conjuncts(parsed.where);  // a join key inside every OR branch is a key
  const JoinOrder order = with_join_keys(query, db, run, outer);
  const Query& q = order.query;
  Plan plan;
  Binder b(db, plan, q, run, outer);
  const size_t sides = plan.tables.size();
  plan.scan_filters.assign(sides, nullptr);

  // WHERE and ON conjuncts. Join k's key is the first `column = column` of its ON between side k
  // and an earlier side; conjuncts that read one side go down to that side's scan, the rest
  // filter the joined rows after the last join (inner joins: ON and WHERE conditions alike).
  std::vector<ExprPtr> conds;
  if (q.where) {
    if (has_aggregate(*q.where)) err(*q.where, "aggregates are not allowed in WHERE");
    conjuncts(q.where, conds);
  }
  const bool left = q.joins.size() == 1 && q.joins[0].kind == JoinKind::Left;
  std::vector<BExprPtr> build_only;  // LEFT JOIN: ON conditions on the right table
  for (size_t k = 0; k < q.joins.size(); ++k) {
    const JoinClause& jc = q.joins[k];
    const uint32_t side = uint32_t(k + 1);
    if (has_aggregate(*jc.on)) err(*jc.on, "aggregates are not allowed in ON");
    std::vector<ExprPtr> on;
    conjuncts(jc.on, on);
    std::optional<JoinPlan> key;
    auto refuse_later = [&](const Expr& c, const BExpr& bound) {
      for (uint32_t later = side + 1; later < sides; ++later)
        if (bound.uses_side(later))
          err(c, "JOIN ... ON may read only the tables joined so far ('" + plan.table_names[later] +
                     "' is joined after it)");
    };
    for (const ExprPtr& c : on) {
      // The key: the first column = column between this side and an earlier one (bound one by
      // one, so that a type mismatch is reported as such rather than hidden behind a conversion).
      BExprPtr x, y;
      if (!key && c->kind == ExprKind::Binary && c->op == "=" && c->args[0]->kind == ExprKind::Column &&
          c->args[1]->kind == ExprKind::Column) {
        x = b.bind(*c->args[0], false);
        y = b.bind(*c->args[1], false);
      }
      if (x && y && x->side != y->side && (x->side == side || y->side == side)) {
        const BExpr& l = x->side == side ? *y : *x;
        const BExpr& r = x->side == side ? *x : *y;
        refuse_later(*c, l);
        if (l.type != r.type || l.type == Type::Float)
          err(*c, "join keys must both be int or both be text (got " + std::string(type_name(l.type)) + " and " +
                      type_name(r.type) + ")");
        key = JoinPlan{l.side, l.column, r.side, r.column, l.type, left};
        continue;
      }
      refuse_later(*c, *b.bind(*c, false));
      if (left) {
        build_only.push_back(left_join_condition(*c, b));
        continue;
      }
      conds.push_back(c);
    }
    if (!key)
      err(*jc.on, side == 1 ? "JOIN ... ON needs an equality between a column of each table (t1.a = t2.b)"
                            : "JOIN ... ON needs an equality between a column of '" + plan.table_names[side] +
                                  "' and a column of a table joined before it (t1.a = t3.b)");
    plan.joins.push_back(*key);
  }
  // A LEFT JOIN's ON conditions on the right table filter the rows that may match (the build
  // scan); its WHERE conditions that read the right table see the NULL-extended rows, so they
  // filter the joined rows.
  for (const BExprPtr& bc : build_only) plan.scan_filters[1] = and_of(plan.scan_filters[1], bc);
  for (const ExprPtr& c : conds) {
    BExprPtr bc = truth(*c, b.bind(*c, false), "a condition");
    std::vector<uint32_t> used;
    for (uint32_t s = 0; s < sides; ++s)
      if (bc->uses_side(s)) used.push_back(s);
    if (used.size() > 1 || (left && !used.empty() && used[0] == 1)) plan.residual = and_of(plan.residual, bc);
    else {
      const size_t s = used.empty() ? 0 : used[0];
      plan.scan_filters[s] = and_of(plan.scan_filters[s], bc);
    }
  }

  // Aggregation.
  bool any_agg = !q.group_by.empty();
  for (const SelectItem& it : q.select) any_agg |= it.expr && has_aggregate(*it.expr);
  for (const OrderItem& o : q.order_by) any_agg |= has_aggregate(*o.expr);
  any_agg |= q.having != nullptr;
  const std::vector<ExprPtr> group_by = q.distinct ? distinct_keys(q, any_agg) : q.group_by;
  plan.aggregate = any_agg || q.distinct;
  for (const ExprPtr& g : group_by) {
    if (has_aggregate(*g)) err(*g, "aggregates are not allowed in GROUP BY");
    if (g->kind == ExprKind::Int && !q.distinct) err(*g, "GROUP BY position is not supported; name the expression");
    plan.keys.push_back(b.bind(*g, false));
    refuse_mixed(*g, *plan.keys.back(), "a GROUP BY key");
  }

  if (q.having) {
    b.allow_aliases(&q.select);
    plan.having = truth(*q.having, b.bind(*q.having, true), "HAVING");
    b.allow_aliases(nullptr);
  }

  // Outputs.
  std::vector<std::string> aliases;
  for (const SelectItem& it : q.select) {
    if (!it.expr) {
      if (plan.aggregate) fail(ErrorCode::BadInput, "sql: SELECT * cannot be combined with GROUP BY or aggregates");
      for (const uint32_t s : order.side_of_listed) {
        const Table& t = *b.tables()[s];
        for (size_t c = 0; c < t.columns.size(); ++c) {
          BExpr col;
          col.kind = BExpr::Col;
          col.side = uint32_t(s);
          col.column = uint32_t(c);
          col.type = t.columns[c].type;
          plan.outputs.push_back(node(col));
          plan.names.push_back(t.columns[c].name);
          aliases.push_back("");
        }
      }
      continue;
    }
    plan.outputs.push_back(b.bind(*it.expr, plan.aggregate));
    refuse_mixed(*it.expr, *plan.outputs.back(), "a result column");
    plan.names.push_back(!it.alias.empty() ? it.alias : it.expr->kind == ExprKind::Column ? it.expr->s : it.expr->text());
    aliases.push_back(it.alias);
  }
  plan.visible = plan.outputs.size();

  for (const OrderItem& o : q.order_by) {
    const Expr& e = *o.expr;
    if (e.kind == ExprKind::Int) {
      if (e.i < 1 || uint64_t(e.i) > plan.visible)
        err(e, "ORDER BY term " + std::to_string(e.i) + " is out of range (1.." + std::to_string(plan.visible) + ")");
      plan.order.push_back({uint32_t(e.i - 1), o.desc});
      continue;
    }
    if (e.kind == ExprKind::Column && e.table.empty()) {
      bool found = false;
      for (size_t k = 0; k < aliases.size() && !found; ++k)
        if (!aliases[k].empty() && iequals(aliases[k], e.s)) {
          plan.order.push_back({uint32_t(k), o.desc});
          found = true;
        }
      if (found) continue;
    }
    if (q.distinct) require_selected(e, b, plan);
    BExprPtr be = b.bind(e, plan.aggregate);
    uint32_t idx = uint32_t(plan.outputs.size());
    for (size_t k = 0; k < plan.outputs.size(); ++k)
      if (same_bound(*plan.outputs[k], *be)) idx = uint32_t(k);
    if (idx == plan.outputs.size()) plan.outputs.push_back(be);
    plan.order.push_back({idx, o.desc});
  }
  plan.limit = q.limit;
  plan.offset = q.offset;
  return plan;
}

std::string show(const BExpr& e, const Plan& p, const Database& db) {
  auto a = [&](size_t k) { return show(*e.args[k], p, db); };
  switch (e.kind) {
    case BExpr::Const: {
      if (e.null) return "NULL";
      if (e.type == Type::Int) return std::to_string(int64_t(e.bits));
      if (e.type == Type::Float) {
        double d;
        std::memcpy(&d, &e.bits, 8);
        std::ostringstream s;
        s << d;
        return s.str();
      }
      return (e.bits & 1) ? "'<absent text, code " + std::to_string(int64_t(e.bits)) + ">'"
                          : "'" + db.decode(int64_t(e.bits)) + "'";
    }
    case BExpr::Col:
      if (e.side == kSideDirect)
        return e.column < p.keys.size() ? "key" + std::to_string(e.column) : "agg" + std::to_string(e.column - p.keys.size());
      return p.table_names[e.side] + "." + db.table(size_t(p.tables[e.side])).columns[e.column].name;
    case BExpr::Neg: return "-(" + a(0) + ")";
    case BExpr::Not: return "NOT (" + a(0) + ")";
    case BExpr::ToFloat: return "float(" + a(0) + ")";
    case BExpr::ToInt: return "int(" + a(0) + ")";
    case BExpr::Abs: return "abs(" + a(0) + ")";
    case BExpr::Round: return "round(" + a(0) + ")";
    case BExpr::Choose: return "(CASE WHEN " + a(0) + " THEN " + a(1) + " ELSE " + a(2) + " END)";
    case BExpr::IsNull: return "(" + a(0) + (e.negated ? " IS NOT NULL)" : " IS NULL)");
    case BExpr::InSet: return "(" + a(0) + (e.negated ? " NOT " : " ") + e.op + ")";
    case BExpr::Map:
      if (!e.map->label.empty())
        return e.map->label + "(" + a(0) + ") [lookup of " + std::to_string(e.map->codes.size()) + " groups]";
      return e.map->fn.describe(a(0)) + " [map of " + std::to_string(e.map->codes.size()) + " strings]";
    case BExpr::InValues:
      return "(" + a(0) + (e.negated ? " NOT " : " ") + e.op + ": " + std::to_string(e.values->rows) + " rows, " +
             std::to_string(e.values->sorted.size()) + " distinct values" + (e.values->any_null ? ", NULL" : "") + ")";
    case BExpr::And: return "(" + a(0) + " AND " + a(1) + ")";
    case BExpr::Or: return "(" + a(0) + " OR " + a(1) + ")";
    default: return "(" + a(0) + " " + e.op + " " + a(1) + ")";
  }
}

}  // namespace

std::string Plan::explain(const Database& db) const {
  std::ostringstream o;
  for (size_t s = 0; s < tables.size(); ++s) {
    const Table& t = db.table(size_t(tables[s]));
    o << "scan+filter[" << s << "] " << t.name << " as " << table_names[s] << " (" << t.rows << " rows)";
    if (scan_filters[s]) o << " where " << show(*scan_filters[s], *this, db);
    o << "\n";
  }
  for (const JoinPlan& join : joins) {
    const Table& l = db.table(size_t(tables[join.probe_side]));
    const Table& r = db.table(size_t(tables[join.build_side]));
    o << (join.left ? "left join " : "join ") << table_names[join.probe_side] << "." << l.columns[join.probe_column].name
      << " = " << table_names[join.build_side] << "." << r.columns[join.build_column].name << " (build side "
      << table_names[join.build_side]
      << "; nested loop, switched to hash join on the device when the filtered build side exceeds the threshold)\n";
  }
  if (residual) o << "filter " << show(*residual, *this, db) << "\n";
  if (aggregate) {
    o << "aggregate group by [";
    for (size_t k = 0; k < keys.size(); ++k) o << (k ? ", " : "") << "key" << k << "=" << show(*keys[k], *this, db);
    o << "] aggregates [";
    for (size_t k = 0; k < aggs.size(); ++k)
      o << (k ? ", " : "") << "agg" << k << "=" << agg_name(aggs[k].fn) << "(" << (aggs[k].distinct ? "DISTINCT " : "")
        << (aggs[k].star ? std::string("*") : show(*aggs[k].arg, *this, db)) << ")";
    o << "] (COUNT = 0 rule: anomaly status)\n";
    if (having) o << "having " << show(*having, *this, db) << "\n";
  }
  o << "project [";
  for (size_t k = 0; k < outputs.size(); ++k)
    o << (k ? ", " : "") << (k < visible ? names[k] : "(sort key)") << "=" << show(*outputs[k], *this, db);
  o << "]\n";
  if (!order.empty()) {
    o << "sort by [";
    for (size_t k = 0; k < order.size(); ++k) o << (k ? ", " : "") << "#" << order[k].output + 1 << (order[k].desc ? " desc" : " asc");
    o << "]\n";
  }
  if (limit || offset) o << "limit " << (limit ? std::to_string(*limit) : "none") << " offset " << offset << "\n";
  return o.str();
}

}  // namespace weft::db
