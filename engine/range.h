// The five bindings and byte ranges of them: what stages declare they read and write.
#pragma once

#include <cstdint>

#include "weft_layout.h"

namespace weft {

enum class Binding : uint32_t {
  Registers = WEFT_BINDING_REGISTERS,
  Metrics = WEFT_BINDING_METRICS,
  Globals = WEFT_BINDING_GLOBALS,
  Control = WEFT_BINDING_CONTROL,
  Heap = WEFT_BINDING_HEAP,
};
const char* binding_name(Binding b);

// A byte range of one binding that a stage reads or writes: of its bound buffer, or (far != 0)
// of the binding's far segment far - 1, with offsets from that segment's start.
struct Range {
  Binding binding = Binding::Globals;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint32_t far = 0;
  bool overlaps(const Range& o) const {
    return binding == o.binding && far == o.far && offset < o.offset + o.size && o.offset < offset + size;
  }
  uint32_t first_word() const { return uint32_t(offset / 4); }
  // `bytes` from byte `from` of this range (a row of a port, one node of a level); InvalidProgram
  // when that is not inside it.
  Range part(uint64_t from, uint64_t bytes) const;
};

}  // namespace weft
