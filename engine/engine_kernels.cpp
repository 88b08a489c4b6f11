#include "engine_kernels.h"

#include "weft_engine_kernels.h"

namespace weft {

KernelRef engine_kernel(const std::string& name) {
  return find_kernel(weft_engine_kernels, weft_engine_kernels_count, name);
}

}  // namespace weft
