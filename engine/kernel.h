// Kernels: SPIR-V modules for the fixed pipeline layout, and what reflection tells about them.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "args.h"
#include "device_features.h"

namespace weft {

// What a kernel's SPIR-V does with the five bindings, found by reading the module.
struct KernelInterface {
  std::array<uint32_t, 3> local_size{1, 1, 1};
  uint32_t bindings_read = 0;     // bit b: the kernel loads from binding b
  uint32_t bindings_written = 0;  // bit b: the kernel stores or atomically updates binding b
  // The optional device features its SPIR-V capabilities need (device_features.h).
  FeatureSet features = 0;
  bool far_access() const { return has(features, Feature::BufferDeviceAddress); }  // buffer device addresses
  bool shader_clock() const { return has(features, Feature::ShaderClock); }       // VK_KHR_shader_clock
  // Declares WEFT_STREAMING_KERNEL: its workgroup size and units per invocation are
  // specialization constants the engine sets per device (kernel_shape.h).
  bool streaming = false;
  uint64_t shared_bytes = 0;      // workgroup (shared) memory it declares, at least (no padding counted)
  std::vector<std::string> arg_names;  // members of the push block's WeftArgs struct, in order
  uint32_t used_bindings() const { return bindings_read | bindings_written; }
};

// Build-time embedded kernel: the plain module, the shader-clock variant and what the
// WEFT_DESCRIBE_ARGS preprocessing pass printed (its arguments, see bindings_layout/weft_args.h).
struct EmbeddedKernel {
  const char* name;
  const uint32_t* spirv;
  size_t spirv_words;
  const uint32_t* spirv_clock;
  size_t spirv_clock_words;
  const char* described_args;
};

class Kernel {
 public:
  // `clock_variant` may be empty: the kernel then never reports ticks. ShaderCompile error when
  // the modules' argument struct does not hold exactly the `signature`'s names in order.
  Kernel(std::string name, std::vector<uint32_t> spirv, std::vector<uint32_t> clock_variant = {},
         KernelSignature signature = {});
  explicit Kernel(const EmbeddedKernel& embedded);

  const std::string& name() const { return name_; }
  // The module to use on a device with or without shader clock support.
  const std::vector<uint32_t>& spirv(bool device_has_clock) const;
  const KernelInterface& interface(bool device_has_clock) const;
  // The arguments a stage binds by name (empty for a kernel without WEFT_ARGS).
  const KernelSignature& signature() const { return signature_; }
  // The same source compiled with WEFT_FAR_ACCESS (weft_add_shaders' FAR_VARIANTS), or null: a
  // stage that declares a far segment runs it instead (Program::add_stage), so one kernel serves
  // data in the bound window and beyond it.
  const std::shared_ptr<const Kernel>& far_variant() const { return far_variant_; }

 private:
  friend class KernelTable;
  std::string name_;
  std::vector<uint32_t> spirv_, spirv_clock_;
  KernelInterface interface_, interface_clock_;
  KernelSignature signature_;
  std::shared_ptr<const Kernel> far_variant_;
};

using KernelRef = std::shared_ptr<const Kernel>;

// Reads a SPIR-V module; ShaderCompile error when it is not one.
KernelInterface reflect(const std::vector<uint32_t>& spirv, const std::string& name);

// A table of embedded kernels, as weft_add_shaders() in CMake generates one per target:
//     weft::KernelRef k = my_kernels.get("name");
class KernelTable {
 public:
  KernelTable(const char* table_name, const EmbeddedKernel* entries, size_t count)
      : name_(table_name), entries_(entries), count_(count) {}
  // The kernel called `name`, reflected once and shared, with its far variant ("<name>.far")
  // attached when the table has one; BadInput listing the known names when it has none.
  KernelRef get(const std::string& name) const;
  std::vector<std::string> names() const;
  // The features its kernels need on every device (plain variants: the shader-clock and far
  // variants are used only where the device has those).
  FeatureSet required_features() const;

 private:
  const char* name_;
  const EmbeddedKernel* entries_;
  size_t count_;
  mutable std::mutex mutex_;
  mutable std::map<std::string, KernelRef> built_;
};

}  // namespace weft
