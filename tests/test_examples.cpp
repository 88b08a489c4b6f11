// The shipped manifest examples (examples/chain, gain, early_exit) run on the test device and
// give what their CPU references give (the README and docs/manifest.md show them).
#include <weft/manifest.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "support.h"

using namespace weft;
using conformance::Outcome;
using conformance::Result;
using conformance::TempDir;

namespace {

std::vector<float> load_f32(const std::string& path) {
  const NpyArray a = read_npy(path);
  REQUIRE(a.dtype == DType::F32);
  return a.as<float>();
}

// Mixed absolute/relative error (absolute near zero) within `tol`.
Result close(const std::vector<float>& got, const std::vector<float>& want, double tol, const std::string& what) {
  const conformance::ErrorStats e = conformance::compare(got, want);
  return conformance::within(what, e, e.mixed(), tol);
}

Result example_chain(Device& dev) {
  const std::string ex = WEFT_EXAMPLES_DIR;
  TempDir dir("manifest-chain");
  const Manifest m = load_manifest(ex + "/chain/chain.toml");
  run_manifest(dev, m, dir.path());
  const auto x = load_f32(ex + "/chain/x.npy"), y = load_f32(ex + "/chain/y.npy");
  std::vector<float> a(x.size()), b(x.size());
  double sum = 0, sq = 0, mx = 0;
  for (size_t j = 0; j < x.size(); ++j) {
    a[j] = 2.0f * x[j] + y[j];
    b[j] = a[j] * 0.5f;
    sum += b[j];
    sq += double(b[j]) * b[j];
    mx = std::max(mx, double(std::fabs(b[j])));
  }
  // The device may fuse 2x+y into one FMA: 1 ulp. Reductions add in a different order: 1e-5.
  if (auto r = close(load_f32(dir.path() + "/saxpy.npy"), a, 1e-6, "saxpy"); r.outcome != Outcome::Pass) return r;
  if (auto r = close(load_f32(dir.path() + "/scaled.npy"), b, 1e-6, "scaled"); r.outcome != Outcome::Pass) return r;
  const std::vector<float> want = {float(sum), float(sq), float(mx), float(sum / double(x.size()))};
  return close(load_f32(dir.path() + "/result.npy"), want, 1e-5, "result");
}

Result example_gain(Device& dev) {
  const std::string ex = WEFT_EXAMPLES_DIR;
  const std::string path = ex + "/gain/gain.toml";
  const auto signal = load_f32(ex + "/gain/signal.npy");
  // Regulated: the peak 3.0 exceeds 2.0, the rule scales gain 1.0 -> 0.25 before apply_gain.
  TempDir dir("manifest-gain");
  const auto report = run_manifest(dev, load_manifest(path), dir.path());
  std::vector<float> want(signal.size());
  for (size_t j = 0; j < signal.size(); ++j) want[j] = (3.0f * signal[j]) * 0.25f;
  if (auto r = close(load_f32(dir.path() + "/output.npy"), want, 1e-6, "regulated output"); r.outcome != Outcome::Pass) return r;
  if (load_f32(dir.path() + "/gain.npy") != std::vector<float>{0.25f}) return Result::fail("gain word was not scaled to 0.25");
  if (report.rules_fired.size() != 1 || report.rules_fired[0].second != 1) return Result::fail("the rule did not report firing once");
  // Unregulated: the same manifest with a threshold above the peak; the rule never fires.
  std::ifstream f(path);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const size_t at = text.find("threshold = 2.0");
  if (at == std::string::npos) return Result::fail("gain.toml no longer has 'threshold = 2.0'");
  text.replace(at, 15, "threshold = 9.0");
  TempDir dir2("manifest-gain-off");
  run_manifest(dev, parse_manifest(text, path), dir2.path());
  for (size_t j = 0; j < signal.size(); ++j) want[j] = 3.0f * signal[j];
  if (auto r = close(load_f32(dir2.path() + "/output.npy"), want, 1e-6, "unregulated output"); r.outcome != Outcome::Pass) return r;
  return Result::pass("regulated 0.75x, unregulated 3x");
}

Result example_early_exit(Device& dev) {
  const std::string ex = WEFT_EXAMPLES_DIR;
  const std::string path = ex + "/early_exit/early_exit.toml";
  std::ifstream f(path);
  const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto x0 = load_f32(ex + "/early_exit/x.npy");
  // threshold 1.0: the loop stops once the norm drops below it; 0.0: it never does.
  for (const char* threshold : {"1.0", "0.0"}) {
    std::string variant = text;
    for (size_t at = variant.find("threshold = 1.0"); at != std::string::npos; at = variant.find("threshold = 1.0", at + 1))
      variant.replace(at + 12, 3, threshold);
    const double limit = std::stod(threshold);
    // CPU reference: halve, then stop when the norm is below the limit (6 iterations at most).
    std::vector<float> x = x0;
    uint32_t ran = 0;
    for (int it = 0; it < 6; ++it) {
      double sq = 0;
      for (float& v : x) {
        v *= 0.5f;
        sq += double(v) * v;
      }
      ++ran;
      if (std::sqrt(sq) < limit) break;
    }
    TempDir dir("manifest-early-exit");
    run_manifest(dev, parse_manifest(variant, path), dir.path());
    const std::string what = std::string("threshold ") + threshold;
    if (auto r = close(load_f32(dir.path() + "/x.npy"), x, 0, what + ": x"); r.outcome != Outcome::Pass) return r;
    const auto metrics = read_npy(dir.path() + "/metrics.npy").as<double>();
    if (metrics.size() != 15 || metrics[4] != double(ran))
      return Result::fail(what + ": " + std::to_string(metrics.size() == 15 ? metrics[4] : -1) + " iterations ran, want " +
                          std::to_string(ran));
  }
  return Result::pass("stops after 4 of 6 iterations; runs all 6 without the rule firing");
}

}  // namespace

TEST_CASE("example chain: saxpy -> scale -> reduce matches its CPU reference (payload 1e-6, reductions 1e-5)") {
  test::ValidationClean clean;
  const Result r = example_chain(test::device());
  CHECK_MESSAGE(r.outcome == Outcome::Pass, r.detail);
}

TEST_CASE("example gain: the rule lowers the gain when the peak passes its threshold, and not otherwise") {
  test::ValidationClean clean;
  const Result r = example_gain(test::device());
  CHECK_MESSAGE(r.outcome == Outcome::Pass, r.detail);
}

TEST_CASE("example early_exit: the loop stops at the first iteration whose norm is below the bound") {
  test::ValidationClean clean;
  const Result r = example_early_exit(test::device());
  CHECK_MESSAGE(r.outcome == Outcome::Pass, r.detail);
}
