// Dispatch sizes: how many workgroups cover a number of items. One helper for every stage, so
// no stage dispatches zero groups (legal in Vulkan, but it silently does nothing) or more than
// a device can take.
#pragma once

#include <cstdint>

namespace weft {

// maxComputeWorkGroupCount[0] that every Vulkan device guarantees.
inline constexpr uint32_t kGuaranteedGroupCount = 65535;

// ceil(items / per_group), at least 1. InvalidProgram when it exceeds kGuaranteedGroupCount:
// a kernel that needs more loops over its items (use grid_stride_groups) or takes a 2-D grid.
uint32_t groups_for(uint64_t items, uint32_t per_group);

// For grid-stride kernels (each invocation loops with stride groups * group size): as many
// groups as cover the items, at least 1 and at most kGuaranteedGroupCount.
uint32_t grid_stride_groups(uint64_t items, uint32_t per_group);

}  // namespace weft
