// The planner: binds a parsed Query to a Database (names, types, NULL literals) and lays out the
// plan the device executes:
//
//   scan[side] (fused scan+filter, WHERE conjuncts pushed down) -> [join steps, one per table
//   after the first (inner, or one left join of two tables): nested loop or hash, chosen on the
//   device per step by a cardinality rule] -> residual filter -> [group-by aggregate] ->
//   projection (outputs + hidden ORDER BY keys) -> sort -> limit/offset.
//
// A comma join (FROM a, b, ...) is planned as the inner-join chain, its keys found among the WHERE
// conjuncts. Uncorrelated subqueries (x IN (SELECT ...), EXISTS) are planned here and run through
// a SubqueryRunner before the rest is bound: their rows enter the plan as constants. Correlated
// EXISTS, IN and scalar aggregate subqueries run the same way, grouped by their correlation keys, and
// enter the plan as lookups of those groups (decorrelate.h).
//
// Typing follows SQLite on typed columns: Int op Int -> Int (integer division truncates; x/0 and
// x%0 are NULL), any Float operand -> Float (x/0.0 is NULL; a NaN result is NULL), comparisons
// -> Int 0/1, Int vs Float compares exactly (not in double). Text supports comparisons (between
// Text values), LIKE and the text functions of text_functions.h (a Map node each). Aggregates skip NULLs;
// COUNT(*) counts rows; SUM/MIN/MAX/AVG of no values are NULL; COUNT of none is 0; SUM of Int is an
// Int (overflow is an error, as in SQLite), AVG is a Float. Vulkan-free.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql.h"
#include "table.h"
#include "text_functions.h"

