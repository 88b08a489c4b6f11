// Kernels the engine itself ships (shaders/*.comp): copy, fill, message_stats, regulator.
#pragma once

#include <string>

#include "kernel.h"
#include "kernel_shape.h"
#include "program.h"
#include "weft_engine_args.h"  // CopyArgs, FillArgs, RegulatorArgs

namespace weft {

// BadInput listing the known names when `name` is not an engine kernel.
KernelRef engine_kernel(const std::string& name);

// One stage of the copy kernel from Globals segment "src" to "dst", `bytes` each (a multiple of
// 16), at `shape` (empty: the device's streaming shape): the streaming bandwidth that benches
// measure their stages against.
Program copy_program(uint64_t bytes, const KernelShape& shape = {});

}  // namespace weft
