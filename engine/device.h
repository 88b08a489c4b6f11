// Devices: choosing one, what it can do, and the one-shot command helper transfers use.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "device_features.h"
#include "error.h"
#include "vk.h"

namespace weft {

struct DeviceOptions {
  // Empty: WEFT_DEVICE from the environment, else the best device (discrete > integrated >
  // virtual > CPU). Otherwise an index or a case-insensitive name substring.
  std::string select;
  // Enable the Khronos validation layer and record every message it prints. Also turned on by
  // WEFT_VALIDATION=1. Fails with MissingFeature when the layer is not installed.
  bool validation = false;
  // Also enable synchronization validation (implies validation): every missing barrier is
  // reported. It treats a descriptor's whole range as accessed, so it flags stages that the
  // planner correctly leaves unbarriered because they touch disjoint ranges of one buffer.
  bool sync_validation = false;
  // Optional features not to enable even where the device has them, as if it lacked them: how a
  // workload's refusal on a smaller device is tested anywhere. WEFT_WITHOUT_FEATURES adds to it
  // ("shaderFloat64,bufferDeviceAddress": device_features.h's names).
  FeatureSet without_features = 0;
};

struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  std::string type;  // "discrete", "integrated", "virtual", "cpu", "other"
  std::string driver;
  std::string driver_info;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t api_version = 0;
  uint64_t max_storage_buffer_range = 0;
  uint64_t max_memory_allocation_size = 0;
  uint64_t device_local_bytes = 0;
  uint64_t min_storage_buffer_offset_alignment = 0;
  uint64_t non_coherent_atom_size = 0;
  uint32_t max_push_constants = 0;
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_workgroup_size[3] = {};
  uint32_t max_workgroup_count[3] = {};
  uint32_t subgroup_size = 0;
  uint32_t subgroup_operations = 0;     // VkSubgroupFeatureFlags (basic, arithmetic, ballot, ...)
  bool subgroup_in_compute = false;     // subgroup operations are supported in compute shaders
  uint32_t max_compute_shared_memory = 0;  // bytes of shared memory per workgroup
  double timestamp_period_ns = 0;
  bool timestamps = false;
  // Optional features, enabled on the device whenever present.
  bool buffer_device_address = false;
  bool shader_clock = false;
  bool shader_int64 = false;
  bool shader_float64 = false;
  bool shader_int16 = false;
  bool shader_float16 = false;
  bool shader_int8 = false;
  bool storage_16bit = false;
  bool storage_8bit = false;
  bool subgroup_size_control = false;
  bool usable = false;      // Vulkan 1.2 with timeline semaphores and a compute queue
  std::string unusable_reason;

  std::string api_string() const;
  int rank() const;  // higher is preferred by the default choice
};

// Messages from the validation layer (errors and warnings), kept for tests to assert on.
class ValidationLog {
 public:
  // Also print each message to stderr as it arrives (WEFT_VALIDATION=1 from the environment).
  bool echo = false;
  void add(std::string message);
  size_t count() const;
  std::vector<std::string> messages() const;
  void clear();

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

class PipelineCache;

class Device {
 public:
  // Every Vulkan device on this machine (usable or not), in enumeration order.
  static std::vector<DeviceInfo> list();
  // The device the options (or WEFT_DEVICE) choose; NoDevice when none matches.
  static std::unique_ptr<Device> open(const DeviceOptions& options = {});
  // Which of `devices` a selection string (empty: WEFT_DEVICE, else the best) picks. NoDevice
  // when nothing matches; MissingFeature when the match cannot run Weft.
  static uint32_t choose(const std::vector<DeviceInfo>& devices, const std::string& select);
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  const DeviceInfo& info() const { return info_; }
  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical() const { return physical_; }
  VkDevice vk() const { return device_; }
  // The one queue every executable of the device submits to. Vulkan requires submissions to a
  // queue to be serialized, and executables may run on several threads: submit() does it; code
  // that hands the raw queue to a library (VkFFT) holds queue_lock() while the library may use it.
  VkQueue queue() const { return queue_; }
  void submit(const VkSubmitInfo& info, VkFence fence);
  // A device that answered VK_ERROR_DEVICE_LOST stays lost: every later submission, wait and
  // host access of its executables fails with DeviceLost, and the results of its programs are
  // void. Recovery is a new Device (the old one and its executables can still be destroyed).
  bool lost() const { return lost_; }
  // Records a loss seen by `what` and returns the DeviceLost error to throw or report.
  Error note_lost(const std::string& what);
  // DeviceLost naming `what` when the device is lost: as a status, or thrown.
  Status lost_status(const std::string& what) const;
  void require_not_lost(const std::string& what) const;
  std::unique_lock<std::mutex> queue_lock() { return std::unique_lock(queue_mutex_); }
  uint32_t queue_family() const { return queue_family_; }
  bool validation_enabled() const { return validation_enabled_; }
  ValidationLog& validation() { return *validation_log_; }

  // Memory type with all `required` flags, preferring `preferred` too; UINT32_MAX if none.
  uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                       VkMemoryPropertyFlags preferred) const;
  VkMemoryPropertyFlags memory_flags(uint32_t type) const;

  // Records with `fn` into a fresh command buffer, submits it and waits. For transfers and
  // set-up work; never on a hot path.
  void run_once(const std::function<void(VkCommandBuffer)>& fn);

  // The pipelines of every program on this device share one cache and one pipeline layout.
  PipelineCache& pipelines();

  // The most loop iterations one invocation runs before the driver stops its loops on its own
  // (llvmpipe: 65535, all loops of the invocation together), or UINT32_MAX when a probe of
  // 2^20 iterations runs whole. Measured once, with a one-invocation kernel (loop_probe.cpp).
  // Workloads whose loops may run longer size their dispatches below it or refuse.
  uint32_t loop_iteration_limit();
  // MissingFeature "<what> needs <steps> loop steps in one invocation; device '<name>' stops a
  // kernel's loops after <limit> iterations (<hint>)" when `steps` pass loop_iteration_limit():
  // the host-side check for kernels whose per-invocation loops grow with the data.
  void require_loop_steps(uint64_t steps, const std::string& what, const std::string& hint = "");

 private:
  Device() = default;
  DeviceInfo info_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  // volk's pointers are process-wide and reloaded for every instance; this one is this instance's.
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_messenger_ = nullptr;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkPhysicalDeviceMemoryProperties memory_{};
  VkCommandPool once_pool_ = VK_NULL_HANDLE;
  bool validation_enabled_ = false;
  std::unique_ptr<ValidationLog> validation_log_ = std::make_unique<ValidationLog>();
  std::unique_ptr<PipelineCache> pipelines_;
  std::mutex pipelines_mutex_;
  std::mutex queue_mutex_;  // vkQueueSubmit on queue_
  std::mutex once_mutex_;   // once_pool_: command buffers of run_once, recorded one at a time
  std::optional<uint32_t> loop_iteration_limit_;
  std::atomic<bool> lost_{false};
  std::mutex probe_mutex_;
};

// The iterations one invocation really runs of a loop asked for `asked` (the probe behind
// Device::loop_iteration_limit; conformance checks the limit with it).
uint32_t loop_iterations_run(Device& device, uint32_t asked);

}  // namespace weft
