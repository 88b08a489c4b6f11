// The SQL subset: one SELECT over one table, a chain of up to kMaxTables tables joined by inner
// equi-JOINs (or listed with commas, the keys in WHERE), or two tables joined by a LEFT JOIN.
//
//   SELECT [ALL|DISTINCT] [*|expr [[AS] alias], ...] FROM table [[AS] alias]
//   [[INNER|LEFT [OUTER]] JOIN table [[AS] alias] ON expr] [[INNER] JOIN table [[AS] alias] ON expr ...]
//   | [, table [[AS] alias] ...]
//   [WHERE expr] [GROUP BY expr, ...] [HAVING expr] [ORDER BY expr|position|alias [ASC|DESC], ...]
//   [LIMIT n [OFFSET m]] [;]
//
// expr: literals (integers, decimals, 'strings', NULL), [table.]column, + - * / %, unary -,
// = == != <> < <= > >=, IS [NOT] NULL, x IS [NOT] y, [NOT] BETWEEN, [NOT] IN (list), [NOT] LIKE [ESCAPE], NOT,
// AND, OR, CASE [x] WHEN .. THEN .. [ELSE ..] END, CAST(e AS INTEGER|REAL), the scalar functions
// abs, round, coalesce, ifnull and nullif, the text functions lower, upper, length, instr, substr/substring
// (and substring(x FROM s [FOR n])), date, strftime, EXTRACT(YEAR|MONTH|DAY FROM x) and x || y
// (text_functions.h; a call of constants is folded here), parentheses, x [NOT] IN (SELECT ...) and [NOT] EXISTS (SELECT ...)
// (a whole query of its own), and the aggregates COUNT(*), COUNT(e), COUNT(DISTINCT e), SUM(e),
// MIN(e), MAX(e), AVG(e). Keywords are case-insensitive and reserved
// (never an alias: `FROM l LEFT JOIN r` must not read LEFT as l's alias). Comments: -- to the end of the
// line and /* ... */. FROM and JOIN also take a derived table `(SELECT ...) [AS] alias`, and the
// main query may start with `WITH name [(columns)] AS (SELECT ...), ...` (derived.h runs both). Every syntax error, and every SQL form outside the subset, is a BadInput
// error "sql:line:col: message" that names it. Vulkan-free.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace weft::db {

struct Expr;
using ExprPtr = std::shared_ptr<Expr>;
struct Query;

// Call: a scalar function (s: its name in lower case). Case: args are WHEN condition, THEN value
// pairs then the ELSE value (a Null node when absent); CASE x WHEN a ... is parsed as WHEN x = a.
// Cast: s is the type name as written (upper case). Like: args are the operand, the pattern and
// (with ESCAPE) the escape character; negated: NOT LIKE. InSelect: x [NOT] IN (SELECT ...), args
// {x}; Exists: [NOT] EXISTS (SELECT ...), no args; Scalar: (SELECT ...) as a value, no args; all
// three hold the subquery in `subquery`.
enum class ExprKind { Int, Float, String, Null, Column, Unary, Binary, IsNull, Aggregate, Star, Call, Case, Cast, Like, InSelect, Exists, Scalar };
enum class AggFn { Count, Sum, Min, Max, Avg };
const char* agg_name(AggFn f);

struct Expr {
  ExprKind kind = ExprKind::Null;
  std::string op;        // Unary: "-" "NOT"; Binary: "+" "-" "*" "/" "%" "=" "!=" "<" "<=" ">" ">=" "AND" "OR"
                         // "IS" "IS NOT" (x IS y: NULLs compare equal)
  int64_t i = 0;         // Int literal
  double f = 0;          // Float literal
  std::string s;         // String literal; Column: column name
  std::string table;     // Column: qualifier ("" when none)
  bool negated = false;  // IsNull: IS NOT NULL; Like: NOT LIKE; InSelect: NOT IN; Exists: NOT EXISTS
  AggFn agg = AggFn::Count;
  bool star = false;     // COUNT(*)
  bool distinct = false; // Aggregate: COUNT(DISTINCT e), MIN/MAX(DISTINCT e)
  std::vector<ExprPtr> args;
  std::shared_ptr<const Query> subquery;  // InSelect, Exists, Scalar
  size_t line = 0, col = 0;  // where it starts
  size_t height = 1;         // levels of operators below and including this node
  // Source text (column names of the result, error messages): offsets into the shared query
  // text, so that a long operator chain does not hold one copy of its text per node.
  std::shared_ptr<const std::string> source;
  size_t begin = 0, end = 0;
  std::string text() const { return source ? source->substr(begin, end - begin) : std::string(); }
};

