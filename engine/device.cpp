#include "device.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#include "error.h"
#include "pipeline_cache.h"

namespace weft {

namespace {

const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

void load_loader() {
  static const VkResult loaded = volkInitialize();
  if (loaded != VK_SUCCESS)
    fail(ErrorCode::NoDevice, "no Vulkan loader (libvulkan.so.1) could be opened; install libvulkan1");
}

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

bool layer_present(const char* name) {
  uint32_t n = 0;
  vkEnumerateInstanceLayerProperties(&n, nullptr);
  std::vector<VkLayerProperties> layers(n);
  vkEnumerateInstanceLayerProperties(&n, layers.data());
  for (auto& l : layers)
    if (std::strcmp(l.layerName, name) == 0) return true;
  return false;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                   void* user) {
  auto* log = static_cast<ValidationLog*>(user);
  log->add(data && data->pMessage ? data->pMessage : "(empty validation message)");
  return VK_FALSE;
}

VkInstance create_instance(bool validation, bool sync, ValidationLog* log, VkDebugUtilsMessengerEXT* messenger) {
  load_loader();
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "weft";
  app.pEngineName = "weft";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> layers, extensions;
  if (validation) {
    if (!layer_present(kValidationLayer))
      fail(ErrorCode::MissingFeature,
           "validation requested but VK_LAYER_KHRONOS_validation is not installed "
           "(apt-get install vulkan-validationlayers)");
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    if (sync) extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
  }
  VkValidationFeatureEnableEXT sync_feature = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  features.enabledValidationFeatureCount = 1;
  features.pEnabledValidationFeatures = &sync_feature;
  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pNext = validation && sync ? &features : nullptr;
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = uint32_t(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = uint32_t(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();
  VkInstance instance = VK_NULL_HANDLE;
  VkResult r = vkCreateInstance(&ci, nullptr, &instance);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
    fail(ErrorCode::NoDevice, "no Vulkan driver is installed (apt-get install mesa-vulkan-drivers for lavapipe)");
  vk_check(r, "vkCreateInstance");
  volkLoadInstance(instance);
  if (validation) {
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                         VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                     VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT;
    mi.pfnUserCallback = on_validation_message;
    mi.pUserData = log;
    vk_check(vkCreateDebugUtilsMessengerEXT(instance, &mi, nullptr, messenger),
             "vkCreateDebugUtilsMessengerEXT");
  }
  return instance;
}

bool has_extension(VkPhysicalDevice pd, const char* name) {
  uint32_t n = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
  std::vector<VkExtensionProperties> exts(n);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, exts.data());
  for (auto& e : exts)
    if (std::strcmp(e.extensionName, name) == 0) return true;
  return false;
}

const char* type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

int compute_queue_family(VkPhysicalDevice pd) {
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
  int best = -1;
  for (uint32_t i = 0; i < n; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    if (best < 0 || (families[best].timestampValidBits == 0 && families[i].timestampValidBits != 0)) best = int(i);
  }
  return best;
}

// Fills `info` and, when the device is usable, the feature chain to enable.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  void link(bool with_clock) {
    f2.pNext = &f11;
    f11.pNext = &f12;
    f12.pNext = with_clock ? &clock : nullptr;
  }
};

DeviceInfo describe(VkPhysicalDevice pd, uint32_t index, FeatureChain* chain) {
  DeviceInfo info;
  info.index = index;
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(pd, &props);
  info.name = props.deviceName;
  info.type = type_name(props.deviceType);
  info.vendor_id = props.vendorID;
  info.device_id = props.deviceID;
  info.api_version = props.apiVersion;
  const auto& lim = props.limits;
  info.max_storage_buffer_range = lim.maxStorageBufferRange;
  info.min_storage_buffer_offset_alignment = lim.minStorageBufferOffsetAlignment;
  info.non_coherent_atom_size = lim.nonCoherentAtomSize;
  info.max_push_constants = lim.maxPushConstantsSize;
  info.max_workgroup_invocations = lim.maxComputeWorkGroupInvocations;
  info.max_compute_shared_memory = lim.maxComputeSharedMemorySize;
  for (int i = 0; i < 3; ++i) {
    info.max_workgroup_size[i] = lim.maxComputeWorkGroupSize[i];
    info.max_workgroup_count[i] = lim.maxComputeWorkGroupCount[i];
  }
  info.timestamp_period_ns = lim.timestampPeriod;
  VkPhysicalDeviceMemoryProperties mem{};
  vkGetPhysicalDeviceMemoryProperties(pd, &mem);
  for (uint32_t h = 0; h < mem.memoryHeapCount; ++h)
    if (mem.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) info.device_local_bytes += mem.memoryHeaps[h].size;

  int family = compute_queue_family(pd);
  if (VK_API_VERSION_MAJOR(props.apiVersion) == 1 && VK_API_VERSION_MINOR(props.apiVersion) < 2) {
    info.unusable_reason = "Vulkan " + info.api_string() + " < 1.2";
    return info;
  }
  if (family < 0) {
    info.unusable_reason = "no compute queue";
    return info;
  }
  uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
  info.timestamps = families[family].timestampValidBits != 0 && lim.timestampComputeAndGraphics;

  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  VkPhysicalDeviceVulkan11Properties p11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES};
  VkPhysicalDeviceVulkan12Properties p12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  p2.pNext = &p11;
  p11.pNext = &p12;
  p12.pNext = &m3;
  vkGetPhysicalDeviceProperties2(pd, &p2);
  info.subgroup_size = p11.subgroupSize;
  info.subgroup_operations = p11.subgroupSupportedOperations;
  info.subgroup_in_compute = (p11.subgroupSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  info.driver = p12.driverName;
  info.driver_info = p12.driverInfo;
  info.max_memory_allocation_size = m3.maxMemoryAllocationSize;

  FeatureChain local;
  FeatureChain& fc = chain ? *chain : local;
  bool clock_ext = has_extension(pd, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  fc.link(clock_ext);
  vkGetPhysicalDeviceFeatures2(pd, &fc.f2);
  info.buffer_device_address = fc.f12.bufferDeviceAddress;
  info.shader_clock = clock_ext && fc.clock.shaderSubgroupClock;
  info.shader_int64 = fc.f2.features.shaderInt64;
  info.shader_float64 = fc.f2.features.shaderFloat64;
  info.shader_int16 = fc.f2.features.shaderInt16;
  info.shader_float16 = fc.f12.shaderFloat16;
  info.shader_int8 = fc.f12.shaderInt8;
  info.storage_16bit = fc.f11.storageBuffer16BitAccess;
  info.storage_8bit = fc.f12.storageBuffer8BitAccess;
  info.subgroup_size_control = has_extension(pd, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  if (!fc.f12.timelineSemaphore) {
    info.unusable_reason = "no timeline semaphores";
    return info;
  }
  info.usable = true;
  return info;
}

// WEFT_WITHOUT_FEATURES: every device as if it lacked these (DeviceOptions::without_features).
FeatureSet withheld_by_environment() {
  const char* names = std::getenv("WEFT_WITHOUT_FEATURES");
  return names ? parse_features(names) : 0;
}

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string DeviceInfo::api_string() const {
  return std::to_string(VK_API_VERSION_MAJOR(api_version)) + "." + std::to_string(VK_API_VERSION_MINOR(api_version)) +
         "." + std::to_string(VK_API_VERSION_PATCH(api_version));
}

int DeviceInfo::rank() const {
  if (!usable) return -1;
  if (type == "discrete") return 4;
  if (type == "integrated") return 3;
  if (type == "virtual") return 2;
  if (type == "cpu") return 1;
  return 0;
}

void ValidationLog::add(std::string message) {
  std::lock_guard lock(mutex_);
  if (echo) std::fprintf(stderr, "[validation] %s\n", message.c_str());
  messages_.push_back(std::move(message));
}
size_t ValidationLog::count() const {
  std::lock_guard lock(mutex_);
  return messages_.size();
}
std::vector<std::string> ValidationLog::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}
void ValidationLog::clear() {
  std::lock_guard lock(mutex_);
  messages_.clear();
}

std::vector<DeviceInfo> Device::list() {
  VkDebugUtilsMessengerEXT none = VK_NULL_HANDLE;
  VkInstance instance = create_instance(false, false, nullptr, &none);
  uint32_t n = 0;
  vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> pds(n);
  vkEnumeratePhysicalDevices(instance, &n, pds.data());
  std::vector<DeviceInfo> out;
  const FeatureSet withheld = withheld_by_environment();
  for (uint32_t i = 0; i < n; ++i) {
    out.push_back(describe(pds[i], i, nullptr));
    withhold_features(out.back(), withheld);
  }
  vkDestroyInstance(instance, nullptr);
  return out;
}

uint32_t Device::choose(const std::vector<DeviceInfo>& infos, const std::string& requested) {
  if (infos.empty()) fail(ErrorCode::NoDevice, "the Vulkan loader reports no physical device");
  std::string select = requested;
  if (select.empty()) {
    const char* env = std::getenv("WEFT_DEVICE");
    if (env) select = env;
  }
  const size_t n = infos.size();
  int chosen = -1;
  if (select.empty()) {
    for (size_t i = 0; i < n; ++i)
      if (infos[i].usable && (chosen < 0 || infos[i].rank() > infos[chosen].rank())) chosen = int(i);
    if (chosen < 0) fail(ErrorCode::NoDevice, "no usable Vulkan device: " + infos[0].name + " has " + infos[0].unusable_reason);
  } else if (std::all_of(select.begin(), select.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    const unsigned long idx = std::strtoul(select.c_str(), nullptr, 10);
    if (select.size() > 9 || idx >= n)
      fail(ErrorCode::NoDevice, "device index " + select + " is out of range (" + std::to_string(n) + " devices)");
    chosen = int(idx);
  } else {
    for (size_t i = 0; i < n && chosen < 0; ++i)
      if (lower(infos[i].name).find(lower(select)) != std::string::npos) chosen = int(i);
    if (chosen < 0) fail(ErrorCode::NoDevice, "no device name contains '" + select + "' (see weft info)");
  }
  if (!infos[chosen].usable)
    fail(ErrorCode::MissingFeature, "device " + infos[chosen].name + " is not usable: " + infos[chosen].unusable_reason);
  return uint32_t(chosen);
}

std::unique_ptr<Device> Device::open(const DeviceOptions& options) {
  std::unique_ptr<Device> dev(new Device());
  dev->validation_enabled_ = options.validation || options.sync_validation || env_flag("WEFT_VALIDATION");
  dev->validation_log_->echo = env_flag("WEFT_VALIDATION");
  dev->instance_ = create_instance(dev->validation_enabled_, options.sync_validation, dev->validation_log_.get(),
                                   &dev->messenger_);
  if (dev->messenger_)
    dev->destroy_messenger_ = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(dev->instance_, "vkDestroyDebugUtilsMessengerEXT"));

  uint32_t n = 0;
  vkEnumeratePhysicalDevices(dev->instance_, &n, nullptr);
  std::vector<VkPhysicalDevice> pds(n);
  vkEnumeratePhysicalDevices(dev->instance_, &n, pds.data());
  std::vector<DeviceInfo> infos;
  for (uint32_t i = 0; i < n; ++i) infos.push_back(describe(pds[i], i, nullptr));

  const uint32_t chosen = choose(infos, options.select);

  FeatureChain fc;
  dev->info_ = describe(pds[chosen], uint32_t(chosen), &fc);
  withhold_features(dev->info_, options.without_features | withheld_by_environment());
  dev->physical_ = pds[chosen];
  dev->queue_family_ = uint32_t(compute_queue_family(pds[chosen]));
  vkGetPhysicalDeviceMemoryProperties(dev->physical_, &dev->memory_);

  // Enable the optional features kernels may need (their SPIR-V says which, device_features.h)
  // wherever the device has them and they are not withheld; nothing else.
  const DeviceInfo& on = dev->info_;
  VkPhysicalDeviceFeatures2 f2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  VkPhysicalDeviceVulkan11Features f11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
  VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  VkPhysicalDeviceShaderClockFeaturesKHR clock{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR};
  f2.pNext = &f11;
  f11.pNext = &f12;
  f2.features.shaderInt64 = on.shader_int64;
  f2.features.shaderFloat64 = on.shader_float64;
  f2.features.shaderInt16 = on.shader_int16;
  f11.storageBuffer16BitAccess = on.storage_16bit;
  f12.timelineSemaphore = VK_TRUE;
  f12.bufferDeviceAddress = on.buffer_device_address;
  f12.shaderFloat16 = on.shader_float16;
  f12.shaderInt8 = on.shader_int8;
  f12.storageBuffer8BitAccess = on.storage_8bit;
  std::vector<const char*> extensions;
  if (dev->info_.shader_clock) {
    extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
    clock.shaderSubgroupClock = VK_TRUE;
    f12.pNext = &clock;
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  qi.queueFamilyIndex = dev->queue_family_;
  qi.queueCount = 1;
  qi.pQueuePriorities = &priority;
  VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  di.pNext = &f2;
  di.queueCreateInfoCount = 1;
  di.pQueueCreateInfos = &qi;
  di.enabledExtensionCount = uint32_t(extensions.size());
  di.ppEnabledExtensionNames = extensions.data();
  vk_check(vkCreateDevice(dev->physical_, &di, nullptr, &dev->device_), "vkCreateDevice");
  vkGetDeviceQueue(dev->device_, dev->queue_family_, 0, &dev->queue_);

  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pi.queueFamilyIndex = dev->queue_family_;
  vk_check(vkCreateCommandPool(dev->device_, &pi, nullptr, &dev->once_pool_), "vkCreateCommandPool");
  return dev;
}

Device::~Device() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    pipelines_.reset();
    if (once_pool_) vkDestroyCommandPool(device_, once_pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_ && destroy_messenger_) destroy_messenger_(instance_, messenger_, nullptr);
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

uint32_t Device::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                             VkMemoryPropertyFlags preferred) const {
  uint32_t fallback = UINT32_MAX;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    VkMemoryPropertyFlags f = memory_.memoryTypes[i].propertyFlags;
    if ((f & required) != required) continue;
    if ((f & preferred) == preferred) return i;
    if (fallback == UINT32_MAX) fallback = i;
  }
  return fallback;
}

PipelineCache& Device::pipelines() {
  std::lock_guard lock(pipelines_mutex_);
  if (!pipelines_) pipelines_ = std::make_unique<PipelineCache>(*this);
  return *pipelines_;
}

VkMemoryPropertyFlags Device::memory_flags(uint32_t type) const { return memory_.memoryTypes[type].propertyFlags; }

void Device::submit(const VkSubmitInfo& info, VkFence fence) {
  require_not_lost("vkQueueSubmit");
  std::lock_guard lock(queue_mutex_);
  const VkResult r = vkQueueSubmit(queue_, 1, &info, fence);
  if (r == VK_ERROR_DEVICE_LOST) throw note_lost("vkQueueSubmit");
  vk_check(r, "vkQueueSubmit");
}

Error Device::note_lost(const std::string& what) {
  lost_ = true;
  return Error(ErrorCode::DeviceLost, "device '" + info_.name + "' was lost (" + what +
                                          " answered VK_ERROR_DEVICE_LOST); the results of its programs are void: open a new device");
}

Status Device::lost_status(const std::string& what) const {
  if (!lost_) return Status::success();
  return Status::failure(ErrorCode::DeviceLost, what + ": device '" + info_.name + "' was lost earlier; open a new device");
}

void Device::require_not_lost(const std::string& what) const { lost_status(what).throw_if_failed(); }

void Device::run_once(const std::function<void(VkCommandBuffer)>& fn) {
  require_not_lost("one-shot submission");
  // The pool's command buffers may be recorded by one thread at a time (Vulkan's external
  // synchronization of the pool): one one-shot submission at a time per device.
  std::lock_guard once(once_mutex_);
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = once_pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  vk_check(vkAllocateCommandBuffers(device_, &ai, &cmd), "vkAllocateCommandBuffers");
  VkFence fence = VK_NULL_HANDLE;
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  VkResult r = vkCreateFence(device_, &fi, nullptr, &fence);
  if (r == VK_SUCCESS) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    vkBeginCommandBuffer(cmd, &bi);
    try {
      fn(cmd);
    } catch (...) {
      vkEndCommandBuffer(cmd);
      vkDestroyFence(device_, fence, nullptr);
      vkFreeCommandBuffers(device_, once_pool_, 1, &cmd);
      throw;
    }
    r = vkEndCommandBuffer(cmd);
    if (r == VK_SUCCESS) {
      VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      si.commandBufferCount = 1;
      si.pCommandBuffers = &cmd;
      {
        std::lock_guard lock(queue_mutex_);
        r = vkQueueSubmit(queue_, 1, &si, fence);
      }
      if (r == VK_SUCCESS) r = vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX);
    }
    vkDestroyFence(device_, fence, nullptr);
  }
  vkFreeCommandBuffers(device_, once_pool_, 1, &cmd);
  if (r == VK_ERROR_DEVICE_LOST) throw note_lost("one-shot submission");
  vk_check(r, "one-shot submission");
}

}  // namespace weft
