// The conformance case that builds every kernel of a table on the device (every_kernel_builds):
// it passes over kernels the device takes and names each one it refuses.
#include <vector>

#include "support.h"

using namespace weft;
using namespace weft::test;

namespace {

std::vector<uint32_t> kernel_of_shape(uint32_t x, uint32_t y) {
  const std::string source = "#version 450\nlayout(local_size_x = " + std::to_string(x) + ", local_size_y = " + std::to_string(y) +
                             ") in;\nlayout(set = 0, binding = 2) buffer G { uint g[]; };\nvoid main() { g[gl_GlobalInvocationID.x] = 1u; }\n";
  return compile_glsl(source, "shape.comp");
}

conformance::Result run_case(const KernelTable& table) {
  const conformance::Case c = conformance::every_kernel_builds("table", table);
  CHECK(c.name == "table.every_kernel_builds");
  return c.run(device());
}

}  // namespace

TEST_CASE("every_kernel_builds passes when the device builds every kernel of the table") {
  const std::vector<uint32_t> narrow = kernel_of_shape(64, 1);
  const EmbeddedKernel entries[] = {{"narrow", narrow.data(), narrow.size(), nullptr, 0, ""}};
  const KernelTable table("fits", entries, 1);
  const conformance::Result r = run_case(table);
  CHECK(r.outcome == conformance::Outcome::Pass);
  CHECK(contains(r.detail, "1 pipelines built"));
}

TEST_CASE("every_kernel_builds fails naming each kernel the device refuses, and only those") {
  // Each dimension within its limit, their product (2 x the invocation limit) beyond it.
  const uint32_t x = 64, y = 2 * device().info().max_workgroup_invocations / x;
  REQUIRE(y <= device().info().max_workgroup_size[1]);
  const std::vector<uint32_t> narrow = kernel_of_shape(x, 1), wide = kernel_of_shape(x, y);
  const EmbeddedKernel entries[] = {{"narrow", narrow.data(), narrow.size(), nullptr, 0, ""},
                                    {"wide", wide.data(), wide.size(), nullptr, 0, ""}};
  const KernelTable table("too_wide", entries, 2);
  const conformance::Result r = run_case(table);
  CHECK(r.outcome == conformance::Outcome::Fail);
  CHECK(contains(r.detail, "1 refused on this device"));
  CHECK(contains(r.detail, "wide ("));
  CHECK_FALSE(contains(r.detail, "narrow"));
}
