// Run-time GLSL -> SPIR-V through the glslang library, for workloads authored without
// rebuilding Weft. "weft.glsl", "weft_layout.h" and "weft_args.h" are always includable.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "kernel.h"

namespace weft {

struct CompileOptions {
  std::vector<std::pair<std::string, std::string>> defines;  // name, value
  std::vector<std::string> include_dirs;                     // searched after the file's own folder
};

// SPIR-V for Vulkan 1.2. ShaderCompile error with one "file:line: message" per problem.
std::vector<uint32_t> compile_glsl(const std::string& source, const std::string& filename,
                                   const CompileOptions& options = {});

// The kernel's typed arguments (bindings_layout/weft_args.h), from a WEFT_DESCRIBE_ARGS
// preprocessing pass; empty when it declares none.
KernelSignature describe_kernel_args(const std::string& source, const std::string& filename,
                                     const CompileOptions& options = {});

// Reads and compiles a .comp file; builds the plain and the shader-clock variants.
KernelRef compile_kernel_file(const std::string& path, const CompileOptions& options = {});
KernelRef compile_kernel_source(const std::string& name, const std::string& source,
                                const CompileOptions& options = {});

}  // namespace weft
