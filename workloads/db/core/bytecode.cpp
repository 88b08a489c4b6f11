#include "bytecode.h"

#include <weft/error.h>

#include "db_ops.h"

namespace weft::db {

namespace {

struct Emitter {
  const DescriptorOf& desc;
  std::vector<uint32_t> words;
  std::vector<uint32_t> data;  // after the instructions
  uint32_t depth = 0, max_depth = 0;

  void emit(uint32_t op, uint32_t a = 0, uint32_t b = 0, uint32_t c = 0, int delta = 0) {
    words.insert(words.end(), {op, a, b, c});
    depth = uint32_t(int(depth) + delta);
    max_depth = std::max(max_depth, depth);
  }
  uint32_t cmp_code(const std::string& op) {
    if (op == "=") return DB_CMP_EQ;
    if (op == "!=") return DB_CMP_NE;
    if (op == "<") return DB_CMP_LT;
    if (op == "<=") return DB_CMP_LE;
    if (op == ">") return DB_CMP_GT;
    return DB_CMP_GE;
  }
  uint32_t arith_code(const std::string& op) {
    if (op == "+") return DB_ARITH_ADD;
    if (op == "-") return DB_ARITH_SUB;
    if (op == "*") return DB_ARITH_MUL;
    if (op == "/") return DB_ARITH_DIV;
    return DB_ARITH_MOD;
  }
  void gen(const BExpr& e) {
    switch (e.kind) {
      case BExpr::Const: emit(DB_OP_CONST, uint32_t(e.bits), uint32_t(e.bits >> 32), e.null ? 1u : 0u, +1); return;
      case BExpr::Col: emit(DB_OP_LOAD, desc(e.side, e.column), 0, 0, +1); return;
      case BExpr::ToFloat: gen(*e.args[0]); emit(DB_OP_TOFLOAT); return;
      case BExpr::ToInt: gen(*e.args[0]); emit(DB_OP_TOINT); return;
      case BExpr::Abs: gen(*e.args[0]); emit(e.type == Type::Float ? DB_OP_ABS_F : DB_OP_ABS_I); return;
      case BExpr::Round: gen(*e.args[0]); emit(DB_OP_ROUND_F); return;
      case BExpr::InSet:
        // a: the bitmap's offset into the data (made relative to the program's start below).
        gen(*e.args[0]);
        emit(DB_OP_IN_SET, uint32_t(data.size()), uint32_t(e.set->size() * 32), e.negated ? 1u : 0u);
        data.insert(data.end(), e.set->begin(), e.set->end());
        return;
      case BExpr::InValues: {
        // a: the sorted values' offset into the data (made relative below), b: their count.
        gen(*e.args[0]);
        const ValueSet& v = *e.values;
        const uint32_t flags = (e.negated ? DB_IN_NEGATED : 0u) | (v.any_null ? DB_IN_ANY_NULL : 0u) |
                               (v.rows > 0 ? DB_IN_ROWS : 0u) | (e.args[0]->type == Type::Float ? DB_IN_FLOAT : 0u);
        emit(DB_OP_IN_VALUES, uint32_t(data.size()), uint32_t(v.sorted.size()), flags);
        for (uint64_t x : v.sorted) data.insert(data.end(), {uint32_t(x), uint32_t(x >> 32)});
        return;
      }
      case BExpr::Map: {
        // a: the entries' offset into the data (made relative below), b: their count; an entry is
        // the operand's code then the result, 2 words each.
        gen(*e.args[0]);
        const CodeMap& m = *e.map;
        emit(DB_OP_MAP, uint32_t(data.size()), uint32_t(m.codes.size()));
        for (size_t k = 0; k < m.codes.size(); ++k)
          data.insert(data.end(), {uint32_t(m.codes[k]), uint32_t(m.codes[k] >> 32), uint32_t(m.results[k]),
                                   uint32_t(m.results[k] >> 32)});
        return;
      }
      case BExpr::Choose:
        // The otherwise value first: a chain of WHENs nests there and keeps the stack shallow.
        gen(*e.args[2]);
        gen(*e.args[0]);
        gen(*e.args[1]);
        emit(DB_OP_CHOOSE, 0, 0, 0, -2);
        return;
      case BExpr::Neg: gen(*e.args[0]); emit(e.type == Type::Float ? DB_OP_NEG_F : DB_OP_NEG_I); return;
      case BExpr::Not: gen(*e.args[0]); emit(DB_OP_NOT); return;
      case BExpr::IsNull: gen(*e.args[0]); emit(DB_OP_ISNULL, e.negated ? 1u : 0u); return;
      case BExpr::Arith:
        gen(*e.args[0]);
        gen(*e.args[1]);
        emit(e.type == Type::Float ? DB_OP_ARITH_F : DB_OP_ARITH_I, arith_code(e.op), 0, 0, -1);
        return;
      case BExpr::Compare: {
        gen(*e.args[0]);
        gen(*e.args[1]);
        const Type l = e.args[0]->type, r = e.args[1]->type;
        const uint32_t code = cmp_code(e.op);
        if (l == Type::Int && r == Type::Float) emit(DB_OP_CMP_IF, code, 0, 0, -1);
        else if (l == Type::Float && r == Type::Int) emit(DB_OP_CMP_IF, code, 1, 0, -1);
        else emit(l == Type::Float ? DB_OP_CMP_F : DB_OP_CMP_I, code, 0, 0, -1);
        return;
      }
      case BExpr::And:
      case BExpr::Or:
        gen(*e.args[0]);
        gen(*e.args[1]);
        emit(e.kind == BExpr::And ? DB_OP_AND : DB_OP_OR, 0, 0, 0, -1);
        return;
    }
  }
};

}  // namespace

Bytecode compile_expr(const BExpr& e, const DescriptorOf& descriptor) {
  Emitter em{descriptor, {}, {}, 0, 0};
  em.gen(e);
  if (em.max_depth > DB_STACK)
    fail(ErrorCode::BadInput, "sql: expression needs a stack of " + std::to_string(em.max_depth) +
                                  " values, the device interpreter holds " + std::to_string(DB_STACK) + "; simplify it");
  if (em.words.size() / DB_INSTR_WORDS > DB_MAX_INSTR)
    fail(ErrorCode::BadInput, "sql: expression compiles to " + std::to_string(em.words.size() / DB_INSTR_WORDS) +
                                  " instructions, more than " + std::to_string(DB_MAX_INSTR));
  Bytecode b;
  b.instructions = uint32_t(em.words.size() / DB_INSTR_WORDS);
  for (size_t k = 0; k < em.words.size(); k += DB_INSTR_WORDS)
    if (em.words[k] == DB_OP_IN_SET || em.words[k] == DB_OP_IN_VALUES || em.words[k] == DB_OP_MAP) em.words[k + 1] += uint32_t(em.words.size());
  b.words = std::move(em.words);
  b.words.insert(b.words.end(), em.data.begin(), em.data.end());
  return b;
}

}  // namespace weft::db
