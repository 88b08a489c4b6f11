/* Arguments of the database kernels, shared by C++ (program.cpp) and GLSL (bindings_layout/weft_args.h).
 *
 * Every argument is a Globals word unless it says otherwise. Row sets pass a count word and a
 * row-id table (db_ops.h: one row-id list per side, absent: the identity; the stage declares the
 * lists it points to); columns pass a values segment
 * (2 words per row; a WEFT_REF_IN, as base-table columns may be far) and a NULL bitmap (absent:
 * no NULLs). Tables that hold further word offsets
 * (descriptors, the bytecode, term, key and aggregate tables) are read through those offsets:
 * the stage declares the segments they point to besides its arguments. `err` is the query's
 * error word (DB_ERROR_* bits). */
#ifndef DB_ARGS_H
#define DB_ARGS_H
#include "weft_args.h"

/* filter: evaluates the bytecode predicate (`code`, `ninstr` instructions; absent/0: every row
 * passes; columns through the descriptors at `desc`) on `rows` input rows (or the count at
 * `in_count`; row-id table `in_ids`) and appends the passing rows to the lists of the output's
 * row-id table `out_ids` (its sides: those with a list). */
#define DB_FILTER_ARGS(X)                                                                                          \
  X(WEFT_IN(Globals), code) X(WEFT_U32, ninstr) X(WEFT_IN(Globals), desc) X(WEFT_IN(Globals), in_count)             \
  X(WEFT_IN(Globals), in_ids) X(WEFT_OUT(Globals), out_count) X(WEFT_IN(Globals), out_ids) X(WEFT_OUT(Globals), err) \
  X(WEFT_U32, rows)
/* filter_terms: a scan's conjunction of `column <cmp> constant` / IS [NOT] NULL terms (`nterms`
 * terms of DB_TERM_WORDS at `terms`) over `rows` base rows: the passing row ids. */
#define DB_FILTER_TERMS_ARGS(X)                                                                             \
  X(WEFT_IN(Globals), terms) X(WEFT_U32, nterms) X(WEFT_OUT(Globals), out_count) X(WEFT_OUT(Globals), out_ids) \
  X(WEFT_U32, rows)
/* project: evaluates one expression (as filter) for every input row into a computed column
 * (`out_values`, `out_nulls`) indexed by the row's position. */
#define DB_PROJECT_ARGS(X)                                                                                       \
  X(WEFT_IN(Globals), code) X(WEFT_U32, ninstr) X(WEFT_IN(Globals), desc) X(WEFT_IN(Globals), in_count)           \
  X(WEFT_IN(Globals), in_ids) X(WEFT_OUT(Globals), out_values) X(WEFT_OUT(Globals), out_nulls)                   \
  X(WEFT_OUT(Globals), err) X(WEFT_U32, rows)
/* report: the instance's Metrics record: rows in (the word `rows_in`, absent: `rows_in_static`),
 * rows out, error bits and, for joins, the strategy that ran, read from the Control word of the
 * nested-loop indirect slot (`nested_slot`, absent: not a join). */
#define DB_REPORT_ARGS(X)                                                                        \
  X(WEFT_IN(Globals), rows_in) X(WEFT_U32, rows_in_static) X(WEFT_IN(Globals), rows_out) X(WEFT_IN(Globals), err) \
  X(WEFT_IN(Control), nested_slot)
/* join_nested: one join step (join.glsl). Every probe tuple (the `probe_count` positions of the
 * row set whose row-id table is `probe_ids`, at most `probe_limit`) compares its key (a column of
 * side `probe_side`) with every build row's (the list `build_ids`); matching tuples (the probe
 * tuple's rows of sides 0 .. build_side - 1 and the build row as side `build_side`) go to the
 * lists of the row-id table `out_ids` while they fit in `capacity` (counted on past it:
 * DB_ERROR_JOIN_CAPACITY). `left` = 1 (LEFT JOIN): a probe tuple without a match goes out once,
 * with the build row DB_NONE. Both join kernels stop with DB_ERROR_LOOP_LIMIT past
 * `loop_budget` loop steps per invocation. */