namespace weft::db {

// Where a bound column lives: a base table of the FROM/JOINs (side 0 .. kMaxTables - 1, in query
// order), or a column computed by an earlier stage (kSideDirect: group keys then aggregates,
// indexed by group). The same numbers as DB_SIDE_DIRECT / DB_MAX_SIDES in shaders/db_ops.h.
inline constexpr uint32_t kSideDirect = uint32_t(kMaxTables);

struct BExpr;
using BExprPtr = std::shared_ptr<const BExpr>;

// The values of an uncorrelated `x IN (SELECT ...)` subquery, run before the query that holds
// it, in x's type: sorted distinct int64 / Text codes (x Int or Text) or doubles (x Float), kept
// only where they can equal an x of that type (an Int x drops 1.5; a Float x drops ints no
// double equals). `rows` and `any_null` keep what SQLite's IN needs besides: an empty result
// makes IN false even for a NULL x, a NULL among the rows makes a miss NULL.
struct ValueSet {
  std::vector<uint64_t> sorted;  // int64 / Text code / double bits, ascending by value
  bool any_null = false;
  uint64_t rows = 0;
};

// A text function of a Text operand (text_functions.h), evaluated on the host once per string the
// operand can hold (a column's distinct strings, or an inner function's results): `codes`
// ascending, `results[k]` the function's value of string codes[k] (a Text code of the shared
// dictionary, which holds every derived string, or an int64). A string whose result is NULL has
// no entry: the device's lookup (DB_OP_MAP) gives NULL for a code it does not find.
struct CodeMap {
  TextFunction fn;
  std::vector<uint64_t> codes, results;
  std::vector<std::string> texts;  // Text results: the distinct strings, sorted
  // A correlated subquery's lookup (decorrelate.h) rather than a text function (fn unused): what
  // it gives, for --explain.
  std::string label;
};

struct BExpr {
  // Choose: args {condition, value, otherwise} (CASE, coalesce); ToInt: double -> int64 as SQLite's
  // CAST (truncating, saturating); Abs; Round: SQLite's round(x) of a double. InSet: whether a
  // Text code is in `set` (LIKE, evaluated on the host against the dictionary); NULL stays NULL.
  // InValues: x [NOT] IN (SELECT ...) over `values`, SQLite's three-valued IN; op names the
  // subquery (its text), so that equal subqueries compare equal. Map: `map` applied to args[0]
  // (a Text column or another Map); op is the call's text with 'x' for the operand.
  enum Kind { Const, Col, Neg, Not, Arith, Compare, And, Or, IsNull, ToFloat, ToInt, Choose, Abs, Round, InSet, InValues, Map } kind = Const;
  Type type = Type::Int;
  bool null = false;     // Const: NULL
  uint64_t bits = 0;     // Const: int64 / double bits / text code
  uint32_t side = 0, column = 0;  // Col
  std::string op;        // Arith: + - * / %; Compare: = != < <= > >= (operands Int/Float mixed or alike)
  bool negated = false;  // IsNull: IS NOT NULL; InSet, InValues: not in the set
  // InSet: bit k of word k/32 set when dictionary string k (code 2k) is in the set; op names the
  // set's source (LIKE 'pattern' [ESCAPE 'c']), so that equal sources compare equal.
  std::shared_ptr<const std::vector<uint32_t>> set;
  std::shared_ptr<const ValueSet> values;  // InValues
  std::shared_ptr<const CodeMap> map;      // Map
  std::vector<BExprPtr> args;
  // A Float that holds ints exactly where SQLite's value would be an int: a CASE of int and
  // float values (its type is the row's branch's), and SUM/MIN/MAX of one. Only consumers that
  // give SQLite's answer either way take it (comparisons, conditions, arithmetic with a float,
  // SUM/MIN/MAX/AVG); a result column or GROUP BY key of one is refused.
  bool mixed = false;
  bool uses_side(uint32_t s) const;
};

struct AggPlan {
  AggFn fn = AggFn::Count;
  bool star = false;   // COUNT(*)
  bool distinct = false;  // COUNT(DISTINCT arg): counts the first row of each distinct (keys, arg)
  BExprPtr arg;        // over input rows (null for COUNT(*))
  Type out = Type::Int;
};

// Join step k (Plan::joins[k - 1]) joins side k (the build side) to the rows of sides 0..k-1
// joined so far (the probe side): a key column of side k equals a column of an earlier side.
struct JoinPlan {
  uint32_t probe_side = 0;    // < build_side
  uint32_t probe_column = 0;  // of probe_side
  uint32_t build_side = 1;
  uint32_t build_column = 0;  // of build_side
  Type key = Type::Int;
  // LEFT JOIN: a probe row that matches no build row is kept once, its side-1 row id DB_NONE,
  // which every column read of side 1 takes as NULL.
  bool left = false;
};

struct SortKey {
  uint32_t output = 0;  // index into Plan::outputs
  bool desc = false;
};

struct Plan {
  std::vector<int> tables;                 // database table index of each side
  std::vector<std::string> table_names;    // as written in the query (aliases)
  std::vector<BExprPtr> scan_filters;      // per side, null when none
  std::vector<JoinPlan> joins;             // one per side after the first, in side order
  BExprPtr residual;                       // over joined rows (after the last join), null when none
  bool aggregate = false;
  std::vector<BExprPtr> keys;              // GROUP BY, over input rows
  std::vector<AggPlan> aggs;
  BExprPtr having;                         // over the groups, null when none
  std::vector<BExprPtr> outputs;           // visible columns first, then hidden sort keys
  size_t visible = 0;
  std::vector<std::string> names;          // of the visible columns
  std::vector<SortKey> order;
  std::optional<int64_t> limit;
  int64_t offset = 0;

  // Text plan for --explain.
  std::string explain(const Database& db) const;
};

// Runs an uncorrelated subquery's plan (the executor's own program and submission, on the same
// database) and returns its first column, one value per row: int64, double bits or Text code,
// nullopt for NULL.
using SubqueryRunner = std::function<std::vector<std::optional<uint64_t>>(const Plan&)>;

// Without a runner, IN (SELECT ...) and EXISTS are refused (the planner alone cannot run them).
Plan plan_query(const Query& query, const Database& db, const SubqueryRunner& run = nullptr);
inline Plan plan_sql(const std::string& sql, const Database& db) { return plan_query(parse_sql(sql), db); }

// Type of a grouped column of side kSideDirect: keys first, then aggregates.
Type direct_type(const Plan& plan, uint32_t column);

}  // namespace weft::db
