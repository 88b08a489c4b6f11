#include "engine_kernels.h"

#include "weft_engine_kernels.h"

namespace weft {

KernelRef engine_kernel(const std::string& name) {
  return weft_engine_kernels.get(name);
}

}  // namespace weft
