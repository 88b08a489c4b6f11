#include "pipeline_cache.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "device.h"
#include "error.h"
#include "weft_layout.h"

namespace weft {

namespace {

constexpr char kMagic[8] = {'W', 'E', 'F', 'T', 'P', 'C', '1', '\0'};
constexpr size_t kHeader = 8 + 8 + 8;  // magic, payload bytes, FNV-1a of the payload
constexpr uint64_t kMaxCacheBytes = uint64_t(1) << 30;

uint64_t fnv1a(const uint8_t* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

uint64_t get64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

std::string hex(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += d[p[i] >> 4], s += d[p[i] & 15];
  return s;
}

// <folder>/pipelines-<vendor>-<device>-<pipelineCacheUUID>.bin, or "" when persistence is off.
std::string cache_file(const Device& device) {
  namespace fs = std::filesystem;
  std::string dir;
  if (const char* env = std::getenv("WEFT_PIPELINE_CACHE")) {
    if (!*env || std::strcmp(env, "0") == 0 || std::strcmp(env, "off") == 0) return {};
    dir = env;
  } else if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) {
    dir = std::string(xdg) + "/weft";
  } else if (const char* home = std::getenv("HOME"); home && *home) {
    dir = std::string(home) + "/.cache/weft";
  } else {
    return {};
  }
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(device.physical(), &props);
  char ids[32];
  std::snprintf(ids, sizeof ids, "%04x-%04x", props.vendorID, props.deviceID);
  return (fs::path(dir) / ("pipelines-" + std::string(ids) + "-" + hex(props.pipelineCacheUUID, VK_UUID_SIZE) + ".bin")).string();
}

}  // namespace

std::vector<uint8_t> PipelineCache::load() {
  if (file_.empty()) return {};
  std::error_code ec;
  const auto size = std::filesystem::file_size(file_, ec);
  if (ec) return {};  // no cache yet
  const auto reject = [&](const std::string& why) {
    rejected_ = file_ + ": " + why;
    return std::vector<uint8_t>{};
  };
  if (size < kHeader || size > kMaxCacheBytes) return reject("size " + std::to_string(size) + " is not a cache file's");
  std::ifstream in(file_, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() != size) return reject("could not be read whole");
  if (std::memcmp(bytes.data(), kMagic, 8) != 0) return reject("not a Weft pipeline cache (magic)");
  const uint64_t payload = get64(bytes.data() + 8);
  if (payload != size - kHeader) return reject("its length field says " + std::to_string(payload) + " bytes, the file holds " + std::to_string(size - kHeader));
  const uint8_t* data = bytes.data() + kHeader;
  if (fnv1a(data, payload) != get64(bytes.data() + 16)) return reject("checksum mismatch (a torn or corrupted file)");
  // The driver's own header (VkPipelineCacheHeaderVersionOne): length 32, version 1, vendor,
  // device and pipelineCacheUUID of this device — another driver's data is never passed on.
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(device_.physical(), &props);
  uint32_t words[4];
  if (payload < 16 + VK_UUID_SIZE) return reject("too short for a Vulkan pipeline cache header");
  std::memcpy(words, data, 16);
  if (words[0] < 16 + VK_UUID_SIZE || words[1] != VK_PIPELINE_CACHE_HEADER_VERSION_ONE || words[2] != props.vendorID ||
      words[3] != props.deviceID || std::memcmp(data + 16, props.pipelineCacheUUID, VK_UUID_SIZE) != 0)
    return reject("written by another device or driver");
  return std::vector<uint8_t>(data, data + payload);
}

void PipelineCache::save() const {
  namespace fs = std::filesystem;
  if (file_.empty() || !vk_cache_) return;
  size_t n = 0;
  if (vkGetPipelineCacheData(device_.vk(), vk_cache_, &n, nullptr) != VK_SUCCESS || n == 0 || n > kMaxCacheBytes) return;
  std::vector<uint8_t> out(kHeader + n);
  if (vkGetPipelineCacheData(device_.vk(), vk_cache_, &n, out.data() + kHeader) != VK_SUCCESS) return;
  out.resize(kHeader + n);
  std::memcpy(out.data(), kMagic, 8);
  const uint64_t len = n, sum = fnv1a(out.data() + kHeader, n);
  std::memcpy(out.data() + 8, &len, 8);
  std::memcpy(out.data() + 16, &sum, 8);
  std::error_code ec;
  fs::create_directories(fs::path(file_).parent_path(), ec);
  // A unique temporary name per writer, then rename(2): readers see the old file or the new one,
  // never a partial one, and concurrent writers each replace it whole.
  const std::string tmp = file_ + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(std::random_device{}());
  {
    std::ofstream o(tmp, std::ios::binary | std::ios::trunc);
    o.write(reinterpret_cast<const char*>(out.data()), std::streamsize(out.size()));
    o.flush();
    if (!o) {
      fs::remove(tmp, ec);
      return;
    }
  }
  fs::rename(tmp, file_, ec);
  if (ec) fs::remove(tmp, ec);
}

PipelineCache::PipelineCache(Device& device) : device_(device) {
  VkDescriptorSetLayoutBinding bindings[WEFT_BINDING_COUNT]{};
  for (uint32_t b = 0; b < WEFT_BINDING_COUNT; ++b) {
    bindings[b].binding = b;
    bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = WEFT_BINDING_COUNT;
  li.pBindings = bindings;
  vk_check(vkCreateDescriptorSetLayout(device.vk(), &li, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, WEFT_PUSH_BYTES};
  VkPipelineLayoutCreateInfo pi{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pi.setLayoutCount = 1;
  pi.pSetLayouts = &set_layout_;
  pi.pushConstantRangeCount = 1;
  pi.pPushConstantRanges = &push;
  vk_check(vkCreatePipelineLayout(device.vk(), &pi, nullptr, &pipeline_layout_), "vkCreatePipelineLayout");
  file_ = cache_file(device);
  const std::vector<uint8_t> data = load();
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  ci.initialDataSize = data.size();
  ci.pInitialData = data.empty() ? nullptr : data.data();
  vk_check(vkCreatePipelineCache(device.vk(), &ci, nullptr, &vk_cache_), "vkCreatePipelineCache");
}

PipelineCache::~PipelineCache() {
  try {
    save();
  } catch (...) {  // a cache that cannot be written only costs the next process its build time
  }
  for (auto& [h, p] : pipelines_) vkDestroyPipeline(device_.vk(), p, nullptr);
  vkDestroyPipelineCache(device_.vk(), vk_cache_, nullptr);
  vkDestroyPipelineLayout(device_.vk(), pipeline_layout_, nullptr);
  vkDestroyDescriptorSetLayout(device_.vk(), set_layout_, nullptr);
}

uint64_t PipelineCache::hash(const std::vector<uint32_t>& spirv) {
  return fnv1a(reinterpret_cast<const uint8_t*>(spirv.data()), spirv.size() * 4);
}

size_t PipelineCache::size() const {
  std::lock_guard lock(mutex_);
  return pipelines_.size();
}

namespace {

// InvalidProgram unless the device can run the workgroup the pipeline would: the kernel's own, or
// the shape's for a streaming kernel (which needs one; other kernels take none).
void check_workgroup(const Kernel& kernel, const KernelInterface& iface, const KernelShape& shape, const DeviceInfo& info) {
  const std::string who = "kernel '" + kernel.name() + "'";
  if (iface.streaming && shape.empty())
    fail(ErrorCode::InvalidProgram, who + " is a streaming kernel: its pipeline needs a kernel shape");
  if (!iface.streaming && !shape.empty())
    fail(ErrorCode::InvalidProgram, who + " is not a streaming kernel: it takes no kernel shape");
  if (iface.streaming) return check_kernel_shape(shape, info, who);
  const auto& ls = iface.local_size;
  for (int d = 0; d < 3; ++d)
    if (ls[d] > info.max_workgroup_size[d])
      fail(ErrorCode::InvalidProgram, who + " has local_size[" + std::to_string(d) + "] = " + std::to_string(ls[d]) +
                                          " > device limit " + std::to_string(info.max_workgroup_size[d]));
  if (uint64_t(ls[0]) * ls[1] * ls[2] > info.max_workgroup_invocations)
    fail(ErrorCode::InvalidProgram, who + " workgroup of " + std::to_string(uint64_t(ls[0]) * ls[1] * ls[2]) +
                                        " invocations exceeds the device limit " + std::to_string(info.max_workgroup_invocations));
}

}  // namespace

VkPipeline PipelineCache::pipeline(const Kernel& kernel, const KernelShape& shape) {
  const bool clock = device_.info().shader_clock;
  const auto& spirv = kernel.spirv(clock);
  const uint64_t key = hash(spirv) ^ (uint64_t(shape.workgroup_size) << 32 | shape.units_per_invocation) * 0x9E3779B97F4A7C15ull;
  std::lock_guard lock(mutex_);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;

  const KernelInterface& iface = kernel.interface(clock);
  if (const FeatureSet missing = iface.features & ~features_of(device_.info()))
    fail(ErrorCode::MissingFeature, "kernel '" + kernel.name() + "' needs " + describe_features(missing) + ", which " +
                                        device_.info().name + " does not have enabled");
  check_workgroup(kernel, iface, shape, device_.info());

  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.size() * 4;
  mi.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  vk_check(vkCreateShaderModule(device_.vk(), &mi, nullptr, &module), "vkCreateShaderModule");
  const uint32_t shape_words[2] = {shape.workgroup_size, shape.units_per_invocation};
  const VkSpecializationMapEntry entries[2] = {{kShapeWorkgroupSizeId, 0, 4}, {kShapeUnitsPerInvocationId, 4, 4}};
  const VkSpecializationInfo specialization{2, entries, sizeof shape_words, shape_words};
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = iface.streaming ? &specialization : nullptr;
  ci.layout = pipeline_layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult r = vkCreateComputePipelines(device_.vk(), vk_cache_, 1, &ci, nullptr, &pipeline);
  vkDestroyShaderModule(device_.vk(), module, nullptr);
  vk_check(r, ("vkCreateComputePipelines for kernel '" + kernel.name() + "'").c_str());
  pipelines_[key] = pipeline;
  return pipeline;
}

}  // namespace weft