#define DB_JOIN_NESTED_ARGS(X)                                                                                     \
  X(WEFT_IN(Globals), probe_count) X(WEFT_U32, probe_limit) X(WEFT_IN(Globals), probe_ids) X(WEFT_U32, probe_side)   \
  X(WEFT_IN(Globals), build_count) X(WEFT_IN(Globals), build_ids) X(WEFT_REF_IN(Globals), probe_values)              \
  X(WEFT_REF_IN(Globals), probe_nulls) X(WEFT_REF_IN(Globals), build_values) X(WEFT_REF_IN(Globals), build_nulls)            \
  X(WEFT_OUT(Globals), out_count) X(WEFT_IN(Globals), out_ids) X(WEFT_U32, build_side) X(WEFT_U32, capacity)         \
  X(WEFT_OUT(Globals), err) X(WEFT_U32, loop_budget) X(WEFT_U32, left)
/* count_clamp: `kept` = min(`count`, `capacity`): the rows of a join step's output that later
 * stages read (the join kernels count on past the capacity; the host sizes a rebuild by that). */
#define DB_COUNT_CLAMP_ARGS(X) X(WEFT_IN(Globals), count) X(WEFT_OUT(Globals), kept) X(WEFT_U32, capacity)
/* join_build: chains every build row into the bucket of its key's hash (`heads`: last row of a
 * bucket, `next`: the row chained before it; `hash_mask` = buckets - 1). */
#define DB_JOIN_BUILD_ARGS(X)                                                                                   \
  X(WEFT_IN(Globals), build_count) X(WEFT_IN(Globals), build_ids) X(WEFT_REF_IN(Globals), build_values)              \
  X(WEFT_REF_IN(Globals), build_nulls) X(WEFT_OUT(Globals), heads) X(WEFT_U32, hash_mask) X(WEFT_OUT(Globals), next)
/* join_probe: every probe tuple walks its key's bucket chain and emits the matching tuples (as
 * join_nested, `left` included). */
#define DB_JOIN_PROBE_ARGS(X)                                                                                      \
  X(WEFT_IN(Globals), probe_count) X(WEFT_U32, probe_limit) X(WEFT_IN(Globals), probe_ids) X(WEFT_U32, probe_side)   \
  X(WEFT_IN(Globals), build_ids) X(WEFT_REF_IN(Globals), probe_values) X(WEFT_REF_IN(Globals), probe_nulls)              \
  X(WEFT_REF_IN(Globals), build_values) X(WEFT_REF_IN(Globals), build_nulls) X(WEFT_IN(Globals), heads)                  \
  X(WEFT_U32, hash_mask) X(WEFT_IN(Globals), next) X(WEFT_OUT(Globals), out_count) X(WEFT_IN(Globals), out_ids)      \
  X(WEFT_U32, build_side) X(WEFT_U32, capacity) X(WEFT_OUT(Globals), err) X(WEFT_U32, loop_budget) X(WEFT_U32, left)
/* group_claim: every input row (of `count`, through the row-id table `ids`) finds the hash slot of its
 * key (`nkeys` keys described at `key_table`) in `heads` (`hash_mask` = slots - 1), claiming an
 * empty one as its group's representative, and records it in `slot_of_row`. Past `max_claims`
 * claims (counted in `claimed`; half the slots) rows stop probing and set
 * DB_ERROR_GROUP_CAPACITY, and the host rebuilds with a larger table. */
#define DB_GROUP_CLAIM_ARGS(X)                                                                               \
  X(WEFT_IN(Globals), count) X(WEFT_U32, nkeys) X(WEFT_IN(Globals), key_table) X(WEFT_OUT(Globals), heads)    \
  X(WEFT_U32, hash_mask) X(WEFT_OUT(Globals), slot_of_row) X(WEFT_IN(Globals), ids)                             \
  X(WEFT_INOUT(Globals), claimed) X(WEFT_U32, max_claims) X(WEFT_OUT(Globals), err)
/* group_number: every representative row numbers its group (the `groups` counter); the first
 * `capacity` groups get `gid_of_slot` and `rep` entries, more set DB_ERROR_GROUP_CAPACITY. */
