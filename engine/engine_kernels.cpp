#include "engine_kernels.h"

#include "error.h"
#include "weft_engine_kernels.h"

namespace weft {

KernelRef engine_kernel(const std::string& name) {
  return weft_engine_kernels.get(name);
}

Program copy_program(uint64_t bytes, const KernelShape& shape) {
  if (bytes % 16) fail(ErrorCode::BadInput, "copy_program: " + std::to_string(bytes) + " bytes is not a whole number of 16-byte units");
  if (bytes / 16 > UINT32_MAX) fail(ErrorCode::BadInput, "copy_program: " + std::to_string(bytes) + " bytes is over 2^32 units");
  Program p("copy");
  p.globals().add("src", bytes);
  p.globals().add("dst", bytes);
  StageSpec s;
  s.name = "copy";
  s.kernel = engine_kernel("copy");
  s.instance = p.add_instance("copy", 1);
  s.streaming_units = bytes / 16;
  s.shape = shape;
  s.args = CopyArgs{.src = p.segment(Binding::Globals, "src"), .dst = p.segment(Binding::Globals, "dst"),
                    .count = uint32_t(bytes / 16)}
               .bind();
  p.add_stage(s);
  return p;
}

}  // namespace weft
