// Correlated subqueries, decorrelated into what the device runs: the subquery grouped by its
// correlation keys runs once, first (a grouped query of its own), and its groups become lookup
// tables (DB_OP_MAP) that the enclosing query probes per row with its side of the keys.
//
//   EXISTS (SELECT ... FROM t WHERE t.k1 = o.k1 AND ... [AND t.x OP o.y] [AND conditions on t])
//     -> the groups of t by (k1, ...); without `t.x OP o.y`, EXISTS is "o's key has a group";
//        with it, MIN(t.x) / MAX(t.x) per group decide it (x < y: MIN(x) < y; x > y: MAX(x) > y;
//        x <> y: MIN(x) <> y OR MAX(x) <> y), since an equality group either holds such a row or not.
//   (SELECT f(aggregates) FROM t WHERE t.k = o.k ...) -> f per group; a key with no group takes the
//        value of f over no rows (NULL, or 0 for COUNT), as SQLite computes it per row.
//   x [NOT] IN (SELECT y FROM t WHERE t.k = o.k ... [AND conditions on t])
//     -> the groups of t by k (no group: IN is 0), whether a group holds a NULL y (a miss is then
//        NULL), and the groups of t by (k, y) with y not NULL (a hit: (o.k, x) is one of them).
//
// Keys compare int with int or text with text (a NULL key is in no group, as `=` with NULL is never
// true). One key is looked up by value; several keys by the dense rank of each, combined into
// one number (rank0 * n1 + rank1 ...). Other correlated forms (an outer column outside WHERE, in
// an OR, several non-equality conditions, a comparison in an IN subquery) are refused by name.
// Vulkan-free.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan.h"
#include "sql.h"
#include "table.h"

namespace weft::db {

// `inner OP outer`, op one of = != < <= > >= (flipped when the query wrote the outer side first).
struct CorrelatedComparison {
  ExprPtr inner, outer;
  std::string op;
  const Expr* at = nullptr;  // the conjunct, for messages
};

// A subquery's WHERE split: inner_keys[k] = outer_keys[k] (k >= 1 of them), at most one other
// comparison of an inner with an outer expression, and the conjuncts that read only the
// subquery's own tables (inner_where, null when none).
struct Correlation {
  std::vector<ExprPtr> inner_keys, outer_keys;
  std::optional<CorrelatedComparison> compare;
  ExprPtr inner_where;
};

// nullopt when the subquery's WHERE reads no column of an enclosing query (a column none of its
// own tables has); else its split, or a BadInput error naming the conjunct Weft cannot split.
// GROUP BY, HAVING, LIMIT and OFFSET in a correlated subquery are refused.
std::optional<Correlation> split_correlation(const Expr& subquery, const Database& db);

// SELECT <select> FROM (the subquery's tables) WHERE inner_where AND every inner key IS NOT NULL
// GROUP BY the inner keys ORDER BY the inner keys: one row per group, in key order.
Query grouped_query(const Expr& subquery, const Correlation& c, ExprPtr select);
// The subquery over no rows (WHERE inner_where AND 0): its value where the enclosing row has no
// group.
Query empty_query(const Expr& subquery, const Correlation& c);
// MIN(x) or MAX(x) as a node of the subquery's text.
ExprPtr min_or_max(AggFn fn, const ExprPtr& x);
// MAX(y IS NULL): 1 for a group that holds a NULL y (a correlated IN's miss is then NULL).
ExprPtr any_null(const ExprPtr& y);

// One column of a grouped query's rows: int64 / double bits / Text code, nullopt for NULL.
using Column64 = std::vector<std::optional<uint64_t>>;

// The groups' keys as the numbers the lookups take: one key, its value; several, the combined
// dense ranks. `ranks[j]` (several keys) maps key j's values to their rank among key j's
// distinct values, `radix[j]` their count.
struct GroupCodes {
  std::vector<uint64_t> codes;  // per group row
  std::vector<std::shared_ptr<const CodeMap>> ranks;
  std::vector<uint64_t> radix;
};
GroupCodes group_codes(const std::vector<Column64>& keys, const Expr& at);
// BadInput unless every key column has a value in every row and all have one length (what a
// runner that ran the grouped queries returns).
void check_group_keys(const std::vector<Column64>& keys, const Expr& at);

// code -> value for every group whose value is not NULL (a Float NaN is NULL), sorted by code
// as the device's binary search reads it (signed).
std::shared_ptr<const CodeMap> lookup_map(const std::vector<uint64_t>& codes, const Column64& values, Type type,
                                          const std::string& label);

}  // namespace weft::db
