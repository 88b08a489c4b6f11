// Kernels the engine itself ships (shaders/*.comp): copy, fill, message_stats, regulator.
#pragma once

#include <string>

#include "kernel.h"
#include "weft_engine_args.h"  // CopyArgs, FillArgs, RegulatorArgs

namespace weft {

// BadInput listing the known names when `name` is not an engine kernel.
KernelRef engine_kernel(const std::string& name);

}  // namespace weft
