// Every conformance case (engine invariants now, workloads as they land) on the test device.
#include "support.h"

using namespace weft;

TEST_CASE("every conformance case passes or is skipped for a stated reason on the test device") {
  test::ValidationClean clean;
  auto report = conformance::run_cases(test::device());
  REQUIRE(!report.cases.empty());
  for (const auto& c : report.cases) {
    INFO(c.name << ": " << c.result.detail);
    CHECK(c.result.outcome != conformance::Outcome::Fail);
    if (c.result.outcome == conformance::Outcome::Skip) CHECK(!c.result.detail.empty());
  }
  MESSAGE("\n" << conformance::format_table({report}));
}
