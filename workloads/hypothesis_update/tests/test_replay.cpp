// Replays Monty's recorded runs from their inputs and compares every recorded array at 1e-6.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "fixture_replay.h"
#include "fixtures.h"

namespace {

const std::string kMonty = weft::hypothesis_update::test::monty_fixtures();

// With the kernel trace every recorded array is compared, Monty's kernel intermediates too, and
// the kernel runs the exact brute-force K nearest; without it the kernel takes the grid path.
void expect_run_matches(const std::string& run, bool trace_kernel) {
  const weft::hypothesis_update::ReplayReport report = weft::hypothesis_update::replay_fixture_run(kMonty + "/" + run, {{}, 0, trace_kernel});
  const size_t steps = weft::hypothesis_update::test::recorded_steps(kMonty + "/" + run);
  REQUIRE(steps >= 2);
  REQUIRE(report.steps.size() == steps);
  size_t compared = 0;
  for (const auto& step : report.steps)
    for (const auto& a : step.arrays) {
      INFO(run << " step " << step.step << " " << a.graph << " " << a.array << " " << a.note);
      CHECK(a.max_abs_error <= 1e-6);
      ++compared;
    }
  // Per graph: out/{evidence,locations,poses,possible}, displaced, threshold, prediction error,
  // kernel evidence (not on every step); per step: mlh evidence and id.
  CHECK(compared >= steps * (2 * 7 + 2));
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
  const auto one = weft::hypothesis_update::replay_fixture_run(kMonty + "/burst_sphere", {{}, 1, false});
  const auto three = weft::hypothesis_update::replay_fixture_run(kMonty + "/burst_sphere", {{}, 3, false});
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

// The comparison can fail: a copy of default_cylinder (links to the recorded files) whose step 2
// cylinder out/evidence has its last value raised by 1e-5 shows exactly that error there, and
// nowhere else.
TEST_CASE("a replay reports a perturbed recorded output as an error of that size, there only") {
  namespace fs = std::filesystem;
  const fs::path source = kMonty + "/default_cylinder";
  const fs::path tmp = fs::temp_directory_path() / "weft_hyp_perturbed_run";
  fs::remove_all(tmp);
  // Links everywhere except along the path to the perturbed file, which is rebuilt as folders.
  const fs::path perturbed = fs::path("step02") / "cylinder" / "out" / "evidence.npy";
  std::function<void(const fs::path&, const fs::path&)> mirror = [&](const fs::path& from, const fs::path& rel) {
    fs::create_directories(tmp / rel);
    for (const auto& e : fs::directory_iterator(from)) {
      const fs::path r = rel / e.path().filename();
      const std::string rs = r.string(), ps = perturbed.string();
      if (ps.compare(0, rs.size(), rs) == 0 && (ps.size() == rs.size() || ps[rs.size()] == '/')) {
        if (e.is_directory()) mirror(e.path(), r);
        continue;  // the file itself is written below
      }
      if (e.is_directory())
        fs::create_directory_symlink(e.path(), tmp / r);
      else
        fs::create_symlink(e.path(), tmp / r);
    }
  };
  mirror(source, {});
  std::vector<char> bytes;
  {
    std::ifstream in(source / perturbed, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  REQUIRE(bytes.size() > 128 + 8);  // '<f8' data ends the file: its last 8 bytes are the last value
  double last;
  std::memcpy(&last, bytes.data() + bytes.size() - 8, 8);
  last += 1e-5;
  std::memcpy(bytes.data() + bytes.size() - 8, &last, 8);
  {
    std::ofstream out(tmp / perturbed, std::ios::binary);
    out.write(bytes.data(), long(bytes.size()));
  }

  const weft::hypothesis_update::ReplayReport report =
      weft::hypothesis_update::replay_fixture_run(tmp.string(), {(source.parent_path() / "objects").string(), 1, true});
  REQUIRE(report.steps.size() == weft::hypothesis_update::test::recorded_steps(source.string()));
  bool seen = false;
  for (const auto& step : report.steps)
    for (const auto& a : step.arrays) {
      INFO("step " << step.step << " " << a.graph << " " << a.array);
      if (step.step == 2 && a.graph == "cylinder" && a.array == "out/evidence") {
        CHECK(std::abs(a.max_abs_error - 1e-5) < 1e-9);
        seen = true;
      } else {
        CHECK(a.max_abs_error <= 1e-6);
      }
    }
  CHECK(seen);
  fs::remove_all(tmp);
}
