// Bound expressions -> the device interpreter's bytecode (shaders/db_ops.h). Vulkan-free.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "plan.h"

namespace weft::db {

// Maps a bound column (side, column) to the index of its column descriptor on the device.
using DescriptorOf = std::function<uint32_t(uint32_t side, uint32_t column)>;

// The program: `instructions` of 4 words, then the data they point to (the bitmaps of InSet
// tests, the sorted values of InValues tests, the entries of Map lookups; addressed relative to
// the program's first word).
struct Bytecode {
  std::vector<uint32_t> words;
  uint32_t instructions = 0;
};

// BadInput when the expression needs more than DB_STACK stack entries or DB_MAX_INSTR
// instructions.
Bytecode compile_expr(const BExpr& e, const DescriptorOf& descriptor);

}  // namespace weft::db