struct SelectItem {
  ExprPtr expr;  // nullptr for *
  std::string alias;
};

// A table of FROM or JOIN: a base table or common table expression by name, or a derived table
// `(SELECT ...) [AS] alias` (`derived` set, name empty), which runs first (derived.h).
struct TableRef {
  std::string name, alias;
  std::shared_ptr<const Query> derived;
  size_t line = 0, col = 0;
};

// One `name [(column, ...)] AS (SELECT ...)` of a WITH clause (non-recursive): a derived table
// that FROM and JOIN name, in the main query, its subqueries and the WITH entries after it.
struct CommonTable {
  std::string name;
  std::vector<std::string> columns;  // empty: the select list's names
  std::shared_ptr<const Query> query;
  size_t line = 0, col = 0;
};

// Comma: `FROM a, b, ...`, an inner join without ON; the planner takes its key from WHERE.
enum class JoinKind { Inner, Left, Comma };

// Tables one query may join (FROM and up to kMaxTables - 1 JOINs); the device's row tuples hold
// one row id per table (DB_MAX_SIDES in shaders/db_ops.h).
inline constexpr size_t kMaxTables = 8;

// One `[INNER | LEFT] JOIN table ON expr` (or `, table`: no ON); line/col: where its first
// keyword (the comma) starts.
struct JoinClause {
  TableRef table;
  JoinKind kind = JoinKind::Inner;
  size_t line = 0, col = 0;
  ExprPtr on;
};

struct OrderItem {
  ExprPtr expr;
  bool desc = false;
};

struct Query {
  std::vector<CommonTable> with;  // the main query's WITH clause
  bool distinct = false;  // SELECT DISTINCT (planned as GROUP BY of the selected expressions)
  size_t distinct_line = 0, distinct_col = 0;
  std::vector<SelectItem> select;
  TableRef from;
  std::vector<JoinClause> joins;  // in query order: joins[k] adds table k + 1
  ExprPtr where;
  std::vector<ExprPtr> group_by;
  ExprPtr having;
  std::vector<OrderItem> order_by;
  std::optional<int64_t> limit;
  int64_t offset = 0;
};

Query parse_sql(const std::string& sql);

// Modifications of a table (modify.cpp runs them):
//
//   INSERT INTO table [(column, ...)] VALUES (expr, ...) [, (expr, ...) ...] [;]
//   INSERT INTO table [(column, ...)] SELECT ... [;]
//   UPDATE table SET column = expr [, column = expr ...] [WHERE expr] [;]
//   DELETE FROM table [WHERE expr] [;]
//
// The other forms (INSERT OR ..., DEFAULT VALUES, RETURNING, UPDATE ... FROM, ORDER BY / LIMIT in
// UPDATE and DELETE, a WITH clause, an alias of the table) are refused by name, "sql:line:col".
enum class ModificationKind { Insert, Update, Delete };

// `column = value` of UPDATE's SET; line/col: where the column name starts.
struct Assignment {
  std::string column;
  ExprPtr value;
  size_t line = 0, col = 0;
};

struct ModificationStatement {
  ModificationKind kind = ModificationKind::Insert;
  std::string table;
  size_t table_line = 0, table_col = 0;
  // INSERT: the column list as written (empty: every column in table order), and either the
  // VALUES rows or the SELECT.
  std::vector<std::string> columns;
  std::vector<std::pair<size_t, size_t>> column_at;  // line, col of each listed column
  std::vector<std::vector<ExprPtr>> values;
  std::vector<std::pair<size_t, size_t>> row_at;  // line, col of each VALUES row's '('
  std::shared_ptr<const Query> select;
  size_t select_line = 0, select_col = 0;
  std::vector<Assignment> set;  // UPDATE
  ExprPtr where;                // UPDATE, DELETE; null when absent
};

// Whether the statement starts with INSERT, UPDATE or DELETE (comments and blanks before it
// skipped); false for text that does not lex (the SELECT parser then reports it).
bool is_modification(const std::string& sql);
ModificationStatement parse_modification(const std::string& sql);

// Structural equality (GROUP BY matching): same tree, literals and (case-insensitive) names.
bool same_expr(const Expr& a, const Expr& b);

}  // namespace weft::db
