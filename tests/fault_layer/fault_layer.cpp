// VK_LAYER_WEFT_fault: a Vulkan layer that makes a healthy driver fail the way a real one can, so
// tests can check what Weft does when the device is lost or its memory runs out, on any device.
// The engine under test is unchanged: the loader puts this layer between it and the driver
// (VK_INSTANCE_LAYERS), and the test arms a fault through fault_layer.h.
//
// A lost device answers VK_ERROR_DEVICE_LOST from every submission and wait, as the Vulkan spec
// allows, but first lets the driver finish what it was given, so the engine's clean-up after the
// loss frees nothing the driver still uses. A loss hits the devices that exist when it is asked
// for, so a device opened afterwards to recover works.
#include <vulkan/vk_layer.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>

namespace {

struct InstanceData {
  VkInstance instance = VK_NULL_HANDLE;
  PFN_vkGetInstanceProcAddr next_gipa = nullptr;
};

struct DeviceData {
  VkDevice device = VK_NULL_HANDLE;
  PFN_vkGetDeviceProcAddr next_gdpa = nullptr;
  PFN_vkQueueSubmit queue_submit = nullptr;
  PFN_vkWaitSemaphores wait_semaphores = nullptr;
  PFN_vkGetSemaphoreCounterValue semaphore_value = nullptr;
  PFN_vkWaitForFences wait_for_fences = nullptr;
  PFN_vkGetFenceStatus fence_status = nullptr;
  PFN_vkDeviceWaitIdle device_wait_idle = nullptr;
  PFN_vkQueueWaitIdle queue_wait_idle = nullptr;
  PFN_vkAllocateMemory allocate_memory = nullptr;
  PFN_vkDestroyDevice destroy_device = nullptr;
  std::atomic<bool> lost{false};
};

// The loader's dispatch key: the first word of every dispatchable handle.
void* key_of(const void* handle) { return *static_cast<void* const*>(handle); }

std::mutex g_mutex;
std::unordered_map<void*, InstanceData> g_instances;
std::unordered_map<void*, DeviceData> g_devices;
std::atomic<uint64_t> g_allocation_limit{0};  // 0: allocations succeed
std::atomic<uint64_t> g_devices_created{0};

DeviceData& device_data(const void* handle) {
  std::lock_guard lock(g_mutex);
  return g_devices.at(key_of(handle));
}

// A lost device lets the driver drain first (see the top), then answers DEVICE_LOST.
VkResult lose(DeviceData& d) {
  d.lost = true;
  d.device_wait_idle(d.device);
  return VK_ERROR_DEVICE_LOST;
}

VKAPI_ATTR VkResult VKAPI_CALL QueueSubmit(VkQueue queue, uint32_t count, const VkSubmitInfo* submits, VkFence fence) {
  DeviceData& d = device_data(queue);
  if (d.lost) return lose(d);
  return d.queue_submit(queue, count, submits, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL WaitSemaphores(VkDevice device, const VkSemaphoreWaitInfo* info, uint64_t timeout) {
  DeviceData& d = device_data(device);
  return d.lost ? lose(d) : d.wait_semaphores(device, info, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL GetSemaphoreCounterValue(VkDevice device, VkSemaphore semaphore, uint64_t* value) {
  DeviceData& d = device_data(device);
  return d.lost ? lose(d) : d.semaphore_value(device, semaphore, value);
}

VKAPI_ATTR VkResult VKAPI_CALL WaitForFences(VkDevice device, uint32_t count, const VkFence* fences, VkBool32 all,
                                             uint64_t timeout) {
  DeviceData& d = device_data(device);
  return d.lost ? lose(d) : d.wait_for_fences(device, count, fences, all, timeout);
}

VKAPI_ATTR VkResult VKAPI_CALL GetFenceStatus(VkDevice device, VkFence fence) {
  DeviceData& d = device_data(device);
  return d.lost ? lose(d) : d.fence_status(device, fence);
}

VKAPI_ATTR VkResult VKAPI_CALL DeviceWaitIdle(VkDevice device) {
  DeviceData& d = device_data(device);
  return d.lost ? lose(d) : d.device_wait_idle(device);
}

VKAPI_ATTR VkResult VKAPI_CALL QueueWaitIdle(VkQueue queue) {
  DeviceData& d = device_data(queue);
  return d.lost ? lose(d) : d.queue_wait_idle(queue);
}

VKAPI_ATTR VkResult VKAPI_CALL AllocateMemory(VkDevice device, const VkMemoryAllocateInfo* info,
                                              const VkAllocationCallbacks* allocator, VkDeviceMemory* memory) {
  DeviceData& d = device_data(device);
  const uint64_t limit = g_allocation_limit;
  if (limit && info->allocationSize >= limit) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
  return d.allocate_memory(device, info, allocator, memory);
}

VKAPI_ATTR void VKAPI_CALL DestroyDevice(VkDevice device, const VkAllocationCallbacks* allocator) {
  PFN_vkDestroyDevice destroy = nullptr;
  {
    std::lock_guard lock(g_mutex);
    auto it = g_devices.find(key_of(device));
    destroy = it->second.destroy_device;
    g_devices.erase(it);
  }
  destroy(device, allocator);
}

template <class Info>
Info* find_link(const void* chain, VkStructureType type) {
  auto* info = static_cast<Info*>(const_cast<void*>(chain));
  while (info && !(info->sType == type && info->function == VK_LAYER_LINK_INFO)) info = static_cast<Info*>(const_cast<void*>(info->pNext));
  return info;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* info, const VkAllocationCallbacks* allocator,
                                              VkInstance* instance) {
  auto* link = find_link<VkLayerInstanceCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  auto create = reinterpret_cast<PFN_vkCreateInstance>(next_gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  const VkResult r = create(info, allocator, instance);
  if (r != VK_SUCCESS) return r;
  std::lock_guard lock(g_mutex);
  g_instances[key_of(*instance)] = {*instance, next_gipa};
  return r;
}

template <class Fn>
Fn next_device_function(const DeviceData& d, const char* name) {
  return reinterpret_cast<Fn>(d.next_gdpa(d.device, name));
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice physical, const VkDeviceCreateInfo* info,
                                            const VkAllocationCallbacks* allocator, VkDevice* device) {
  auto* link = find_link<VkLayerDeviceCreateInfo>(info->pNext, VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (!link) return VK_ERROR_INITIALIZATION_FAILED;
  PFN_vkGetInstanceProcAddr next_gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  PFN_vkGetDeviceProcAddr next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  VkInstance instance = VK_NULL_HANDLE;  // a physical device shares its instance's dispatch key
  {
    std::lock_guard lock(g_mutex);
    instance = g_instances.at(key_of(physical)).instance;
  }
  auto create = reinterpret_cast<PFN_vkCreateDevice>(next_gipa(instance, "vkCreateDevice"));
  const VkResult r = create(physical, info, allocator, device);
  if (r != VK_SUCCESS) return r;
  std::lock_guard lock(g_mutex);
  DeviceData& d = g_devices[key_of(*device)];
  d.device = *device;
  d.next_gdpa = next_gdpa;
  d.queue_submit = next_device_function<PFN_vkQueueSubmit>(d, "vkQueueSubmit");
  d.wait_semaphores = next_device_function<PFN_vkWaitSemaphores>(d, "vkWaitSemaphores");
  d.semaphore_value = next_device_function<PFN_vkGetSemaphoreCounterValue>(d, "vkGetSemaphoreCounterValue");
  d.wait_for_fences = next_device_function<PFN_vkWaitForFences>(d, "vkWaitForFences");
  d.fence_status = next_device_function<PFN_vkGetFenceStatus>(d, "vkGetFenceStatus");
  d.device_wait_idle = next_device_function<PFN_vkDeviceWaitIdle>(d, "vkDeviceWaitIdle");
  d.queue_wait_idle = next_device_function<PFN_vkQueueWaitIdle>(d, "vkQueueWaitIdle");
  d.allocate_memory = next_device_function<PFN_vkAllocateMemory>(d, "vkAllocateMemory");
  d.destroy_device = next_device_function<PFN_vkDestroyDevice>(d, "vkDestroyDevice");
  ++g_devices_created;
  return r;
}

PFN_vkVoidFunction device_hook(const char* name) {
  struct Hook {
    const char* name;
    PFN_vkVoidFunction function;
  };
  static const Hook hooks[] = {
      {"vkQueueSubmit", reinterpret_cast<PFN_vkVoidFunction>(QueueSubmit)},
      {"vkWaitSemaphores", reinterpret_cast<PFN_vkVoidFunction>(WaitSemaphores)},
      {"vkWaitSemaphoresKHR", reinterpret_cast<PFN_vkVoidFunction>(WaitSemaphores)},
      {"vkGetSemaphoreCounterValue", reinterpret_cast<PFN_vkVoidFunction>(GetSemaphoreCounterValue)},
      {"vkGetSemaphoreCounterValueKHR", reinterpret_cast<PFN_vkVoidFunction>(GetSemaphoreCounterValue)},
      {"vkWaitForFences", reinterpret_cast<PFN_vkVoidFunction>(WaitForFences)},
      {"vkGetFenceStatus", reinterpret_cast<PFN_vkVoidFunction>(GetFenceStatus)},
      {"vkDeviceWaitIdle", reinterpret_cast<PFN_vkVoidFunction>(DeviceWaitIdle)},
      {"vkQueueWaitIdle", reinterpret_cast<PFN_vkVoidFunction>(QueueWaitIdle)},
      {"vkAllocateMemory", reinterpret_cast<PFN_vkVoidFunction>(AllocateMemory)},
      {"vkDestroyDevice", reinterpret_cast<PFN_vkVoidFunction>(DestroyDevice)},
  };
  for (const Hook& h : hooks)
    if (std::strcmp(name, h.name) == 0) return h.function;
  return nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetDeviceProcAddr(VkDevice device, const char* name) {
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
  if (PFN_vkVoidFunction hook = device_hook(name)) return hook;
  return device_data(device).next_gdpa(device, name);
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL GetInstanceProcAddr(VkInstance instance, const char* name) {
  if (std::strcmp(name, "vkGetInstanceProcAddr") == 0) return reinterpret_cast<PFN_vkVoidFunction>(GetInstanceProcAddr);
  if (std::strcmp(name, "vkCreateInstance") == 0) return reinterpret_cast<PFN_vkVoidFunction>(CreateInstance);
  if (std::strcmp(name, "vkCreateDevice") == 0) return reinterpret_cast<PFN_vkVoidFunction>(CreateDevice);
  if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) return reinterpret_cast<PFN_vkVoidFunction>(GetDeviceProcAddr);
  if (PFN_vkVoidFunction hook = device_hook(name)) return hook;
  if (!instance) return nullptr;
  PFN_vkGetInstanceProcAddr next = nullptr;
  {
    std::lock_guard lock(g_mutex);
    next = g_instances.at(key_of(instance)).next_gipa;
  }
  return next(instance, name);
}

}  // namespace

// The exported names, for the loader; the layer's own code refers to the functions above only,
// so nothing in the process can interpose on them (the library is built with hidden visibility).
#define WEFT_FAULT_EXPORT extern "C" __attribute__((visibility("default")))

WEFT_FAULT_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetDeviceProcAddr(VkDevice device, const char* name) {
  return GetDeviceProcAddr(device, name);
}

WEFT_FAULT_EXPORT VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL vkGetInstanceProcAddr(VkInstance instance, const char* name) {
  return GetInstanceProcAddr(instance, name);
}

WEFT_FAULT_EXPORT VKAPI_ATTR VkResult VKAPI_CALL vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* version) {
  if (version->loaderLayerInterfaceVersion > 2) version->loaderLayerInterfaceVersion = 2;
  version->pfnGetInstanceProcAddr = GetInstanceProcAddr;
  version->pfnGetDeviceProcAddr = GetDeviceProcAddr;
  version->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}

WEFT_FAULT_EXPORT void weft_fault_lose_devices(void) {
  std::lock_guard lock(g_mutex);
  for (auto& [key, d] : g_devices) d.lost = true;
}

WEFT_FAULT_EXPORT void weft_fault_limit_allocations(uint64_t bytes) { g_allocation_limit = bytes; }

WEFT_FAULT_EXPORT uint64_t weft_fault_devices_created(void) { return g_devices_created; }
