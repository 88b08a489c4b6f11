// Derived tables and WITH: `FROM (SELECT ...) alias` and `WITH name AS (SELECT ...) ... FROM name`
// run as prior passes. Each inner query runs once, before the query that reads it is planned;
// its rows become a table of the Database (typed columns, Text through the shared dictionary)
// that the rewritten query names like any base table. Vulkan-free: the runner is given.
#pragma once

#include <functional>

#include "sql.h"
#include "table.h"

namespace weft::db {

// Runs a query (itself free of derived tables) and returns its result as a table: one column per
// output, named and typed as the query's result, Text as strings. The name is left empty.
using TableRunner = std::function<Table(const Query&)>;

// `q` with every derived table and common table it reads (in FROM and JOIN, in its WITH entries,
// in its subqueries at any depth) replaced by a table added to `db` and named "(derived N)"
// (only a quoted identifier spells it; N skips names taken); the alias stays (a common table named without an alias keeps its
// name as the alias). A common table runs once however often it is named. The column names are
// the inner select list's (aliases, a bare column's name, else the expression's text) or a WITH
// entry's column list; two columns of one name are refused, as is a column list of another
// length. Without a runner any derived table is refused. Queries without any return unchanged.
Query materialize_derived(const Query& q, Database& db, const TableRunner& run);

}  // namespace weft::db
