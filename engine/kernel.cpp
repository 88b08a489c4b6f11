#include "kernel.h"

#include <map>
#include <set>

#include "error.h"

namespace weft {

namespace {

enum : uint32_t {
  OpEntryPoint = 15, OpExecutionMode = 16, OpCapability = 17, OpVariable = 59, OpLoad = 61, OpStore = 62,
  OpCopyMemory = 63, OpAccessChain = 65, OpInBoundsAccessChain = 66, OpPtrAccessChain = 67,
  OpDecorate = 71, OpInBoundsPtrAccessChain = 70, OpCopyObject = 83, OpAtomicLoad = 227, OpAtomicStore = 228,
  OpAtomicXor = 242, OpAtomicFAddEXT = 6035,
};
enum : uint32_t { DecorationBinding = 33, ExecutionModeLocalSize = 17 };
enum : uint32_t { StorageClassUniform = 2, StorageClassStorageBuffer = 12 };
enum : uint32_t { CapabilityShaderClockKHR = 5055, CapabilityPhysicalStorageBufferAddresses = 5347 };

}  // namespace

KernelInterface reflect(const std::vector<uint32_t>& words, const std::string& name) {
  if (words.size() < 5 || words[0] != 0x07230203u)
    fail(ErrorCode::ShaderCompile, name + ": not a SPIR-V module (bad magic or too short)");
  KernelInterface out;
  std::map<uint32_t, uint32_t> binding_of;  // decorated id -> binding
  std::map<uint32_t, uint32_t> root;        // pointer id -> binding it points into
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16, op = words[i] & 0xFFFFu;
    if (count == 0 || i + count > words.size())
      fail(ErrorCode::ShaderCompile, name + ": malformed SPIR-V instruction at word " + std::to_string(i));
    const uint32_t* w = &words[i];
    switch (op) {
      case OpCapability:
        if (w[1] == CapabilityShaderClockKHR) out.shader_clock = true;
        if (w[1] == CapabilityPhysicalStorageBufferAddresses) out.far_access = true;
        break;
      case OpExecutionMode:
        if (count >= 6 && w[2] == ExecutionModeLocalSize) out.local_size = {w[3], w[4], w[5]};
        break;
      case OpDecorate:
        if (count >= 4 && w[2] == DecorationBinding) binding_of[w[1]] = w[3];
        break;
      case OpVariable:
        if (count >= 4 && (w[3] == StorageClassStorageBuffer || w[3] == StorageClassUniform) && binding_of.count(w[2]))
          root[w[2]] = binding_of[w[2]];
        break;
      case OpAccessChain:
      case OpInBoundsAccessChain:
      case OpPtrAccessChain:
      case OpInBoundsPtrAccessChain:
      case OpCopyObject:
        if (count >= 4 && root.count(w[3])) root[w[2]] = root[w[3]];
        break;
      case OpLoad:
      case OpAtomicLoad:
        if (count >= 4 && root.count(w[3])) out.bindings_read |= 1u << root[w[3]];
        break;
      case OpStore:
      case OpAtomicStore:
        if (count >= 3 && root.count(w[1])) out.bindings_written |= 1u << root[w[1]];
        break;
      case OpCopyMemory:
        if (count >= 3 && root.count(w[1])) out.bindings_written |= 1u << root[w[1]];
        if (count >= 3 && root.count(w[2])) out.bindings_read |= 1u << root[w[2]];
        break;
      default:
        // Read-modify-write atomics: result type, result, pointer, ...
        if (((op > OpAtomicStore && op <= OpAtomicXor) || op == OpAtomicFAddEXT) && count >= 4 && root.count(w[3])) {
          out.bindings_read |= 1u << root[w[3]];
          out.bindings_written |= 1u << root[w[3]];
        }
        break;
    }
    i += count;
  }
  return out;
}

Kernel::Kernel(std::string name, std::vector<uint32_t> spirv, std::vector<uint32_t> clock_variant)
    : name_(std::move(name)), spirv_(std::move(spirv)), spirv_clock_(std::move(clock_variant)) {
  interface_ = reflect(spirv_, name_);
  interface_clock_ = spirv_clock_.empty() ? interface_ : reflect(spirv_clock_, name_ + " (clock variant)");
}

Kernel::Kernel(const EmbeddedKernel& e)
    : Kernel(e.name, std::vector<uint32_t>(e.spirv, e.spirv + e.spirv_words),
             e.spirv_clock ? std::vector<uint32_t>(e.spirv_clock, e.spirv_clock + e.spirv_clock_words)
                           : std::vector<uint32_t>{}) {}

const std::vector<uint32_t>& Kernel::spirv(bool clock) const {
  return clock && !spirv_clock_.empty() ? spirv_clock_ : spirv_;
}

const KernelInterface& Kernel::interface(bool clock) const {
  return clock && !spirv_clock_.empty() ? interface_clock_ : interface_;
}

KernelRef find_kernel(const EmbeddedKernel* table, size_t count, const std::string& name) {
  for (size_t i = 0; i < count; ++i)
    if (name == table[i].name) return std::make_shared<const Kernel>(table[i]);
  std::string known;
  for (size_t i = 0; i < count; ++i) known += (i ? ", " : "") + std::string(table[i].name);
  fail(ErrorCode::BadInput, "no embedded kernel named '" + name + "' (known: " + known + ")");
}

}  // namespace weft