#define DB_GROUP_NUMBER_ARGS(X)                                                                                 \
  X(WEFT_IN(Globals), count) X(WEFT_IN(Globals), heads) X(WEFT_IN(Globals), slot_of_row)                          \
  X(WEFT_OUT(Globals), gid_of_slot) X(WEFT_OUT(Globals), groups) X(WEFT_OUT(Globals), rep) X(WEFT_U32, capacity) \
  X(WEFT_OUT(Globals), err)
/* group_count: every row's group id (`group_of_row`, DB_NONE past `capacity`) and the group sizes. */
#define DB_GROUP_COUNT_ARGS(X)                                                                                  \
  X(WEFT_IN(Globals), count) X(WEFT_IN(Globals), slot_of_row) X(WEFT_IN(Globals), gid_of_slot)                   \
  X(WEFT_OUT(Globals), group_of_row) X(WEFT_OUT(Globals), sizes) X(WEFT_U32, capacity)
/* group_scan: exclusive prefix sum of the sizes of min(groups, capacity) groups into `offsets`
 * and `cursor`, that clamped count into `groups_kept`, and it (at most 65535) into the reduce
 * stage's indirect slot (`reduce_slot`, Control). */
#define DB_GROUP_SCAN_ARGS(X)                                                                                  \
  X(WEFT_IN(Globals), groups) X(WEFT_IN(Globals), sizes) X(WEFT_OUT(Globals), offsets) X(WEFT_OUT(Globals), cursor) \
  X(WEFT_OUT(Globals), groups_kept) X(WEFT_OUT(Control), reduce_slot) X(WEFT_U32, capacity)
/* group_fill: scatters every row's position into its group's bucket of `members` (`cursor`: the
 * next free place of each bucket). */
#define DB_GROUP_FILL_ARGS(X)                                                                                    \
  X(WEFT_IN(Globals), count) X(WEFT_IN(Globals), group_of_row) X(WEFT_INOUT(Globals), cursor)                     \
  X(WEFT_OUT(Globals), members) X(WEFT_U32, capacity)
/* distinct_mark: COUNT(DISTINCT x) after a group_claim pass over the keys and x: every input row
 * (of `count`) writes the NULL bit of its mark column (`out_nulls`, indexed by position): set
 * unless the row represents its (keys, x) slot in `heads` (`slot_of_row`) and its x (NULL bitmap
 * word `arg_nulls`, absent: none; a column of `arg_side`) is not NULL. COUNT of the marks is the
 * count of distinct non-NULL x per group. */
#define DB_DISTINCT_MARK_ARGS(X)                                                                             \
  X(WEFT_IN(Globals), count) X(WEFT_IN(Globals), heads) X(WEFT_IN(Globals), slot_of_row) X(WEFT_U32, arg_nulls) \
  X(WEFT_U32, arg_side) X(WEFT_IN(Globals), ids) X(WEFT_OUT(Globals), out_nulls)
/* group_single: aggregates without GROUP BY: one group of every input row (`count`), the reduce
 * slot set to one workgroup. */
#define DB_GROUP_SINGLE_ARGS(X)                                                                                   \
  X(WEFT_IN(Globals), count) X(WEFT_OUT(Globals), groups) X(WEFT_OUT(Globals), groups_kept) X(WEFT_OUT(Globals), rep) \
  X(WEFT_OUT(Globals), sizes) X(WEFT_OUT(Globals), offsets) X(WEFT_OUT(Control), reduce_slot)
/* group_reduce: one workgroup per group (`groups_kept`) reduces the `naggs` aggregates of
 * `agg_table` over the group's members (`offsets`/`sizes` into `members`, absent: the identity)
 * and copies the `nkeys` keys of `keycopy_table` from the representative row (`rep`). Base-table
 * columns are reached through the input's row-id table `ids`. An invocation that would
 * loop more than `loop_budget` times sets DB_ERROR_LOOP_LIMIT (drivers that stop long loops). */
