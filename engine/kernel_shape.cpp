#include "kernel_shape.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "device.h"
#include "dispatch.h"
#include "error.h"

namespace weft {

std::string KernelShape::describe() const {
  return std::to_string(workgroup_size) + "x" + std::to_string(units_per_invocation);
}

KernelShape streaming_shape_from_limits(const DeviceInfo& device) {
  // A CPU device runs each workgroup as one loop on one core, so fewer and larger workgroups
  // amortize its per-workgroup cost; a GPU wants enough workgroups to fill its cores.
  const bool cpu = device.type == "cpu";
  uint32_t size = std::min({cpu ? 1024u : 256u, device.max_workgroup_invocations, device.max_workgroup_size[0]});
  if (device.subgroup_size && size >= device.subgroup_size) size -= size % device.subgroup_size;
  return {std::max(size, 1u), cpu ? 16u : 4u};
}

KernelShape streaming_shape(const DeviceInfo& device) {
  if (const char* text = std::getenv("WEFT_STREAMING_SHAPE"); text && *text) {
    const KernelShape shape = parse_kernel_shape(text, "WEFT_STREAMING_SHAPE");
    check_kernel_shape(shape, device, "WEFT_STREAMING_SHAPE");
    return shape;
  }
  return streaming_shape_from_limits(device);
}

uint32_t min_streaming_groups(const DeviceInfo& device) {
  return device.type == "cpu" ? 4 * std::max(1u, std::thread::hardware_concurrency()) : 256;
}

KernelShape streaming_shape(const DeviceInfo& device, uint64_t units) {
  KernelShape shape = streaming_shape(device);
  if (const char* text = std::getenv("WEFT_STREAMING_SHAPE"); text && *text) return shape;
  const uint64_t wanted = min_streaming_groups(device);
  const auto groups = [&] { return streaming_groups(units, shape)[0]; };
  while (groups() < wanted && shape.units_per_invocation > 1) shape.units_per_invocation /= 2;
  const uint32_t smallest = std::max(64u, device.subgroup_size);
  while (groups() < wanted && shape.workgroup_size / 2 >= smallest && (shape.workgroup_size / 2) % smallest == 0)
    shape.workgroup_size /= 2;
  return shape;
}

KernelShape parse_kernel_shape(const std::string& text, const std::string& where) {
  const auto bad = [&] {
    fail(ErrorCode::BadInput, where + ": expected a kernel shape WxU (W invocations per workgroup, U units per invocation, "
                                      "both 1 to 65536), got '" + text + "'");
  };
  const size_t x = text.find('x');
  if (x == std::string::npos || x == 0 || x + 1 == text.size()) bad();
  const auto number = [&](const std::string& s) {
    if (s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos) bad();
    const unsigned long v = std::stoul(s);
    if (v == 0 || v > 65536) bad();
    return uint32_t(v);
  };
  return {number(text.substr(0, x)), number(text.substr(x + 1))};
}

void check_kernel_shape(const KernelShape& shape, const DeviceInfo& device, const std::string& who) {
  if (shape.workgroup_size == 0 || shape.units_per_invocation == 0)
    fail(ErrorCode::InvalidProgram, who + ": kernel shape " + shape.describe() + " has no invocations or no units");
  if (uint64_t(shape.workgroup_size) * shape.units_per_invocation > kMaxUnitsPerWorkgroupStep)
    fail(ErrorCode::InvalidProgram, who + ": kernel shape " + shape.describe() + " covers more than " +
                                        std::to_string(kMaxUnitsPerWorkgroupStep) + " units per workgroup step");
  const uint32_t limit = std::min(device.max_workgroup_invocations, device.max_workgroup_size[0]);
  if (shape.workgroup_size > limit)
    fail(ErrorCode::InvalidProgram, who + ": kernel shape " + shape.describe() + " has " + std::to_string(shape.workgroup_size) +
                                        " invocations per workgroup; " + device.name + " allows " + std::to_string(limit));
}

std::array<uint32_t, 3> streaming_groups(uint64_t units, const KernelShape& shape) {
  const uint64_t per_group = uint64_t(shape.workgroup_size) * shape.units_per_invocation;
  return {grid_stride_groups(units, uint32_t(std::min<uint64_t>(per_group, UINT32_MAX))), 1, 1};
}

}  // namespace weft
