// Kernel shapes: how a streaming kernel is laid over a device. A streaming kernel (weft.glsl's
// WEFT_STREAMING_KERNEL) leaves its workgroup size and the units each invocation handles per
// grid step to the engine, as specialization constants; the engine picks them per device, so one
// kernel source serves a GPU that wants wide workgroups and a CPU driver that wants few.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace weft {

struct DeviceInfo;

struct KernelShape {
  uint32_t workgroup_size = 0;        // invocations per workgroup (x)
  uint32_t units_per_invocation = 0;  // units one invocation handles per grid step
  bool empty() const { return workgroup_size == 0; }
  std::string describe() const;  // "256x4"
  friend bool operator==(const KernelShape&, const KernelShape&) = default;
};

// Specialization constant ids a streaming kernel's shape travels in (weft.glsl uses the same).
inline constexpr uint32_t kShapeWorkgroupSizeId = 0;
inline constexpr uint32_t kShapeUnitsPerInvocationId = 1;
// Bounds that keep WEFT_FOR_EACH_UNIT's 32-bit indices from wrapping: units per stage, and units
// per workgroup step (invocations x units each).
inline constexpr uint64_t kMaxStreamingUnits = uint64_t(1) << 31;
inline constexpr uint64_t kMaxUnitsPerWorkgroupStep = uint64_t(1) << 24;

// The shape streaming stages get on `device`: WEFT_STREAMING_SHAPE ("256x4") when set, else one
// derived from the device's limits (streaming_shape_from_limits).
KernelShape streaming_shape(const DeviceInfo& device);
// The shape a stage of `units` gets: the device's, made smaller for a stage too short to give
// every core work (units per invocation halved, then the workgroup, down to 64 invocations or
// one subgroup) until it spans min_streaming_groups(device) groups. WEFT_STREAMING_SHAPE is
// taken as it is.
KernelShape streaming_shape(const DeviceInfo& device, uint64_t units);
// Workgroups a streaming stage should span to occupy the device: on a CPU device four per
// hardware thread (such a driver runs each workgroup on one thread), on a GPU 256.
uint32_t min_streaming_groups(const DeviceInfo& device);
// A whole number of subgroups within the device's limits: on a GPU 256 invocations of 4 units
// each (enough workgroups to fill its cores, a short grid-stride loop); on a CPU device (type
// "cpu") 1,024 of 16 each, since such a driver runs a workgroup as one loop on one core and pays
// per workgroup (lavapipe's copy: 1024x16 ~0.70x of vkCmdCopyBuffer, 256x4 ~0.56x; `weft bench
// engine` measures the sweep on any device).
KernelShape streaming_shape_from_limits(const DeviceInfo& device);
// "WxU" with W invocations and U units per invocation; BadInput naming `where` otherwise.
KernelShape parse_kernel_shape(const std::string& text, const std::string& where);
// InvalidProgram naming `who` when the device cannot run the shape, or a workgroup step would
// cover more than kMaxUnitsPerWorkgroupStep units.
void check_kernel_shape(const KernelShape& shape, const DeviceInfo& device, const std::string& who);
// Grid-stride group count for `units` under `shape`: enough groups to cover them in one step,
// at least 1, at most the group count every device allows.
std::array<uint32_t, 3> streaming_groups(uint64_t units, const KernelShape& shape);

}  // namespace weft
