#include "dispatch.h"

#include <algorithm>
#include <string>

#include "error.h"

namespace weft {

namespace {

uint64_t covering(uint64_t items, uint32_t per_group) {
  if (per_group == 0) fail(ErrorCode::InvalidProgram, "a workgroup must cover at least one item");
  return std::max<uint64_t>(1, (items + per_group - 1) / per_group);
}

}  // namespace

uint32_t groups_for(uint64_t items, uint32_t per_group) {
  const uint64_t groups = covering(items, per_group);
  if (groups > kGuaranteedGroupCount)
    fail(ErrorCode::InvalidProgram, std::to_string(items) + " items at " + std::to_string(per_group) + " per group need " +
                                        std::to_string(groups) + " workgroups, over the " +
                                        std::to_string(kGuaranteedGroupCount) +
                                        " every device allows in one dimension (use a grid-stride kernel)");
  return uint32_t(groups);
}

uint32_t grid_stride_groups(uint64_t items, uint32_t per_group) {
  return uint32_t(std::min<uint64_t>(covering(items, per_group), kGuaranteedGroupCount));
}

}  // namespace weft
