// WHERE rewrites the planner makes before it looks for join keys. Vulkan-free.
#pragma once

#include "sql.h"

namespace weft::db {

// `(A AND k) OR (B AND k) OR ...` as `k AND (A OR B OR ...)`: a conjunct every branch of an OR
// holds (same_expr, or an equality with its sides swapped) is taken out of it, so that a join key
// written into each branch (TPC-H Q19) is a conjunct the join planner finds. Exact under SQL's
// three-valued logic (AND and OR distribute over each other there too); a branch left with
// nothing makes the OR true given k, so only k remains. Applied to each conjunct of `where`;
// null stays null.
ExprPtr factor_or_conjuncts(const ExprPtr& where);

}  // namespace weft::db