#define DB_GROUP_REDUCE_ARGS(X)                                                                            \
  X(WEFT_IN(Globals), groups_kept) X(WEFT_IN(Globals), offsets) X(WEFT_IN(Globals), sizes)                    \
  X(WEFT_IN(Globals), members) X(WEFT_U32, naggs) X(WEFT_IN(Globals), agg_table) X(WEFT_U32, nkeys)           \
  X(WEFT_IN(Globals), keycopy_table) X(WEFT_IN(Globals), rep) X(WEFT_OUT(Globals), err) X(WEFT_IN(Globals), ids)  \
  X(WEFT_U32, loop_budget)
/* sort_init: the identity permutation `perm` over `padded` positions. */
#define DB_SORT_INIT_ARGS(X) X(WEFT_OUT(Globals), perm) X(WEFT_U32, padded)
/* sort_step: compare-exchange pass (`k`, `j`) of a bitonic sort of `perm` over `count` output
 * rows by the `nkeys` keys of `key_table`. */
#define DB_SORT_STEP_ARGS(X)                                                                                  \
  X(WEFT_IN(Globals), count) X(WEFT_OUT(Globals), perm) X(WEFT_U32, nkeys) X(WEFT_IN(Globals), key_table) \
  X(WEFT_U32, k) X(WEFT_U32, j)
/* finish: applies OFFSET (`row_offset`) and LIMIT (`row_limit`, DB_NONE: none) to the `count`
 * output rows into `first` and `result_count`, and sends the result reference (`perm_word`, a
 * word offset passed on to the host, not read here; first row, row count, error bits). */
#define DB_FINISH_ARGS(X)                                                                                   \
  X(WEFT_IN(Globals), count) X(WEFT_U32, row_offset) X(WEFT_U32, row_limit) X(WEFT_OUT(Globals), first)       \
  X(WEFT_OUT(Globals), result_count) X(WEFT_U32, perm_word) X(WEFT_IN(Globals), err)

#ifdef __cplusplus
namespace weft::db {
WEFT_KERNEL_ARGS(FilterArgs, DB_FILTER_ARGS)
WEFT_KERNEL_ARGS(FilterTermsArgs, DB_FILTER_TERMS_ARGS)
WEFT_KERNEL_ARGS(ProjectArgs, DB_PROJECT_ARGS)
WEFT_KERNEL_ARGS(ReportArgs, DB_REPORT_ARGS)
WEFT_KERNEL_ARGS(JoinNestedArgs, DB_JOIN_NESTED_ARGS)
WEFT_KERNEL_ARGS(JoinBuildArgs, DB_JOIN_BUILD_ARGS)
WEFT_KERNEL_ARGS(CountClampArgs, DB_COUNT_CLAMP_ARGS)
WEFT_KERNEL_ARGS(JoinProbeArgs, DB_JOIN_PROBE_ARGS)
WEFT_KERNEL_ARGS(GroupClaimArgs, DB_GROUP_CLAIM_ARGS)
WEFT_KERNEL_ARGS(GroupNumberArgs, DB_GROUP_NUMBER_ARGS)
WEFT_KERNEL_ARGS(GroupCountArgs, DB_GROUP_COUNT_ARGS)
WEFT_KERNEL_ARGS(GroupScanArgs, DB_GROUP_SCAN_ARGS)
WEFT_KERNEL_ARGS(GroupFillArgs, DB_GROUP_FILL_ARGS)
WEFT_KERNEL_ARGS(GroupSingleArgs, DB_GROUP_SINGLE_ARGS)
WEFT_KERNEL_ARGS(DistinctMarkArgs, DB_DISTINCT_MARK_ARGS)
WEFT_KERNEL_ARGS(GroupReduceArgs, DB_GROUP_REDUCE_ARGS)
WEFT_KERNEL_ARGS(SortInitArgs, DB_SORT_INIT_ARGS)
WEFT_KERNEL_ARGS(SortStepArgs, DB_SORT_STEP_ARGS)
WEFT_KERNEL_ARGS(FinishArgs, DB_FINISH_ARGS)
}  // namespace weft::db
#endif
#endif /* DB_ARGS_H */
