#include "kernel.h"

#include <map>
#include <set>

#include "error.h"
#include "kernel_shape.h"

namespace weft {

namespace {

enum : uint32_t {
  OpName = 5, OpMemberName = 6, OpEntryPoint = 15, OpExecutionMode = 16, OpCapability = 17, OpVariable = 59, OpLoad = 61, OpStore = 62,
  OpCopyMemory = 63, OpAccessChain = 65, OpInBoundsAccessChain = 66, OpPtrAccessChain = 67,
  OpDecorate = 71, OpInBoundsPtrAccessChain = 70, OpCopyObject = 83, OpAtomicLoad = 227, OpAtomicStore = 228,
  OpAtomicXor = 242, OpAtomicFAddEXT = 6035, OpTypeBool = 20, OpTypeInt = 21, OpTypeFloat = 22, OpTypeVector = 23,
  OpTypeMatrix = 24, OpTypeArray = 28, OpTypeStruct = 30, OpTypePointer = 32, OpConstant = 43,
};
enum : uint32_t { DecorationSpecId = 1, DecorationBinding = 33, ExecutionModeLocalSize = 17 };
enum : uint32_t { StorageClassUniform = 2, StorageClassWorkgroup = 4, StorageClassStorageBuffer = 12 };

// A SPIR-V literal string: UTF-8 bytes, NUL-terminated, packed little-endian into words.
std::string literal_string(const uint32_t* w, size_t words) {
  std::string s;
  for (size_t i = 0; i < words; ++i)
    for (int b = 0; b < 4; ++b) {
      const char c = char((w[i] >> (8 * b)) & 0xFFu);
      if (!c) return s;
      s += c;
    }
  return s;
}

}  // namespace

KernelInterface reflect(const std::vector<uint32_t>& words, const std::string& name) {
  if (words.size() < 5 || words[0] != 0x07230203u)
    fail(ErrorCode::ShaderCompile, name + ": not a SPIR-V module (bad magic or too short)");
  KernelInterface out;
  std::map<uint32_t, uint32_t> binding_of;  // decorated id -> binding
  std::map<uint32_t, uint32_t> root;        // pointer id -> binding it points into
  uint32_t args_struct = 0;                  // the id named WeftArgs
  uint32_t engine_status = 0;                // the variable weft_engine_status: the engine's, never a stage's
  std::map<std::pair<uint32_t, uint32_t>, std::string> member_names;  // (struct id, member) -> name
  // Byte sizes of the types shared variables are made of (types are declared before use).
  std::map<uint32_t, uint64_t> type_bytes, constant, pointee;
  std::set<uint32_t> spec_ids;
  auto size_of = [&](uint32_t id) { return type_bytes.count(id) ? type_bytes[id] : 0; };
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16, op = words[i] & 0xFFFFu;
    if (count == 0 || i + count > words.size())
      fail(ErrorCode::ShaderCompile, name + ": malformed SPIR-V instruction at word " + std::to_string(i));
    const uint32_t* w = &words[i];
    switch (op) {
      case OpName:
        if (count >= 3 && literal_string(w + 2, count - 2) == "WeftArgs") args_struct = w[1];
        if (count >= 3 && literal_string(w + 2, count - 2) == "weft_engine_status") engine_status = w[1];
        break;
      case OpMemberName:
        if (count >= 4) member_names[{w[1], w[2]}] = literal_string(w + 3, count - 3);
        break;
      case OpCapability:
        out.features |= feature_of_capability(w[1]);
        break;
      case OpExecutionMode:
        if (count >= 6 && w[2] == ExecutionModeLocalSize) out.local_size = {w[3], w[4], w[5]};
        break;
      case OpDecorate:
        if (count >= 4 && w[2] == DecorationBinding) binding_of[w[1]] = w[3];
        if (count >= 4 && w[2] == DecorationSpecId) spec_ids.insert(w[3]);
        break;
      case OpVariable:
        if (count >= 4 && (w[3] == StorageClassStorageBuffer || w[3] == StorageClassUniform) && binding_of.count(w[2]) &&
            w[2] != engine_status)
          root[w[2]] = binding_of[w[2]];
        if (count >= 4 && w[3] == StorageClassWorkgroup) out.shared_bytes += size_of(pointee[w[1]]);
        break;
      case OpTypeBool:
        if (count >= 2) type_bytes[w[1]] = 4;
        break;
      case OpTypeInt:
      case OpTypeFloat:
        if (count >= 3) type_bytes[w[1]] = w[2] / 8;
        break;
      case OpTypeVector:
      case OpTypeMatrix:
        if (count >= 4) type_bytes[w[1]] = size_of(w[2]) * w[3];
        break;
      case OpTypeArray:
        if (count >= 4) type_bytes[w[1]] = size_of(w[2]) * (constant.count(w[3]) ? constant[w[3]] : 0);
        break;
      case OpTypeStruct:
        for (uint32_t m = 2; m < count; ++m) type_bytes[w[1]] += size_of(w[m]);
        break;
      case OpTypePointer:
        if (count >= 4) pointee[w[1]] = w[3];
        break;
      case OpConstant:
        if (count >= 4) constant[w[2]] = w[3];  // the low word: array lengths are 32-bit
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
  if (args_struct)
    for (uint32_t m = 0; member_names.count({args_struct, m}); ++m) out.arg_names.push_back(member_names[{args_struct, m}]);
  out.streaming = spec_ids.count(kShapeWorkgroupSizeId) && spec_ids.count(kShapeUnitsPerInvocationId);
  return out;
}

Kernel::Kernel(std::string name, std::vector<uint32_t> spirv, std::vector<uint32_t> clock_variant,
               KernelSignature signature)
    : name_(std::move(name)), spirv_(std::move(spirv)), spirv_clock_(std::move(clock_variant)),
      signature_(std::move(signature)) {
  interface_ = reflect(spirv_, name_);
  interface_clock_ = spirv_clock_.empty() ? interface_ : reflect(spirv_clock_, name_ + " (clock variant)");
  // The signature comes from a preprocessing pass, the modules from compiling: both must have
  // seen the same WEFT_ARGS list.
  std::vector<std::string> declared;
  for (const ArgSpec& a : signature_) declared.push_back(a.name);
  for (const KernelInterface* k : {&interface_, &interface_clock_})
    if (k->arg_names != declared) {
      std::string compiled;
      for (const std::string& n : k->arg_names) compiled += (compiled.empty() ? "" : ", ") + n;
      fail(ErrorCode::ShaderCompile, name_ + ": the compiled argument struct holds (" + compiled +
                                         ") but the kernel's declaration says (" + format_signature(signature_) + ")");
    }
}

Kernel::Kernel(const EmbeddedKernel& e)
    : Kernel(e.name, std::vector<uint32_t>(e.spirv, e.spirv + e.spirv_words),
             e.spirv_clock ? std::vector<uint32_t>(e.spirv_clock, e.spirv_clock + e.spirv_clock_words)
                           : std::vector<uint32_t>{},
             parse_signature(e.described_args ? e.described_args : "", e.name)) {}

const std::vector<uint32_t>& Kernel::spirv(bool clock) const {
  return clock && !spirv_clock_.empty() ? spirv_clock_ : spirv_;
}

const KernelInterface& Kernel::interface(bool clock) const {
  return clock && !spirv_clock_.empty() ? interface_clock_ : interface_;
}

namespace {
constexpr std::string_view kFarSuffix = ".far";
}

KernelRef KernelTable::get(const std::string& name) const {
  std::lock_guard lock(mutex_);
  if (auto it = built_.find(name); it != built_.end()) return it->second;
  const EmbeddedKernel *plain = nullptr, *far = nullptr;
  const std::string far_name = name + std::string(kFarSuffix);
  for (size_t i = 0; i < count_; ++i) {
    if (name == entries_[i].name) plain = &entries_[i];
    if (far_name == entries_[i].name) far = &entries_[i];
  }
  if (plain) {
    auto k = std::make_shared<Kernel>(*plain);
    if (far) k->far_variant_ = std::make_shared<const Kernel>(*far);
    return built_[name] = std::move(k);
  }
  std::string known;
  for (const std::string& n : names()) known += (known.empty() ? "" : ", ") + n;
  fail(ErrorCode::BadInput, std::string(name_) + ": no embedded kernel named '" + name + "' (known: " + known + ")");
}

FeatureSet KernelTable::required_features() const {
  FeatureSet set = 0;
  for (const std::string& name : names()) set |= get(name)->interface(false).features;
  return set;
}

std::vector<std::string> KernelTable::names() const {
  std::vector<std::string> out;  // far variants are reached through their kernel, not by name
  for (size_t i = 0; i < count_; ++i)
    if (!std::string_view(entries_[i].name).ends_with(kFarSuffix)) out.push_back(entries_[i].name);
  return out;
}

}  // namespace weft
