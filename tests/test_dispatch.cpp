// Dispatch sizes and the bound-window check: the helpers every stage sizes itself with.
#include "support.h"

using namespace weft;

TEST_CASE("groups_for covers the items with at least one group") {
  CHECK(groups_for(0, 64) == 1);
  CHECK(groups_for(1, 64) == 1);
  CHECK(groups_for(64, 64) == 1);
  CHECK(groups_for(65, 64) == 2);
  CHECK(groups_for(uint64_t(kGuaranteedGroupCount) * 256, 256) == kGuaranteedGroupCount);
}

TEST_CASE("groups_for refuses more groups than every device allows, and an empty group") {
  CHECK(test::error_code_of([] { groups_for(uint64_t(kGuaranteedGroupCount) * 256 + 1, 256); }) == ErrorCode::InvalidProgram);
  CHECK(test::error_code_of([] { groups_for(10, 0); }) == ErrorCode::InvalidProgram);
}

TEST_CASE("grid_stride_groups caps at the guaranteed group count and never returns zero") {
  CHECK(grid_stride_groups(0, 64) == 1);
  CHECK(grid_stride_groups(1000, 64) == 16);
  CHECK(grid_stride_groups(uint64_t(1) << 40, 64) == kGuaranteedGroupCount);
}

TEST_CASE("require_bound_window names the context, the buffer and both sizes") {
  Program p;
  p.globals().add("big", 8192);
  DeviceInfo limited;
  limited.max_storage_buffer_range = 4096;
  const std::string msg = test::error_message_of([&] { p.require_bound_window(limited, "gnn: 10 nodes"); });
  CHECK(msg.find("gnn: 10 nodes: Globals needs 8192 bytes") != std::string::npos);
  CHECK(msg.find("window of 4096 bytes") != std::string::npos);
  limited.max_storage_buffer_range = 8192;
  CHECK_NOTHROW(p.require_bound_window(limited, "fits"));
}
