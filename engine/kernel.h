// Kernels: SPIR-V modules for the fixed pipeline layout, and what reflection tells about them.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weft {

// What a kernel's SPIR-V does with the five bindings, found by reading the module.
struct KernelInterface {
  std::array<uint32_t, 3> local_size{1, 1, 1};
  uint32_t bindings_read = 0;     // bit b: the kernel loads from binding b
  uint32_t bindings_written = 0;  // bit b: the kernel stores or atomically updates binding b
  bool far_access = false;        // uses buffer device addresses (needs bufferDeviceAddress)
  bool shader_clock = false;      // uses VK_KHR_shader_clock
  uint32_t used_bindings() const { return bindings_read | bindings_written; }
};

// Build-time embedded kernel: the plain module and the shader-clock variant.
struct EmbeddedKernel {
  const char* name;
  const uint32_t* spirv;
  size_t spirv_words;
  const uint32_t* spirv_clock;
  size_t spirv_clock_words;
};

class Kernel {
 public:
  // `clock_variant` may be empty: the kernel then never reports ticks.
  Kernel(std::string name, std::vector<uint32_t> spirv, std::vector<uint32_t> clock_variant = {});
  explicit Kernel(const EmbeddedKernel& embedded);

  const std::string& name() const { return name_; }
  // The module to use on a device with or without shader clock support.
  const std::vector<uint32_t>& spirv(bool device_has_clock) const;
  const KernelInterface& interface(bool device_has_clock) const;

 private:
  std::string name_;
  std::vector<uint32_t> spirv_, spirv_clock_;
  KernelInterface interface_, interface_clock_;
};

using KernelRef = std::shared_ptr<const Kernel>;

// Reads a SPIR-V module; ShaderCompile error when it is not one.
KernelInterface reflect(const std::vector<uint32_t>& spirv, const std::string& name);

// Embedded kernel tables produced by weft_add_shaders() in CMake.
KernelRef find_kernel(const EmbeddedKernel* table, size_t count, const std::string& name);

}  // namespace weft
