/* The expression bytecode the device interpreter (eval.glsl) runs and core/bytecode.cpp emits.
 * Included by C++ and GLSL. An instruction is 4 words: op, a, b, c. Values on the stack are
 * 64-bit (int64, double bits or Text code) plus a NULL flag; types are fixed by the planner, so
 * every op names the type it works on. */
#ifndef WEFT_DB_OPS_H
#define WEFT_DB_OPS_H

#define DB_OP_CONST   0u  /* push (a | b << 32); c = 1: NULL */
#define DB_OP_LOAD    1u  /* push column descriptor a at the row of its side */
#define DB_OP_TOFLOAT 2u  /* int64 -> double */
#define DB_OP_NEG_I   3u
#define DB_OP_NEG_F   4u
#define DB_OP_ARITH_I 5u  /* a: DB_ARITH_* ; overflow sets DB_ERROR_OVERFLOW */
#define DB_OP_ARITH_F 6u
#define DB_OP_CMP_I   7u  /* a: DB_CMP_* (int64 and Text codes) */
#define DB_OP_CMP_F   8u
#define DB_OP_AND     9u  /* SQL three-valued logic on Int truth values */
#define DB_OP_OR      10u
#define DB_OP_NOT     11u
#define DB_OP_ISNULL  12u /* a = 1: IS NOT NULL */
#define DB_OP_CMP_IF  13u /* a: DB_CMP_*; int64 <a> double exactly; b = 1: the operands are double, int64 */
#define DB_OP_TOINT   14u /* double -> int64, truncating, saturating at the int64 ends (SQLite's CAST) */
#define DB_OP_ABS_I   15u /* abs of int64; of the smallest sets DB_ERROR_OVERFLOW (SQLite: integer overflow) */
#define DB_OP_ABS_F   16u
#define DB_OP_ROUND_F 17u /* SQLite's round(x): half away from zero, |x| > 2^52 kept */
#define DB_OP_CHOOSE  18u /* pops otherwise, condition, value: value if the condition is true, else otherwise */
#define DB_OP_IN_SET  19u /* Text code in the set: bit code/2 of the bitmap of b bits at word code + a of the
                             program (its data, after the instructions); c = 1: not in the set. NULL stays NULL */
#define DB_OP_IN_VALUES 20u /* x [NOT] IN (SELECT ...): binary search of x among b sorted values (2 words each,
                               int64 / Text code, or double with DB_IN_FLOAT) at word code + a; c: DB_IN_* flags.
                               SQLite's three-valued IN: no rows -> 0 (NOT IN 1) even for a NULL x; else NULL x
                               -> NULL; found -> 1 (0); not found -> NULL with a NULL among the rows, else 0 (1) */

#define DB_OP_MAP     21u /* a text function by lookup (core/text_functions.h): binary search of the Text code
                             among b entries (4 words: the code, then the result, int64 or Text code) sorted by
                             code at word code + a; found -> its result, not found or NULL -> NULL */

/* DB_OP_IN_VALUES flags. */
#define DB_IN_NEGATED  1u
#define DB_IN_ANY_NULL 2u
#define DB_IN_ROWS     4u  /* the subquery returned rows (NULLs included) */
#define DB_IN_FLOAT    8u

#define DB_ARITH_ADD 0u
#define DB_ARITH_SUB 1u
#define DB_ARITH_MUL 2u
#define DB_ARITH_DIV 3u
#define DB_ARITH_MOD 4u

#define DB_CMP_EQ 0u
#define DB_CMP_NE 1u
#define DB_CMP_LT 2u
#define DB_CMP_LE 3u
#define DB_CMP_GT 4u
#define DB_CMP_GE 5u

#define DB_STACK 16u      /* deepest stack an expression may need */
#define DB_INSTR_WORDS 4u
#define DB_MAX_INSTR 256u  /* per expression */

/* Column descriptor: 4 words. values: word offset of 2 words per row; nulls: word offset of a
 * bitmap (bit r of word r/32), or DB_NONE for a column without NULLs; side: a base table of the
 * query (0 .. DB_MAX_SIDES - 1, in FROM/JOIN order: the row comes from that side's row-id list),
 * DB_SIDE_DIRECT: indexed by the stage's row position. */
#define DB_DESC_WORDS 4u
#define DB_NONE 0xFFFFFFFFu
#define DB_MAX_SIDES 8u    /* tables one query joins (core/sql.h kMaxTables) */
#define DB_SIDE_DIRECT 8u  /* = DB_MAX_SIDES (core/plan.h kSideDirect) */
/* A row set's row-id table: DB_MAX_SIDES words, the word offset of side s's row-id list (entry i:
 * the side's row at position i) or DB_NONE (that side's row is the position itself, or the side
 * is not in the set). Joined rows are tuples: position i holds one row id per joined side. An
 * absent table (DB_NONE) is the identity on every side. */
/* A column's values word is a segment reference (bindings_layout/weft_args.h): a Globals word, or
 * WEFT_REF_FAR | the index of a far segment of 8-byte records, one per row, for base tables
 * beyond the storage-buffer window. So are the values words of descriptors, terms, key and
 * aggregate tables. A base column's NULL-bitmap word is a segment reference too (far: records of
 * 4 bytes, bit r of record r / 32). */

/* Aggregate functions (group_reduce). */
#define DB_AGG_COUNT_STAR 0u
#define DB_AGG_COUNT      1u
#define DB_AGG_SUM_I      2u
#define DB_AGG_SUM_F      3u
#define DB_AGG_MIN_I      4u
#define DB_AGG_MAX_I      5u
#define DB_AGG_MIN_F      6u
#define DB_AGG_MAX_F      7u
#define DB_AGG_AVG_I      8u
#define DB_AGG_AVG_F      9u

/* Scan predicate terms (filter_terms.comp), DB_TERM_WORDS each: values word, nulls word, kind,
 * DB_CMP_* op, constant low word, constant high word, 2 unused. A row passes when every term is
 * true (NULL is not true). */
#define DB_TERM_WORDS        8u
#define DB_TERM_INT          0u  /* int64 or Text code column <op> constant */
#define DB_TERM_FLOAT        1u  /* double column <op> double constant */
#define DB_TERM_INT_VS_FLOAT 2u  /* int64 column <op> double constant, compared exactly */
#define DB_TERM_FLOAT_VS_INT 5u  /* double column <op> int64 constant, compared exactly */
#define DB_TERM_IS_NULL      3u
#define DB_TERM_IS_NOT_NULL  4u

/* Sort key / group key type: 0 int64 or Text code, 1 double. */
#define DB_KEY_INT   0u
#define DB_KEY_FLOAT 1u

/* Error bits (the query's error word, reported in R30 and Metrics). */
#define DB_ERROR_OVERFLOW      1u  /* integer overflow in arithmetic or SUM */
#define DB_ERROR_JOIN_CAPACITY 2u  /* more joined rows than the output holds: rebuilt larger */
#define DB_ERROR_STACK         4u  /* expression deeper than DB_STACK (planner prevents it) */
#define DB_ERROR_GROUP_CAPACITY 8u /* more groups than the group table holds: rebuilt larger */
#define DB_ERROR_LOOP_LIMIT    16u /* a group or a key's join matches past the device's loop cap */

/* Metrics counters of the query instances. */
#define DB_COUNTER_ROWS_IN   0u  /* rows the stage read */
#define DB_COUNTER_ROWS_OUT  1u  /* rows it produced */
#define DB_COUNTER_ERROR     2u
#define DB_COUNTER_STRATEGY  3u  /* join: 1 nested loop, 2 hash */

#endif
