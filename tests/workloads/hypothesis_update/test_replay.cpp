// Replays Monty's recorded runs from their inputs and compares every recorded array at 1e-6.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "fixture_replay.h"

namespace {

const std::string kMonty = std::string(WEFT_FIXTURES_DIR) + "/monty";

// With the kernel trace every recorded array is compared, Monty's kernel intermediates too, and
// the kernel runs the exact brute-force K nearest; without it the kernel takes the grid path.
void expect_run_matches(const std::string& run, bool trace_kernel) {
  const weft::hyp::ReplayReport report = weft::hyp::replay_fixture_run(kMonty + "/" + run, {{}, 0, trace_kernel});
  REQUIRE(report.steps.size() == 12);
  size_t compared = 0;
  for (const auto& step : report.steps)
    for (const auto& a : step.arrays) {
      INFO(run << " step " << step.step << " " << a.graph << " " << a.array << " " << a.note);
      CHECK(a.max_abs_error <= 1e-6);
      ++compared;
    }
  // Per graph: out/{evidence,locations,poses,possible}, displaced, threshold, prediction error,
  // kernel evidence (not on every step); per step: mlh evidence and id.
  CHECK(compared >= 12 * (2 * 7 + 2));
}

void expect_run_matches(const std::string& run) {
  expect_run_matches(run, true);
  expect_run_matches(run, false);
}

}  // namespace

TEST_CASE("replay default_cylinder matches Monty at 1e-6") { expect_run_matches("default_cylinder"); }
TEST_CASE("replay default_sphere matches Monty at 1e-6") { expect_run_matches("default_sphere"); }
TEST_CASE("replay burst_cylinder matches Monty at 1e-6") { expect_run_matches("burst_cylinder"); }
TEST_CASE("replay burst_sphere matches Monty at 1e-6") { expect_run_matches("burst_sphere"); }

TEST_CASE("replay results do not depend on the thread count") {
  const auto one = weft::hyp::replay_fixture_run(kMonty + "/burst_sphere", {{}, 1, false});
  const auto three = weft::hyp::replay_fixture_run(kMonty + "/burst_sphere", {{}, 3, false});
  REQUIRE(one.steps.size() == three.steps.size());
  for (size_t s = 0; s < one.steps.size(); ++s) {
    REQUIRE(one.steps[s].arrays.size() == three.steps[s].arrays.size());
    for (size_t a = 0; a < one.steps[s].arrays.size(); ++a) {
      // Bit-identical errors mean bit-identical results against the same recording.
      const double x = one.steps[s].arrays[a].max_abs_error, y = three.steps[s].arrays[a].max_abs_error;
      CHECK((x == y || (std::isnan(x) && std::isnan(y))));
    }
  }
}
