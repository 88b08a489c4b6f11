// Manifest workloads against CPU references: a fixture manifest written to a temp folder, and
// the example manifests in examples/ (computed here from their own .npy inputs).
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "conformance.h"

namespace weft::conformance {

namespace fs = std::filesystem;

TempDir::TempDir(const std::string& tag) {
  static std::mt19937_64 rng(std::random_device{}());
  for (int attempt = 0; attempt < 100; ++attempt) {
    const fs::path p = fs::temp_directory_path() / ("weft-" + tag + "-" + std::to_string(rng() % 1000000000ull));
    std::error_code ec;
    if (fs::create_directory(p, ec)) {
      path_ = p.string();
      return;
    }
  }
  fail(ErrorCode::BadInput, "cannot create a temporary folder under " + fs::temp_directory_path().string());
}

TempDir::~TempDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) fail(ErrorCode::BadInput, path + ": cannot write");
}

std::string examples_dir() {
#ifdef WEFT_EXAMPLES_DIR
  if (fs::is_directory(WEFT_EXAMPLES_DIR)) return WEFT_EXAMPLES_DIR;
#endif
  return {};
}

const char* const kFixtureKernel = R"(#version 450
#extension GL_GOOGLE_include_directive : require
// outbox[j] = inbox[j] * k + c * x[j];  acc[j] += outbox[j].
#define WEFT_ARGS(X) X(WEFT_F32, c) X(WEFT_IN(Heap), x) X(WEFT_INOUT(Globals), acc) X(WEFT_IN(Control), k)
#include "weft.glsl"
layout(local_size_x = 64) in;
shared float sq[64];
void main() {
  const uint t = gl_LocalInvocationID.x;
  const float c = pc.args.c, k = weft_control_f(pc.args.k);
  const uint x = pc.args.x, acc = pc.args.acc;
  float s = 0.0;
  for (uint j = t; j < pc.header.width; j += 64u) {
    const float v = weft_inbox_f(j) * k + c * heap_f[x + j];
    weft_outbox_f(j, v);
    globals_f[acc + j] += v;
    s += v * v;
  }
  sq[t] = s;
  barrier();
  for (uint h = 32u; h > 0u; h >>= 1) {
    if (t < h) sq[t] += sq[t + h];
    barrier();
  }
  if (t == 0u) weft_message_write(sqrt(sq[0]), 0.0, WEFT_STATUS_OK, uvec2(0u));
}
)";

const char* const kFixtureManifest = R"(# The manifest test fixture (tests/conformance/manifest_cases.cpp).
name = "fixture"
chain = ["a", "b"]

[[kernels]]
name = "affine"
file = "affine.comp"

[[heap]]
name = "x"
file = "x.npy"

[[globals]]
name = "acc"
dtype = "f4"
count = 8

[[control]]
name = "k"
values = [2.0]

[[slots]]
name = "s"
groups = [1, 1, 1]

[[instances]]
name = "a"
width = 8
inbox = "in.npy"

[[instances]]
name = "b"
width = 8

[[stages]]
name = "first"
kernel = "affine"
instance = "a"
dispatch = 1
args = { c = 1.5, x = "heap.x", acc = "globals.acc", k = "control.k" }
message = true

[[stages]]
name = "second"
kernel = "affine"
instance = "b"
indirect = "s"
args = { c = -1, x = "heap.x", acc = "globals.acc", k = "control.k" }
message = true

[[outputs]]
source = "outbox.b"
file = "b.npy"

[[outputs]]
source = "globals.acc"

[[outputs]]
source = "metrics.b"
file = "metrics_b.npy"
)";

std::vector<float> fixture_x() { return {0.5f, -1.0f, 2.0f, 0.25f, -3.0f, 1.0f, 4.0f, -0.5f}; }
std::vector<float> fixture_in() { return {1.0f, 2.0f, -1.0f, 0.0f, 3.0f, -2.0f, 0.5f, 1.5f}; }

std::string write_manifest_fixture(const std::string& dir, const std::string& manifest_text) {
  write_text(dir + "/affine.comp", kFixtureKernel);
  write_npy(dir + "/x.npy", NpyArray::from(DType::F32, fixture_x()));
  write_npy(dir + "/in.npy", NpyArray::from(DType::F32, fixture_in()));
  const std::string path = dir + "/fixture.toml";
  write_text(path, manifest_text.empty() ? kFixtureManifest : manifest_text);
  return path;
}

const char* manifest_fixture_text() { return kFixtureManifest; }

namespace {

Result compare(const std::vector<float>& got, const std::vector<float>& want, double tol, const std::string& what) {
  if (got.size() != want.size())
    return Result::fail(what + ": " + std::to_string(got.size()) + " values, want " + std::to_string(want.size()));
  double worst = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double err = std::fabs(double(got[i]) - double(want[i])) / std::max(1.0, std::fabs(double(want[i])));
    worst = std::max(worst, err);
    if (!(err <= tol))
      return Result::fail(what + "[" + std::to_string(i) + "] = " + std::to_string(got[i]) + ", want " + std::to_string(want[i]), worst);
  }
  return Result::pass({}, worst);
}

std::vector<float> load_f32(const std::string& path, DType want = DType::F32) {
  NpyArray a = read_npy(path);
  if (a.dtype != want) fail(ErrorCode::BadInput, path + ": unexpected dtype " + dtype_descr(a.dtype));
  return a.as<float>();
}

Result fixture_round_trip(Device& dev) {
  TempDir dir("manifest-case");
  const Manifest m = load_manifest(write_manifest_fixture(dir.path()));
  const std::string out = dir.path() + "/out";
  const auto report = run_manifest(dev, m, out, 2);  // a replay must give the same outputs
  // CPU reference: a = in * k + 1.5 x; b = a * k - x; acc += a + b. Globals persist across
  // runs (only Control and Metrics are reset), so two runs accumulate acc twice.
  const float k = 2.0f;
  const auto x = fixture_x(), in = fixture_in();
  std::vector<float> a(8), b(8), acc(8);
  double sq = 0;
  for (int j = 0; j < 8; ++j) {
    a[j] = in[j] * k + 1.5f * x[j];
    b[j] = a[j] * k + -1.0f * x[j];
    acc[j] = 2.0f * (a[j] + b[j]);
    sq += double(b[j]) * b[j];
  }
  if (auto r = compare(load_f32(out + "/b.npy"), b, 1e-6, "outbox.b"); r.outcome != Outcome::Pass) return r;
  if (auto r = compare(load_f32(out + "/globals_acc.npy"), acc, 1e-6, "globals.acc after 2 runs"); r.outcome != Outcome::Pass)
    return r;
  const NpyArray metrics = read_npy(out + "/metrics_b.npy");
  const auto mb = metrics.as<double>();
  if (metrics.dtype != DType::F64 || metrics.shape != std::vector<uint64_t>{15})
    return Result::fail("metrics.b is not a float64[15] row");
  if (std::fabs(mb[0] - std::sqrt(sq)) > 1e-5 * std::sqrt(sq)) return Result::fail("metrics.b norm " + std::to_string(mb[0]));
  if (mb[4] != 1.0) return Result::fail("metrics.b sequence " + std::to_string(mb[4]) + ", want 1 (reset every run)");
  if (report.files.size() != 3 || report.runs != 2) return Result::fail("run report lists the wrong files or runs");
  return Result::pass("outputs, accumulation over 2 replays, metrics row");
}

Result example_chain(Device& dev) {
  const std::string ex = examples_dir();
  if (ex.empty()) return Result::skip("examples/ is not available next to this binary (WEFT_EXAMPLES_DIR)");
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
  if (auto r = compare(load_f32(dir.path() + "/saxpy.npy"), a, 1e-6, "saxpy"); r.outcome != Outcome::Pass) return r;
  if (auto r = compare(load_f32(dir.path() + "/scaled.npy"), b, 1e-6, "scaled"); r.outcome != Outcome::Pass) return r;
  const std::vector<float> want = {float(sum), float(sq), float(mx), float(sum / double(x.size()))};
  return compare(load_f32(dir.path() + "/result.npy"), want, 1e-5, "result");
}

Result example_gain(Device& dev) {
  const std::string ex = examples_dir();
  if (ex.empty()) return Result::skip("examples/ is not available next to this binary (WEFT_EXAMPLES_DIR)");
  const std::string path = ex + "/gain/gain.toml";
  const auto signal = load_f32(ex + "/gain/signal.npy");
  // Regulated: the peak 3.0 exceeds 2.0, the rule scales gain 1.0 -> 0.25 before apply_gain.
  TempDir dir("manifest-gain");
  const auto report = run_manifest(dev, load_manifest(path), dir.path());
  std::vector<float> want(signal.size());
  for (size_t j = 0; j < signal.size(); ++j) want[j] = (3.0f * signal[j]) * 0.25f;
  if (auto r = compare(load_f32(dir.path() + "/output.npy"), want, 1e-6, "regulated output"); r.outcome != Outcome::Pass) return r;
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
  if (auto r = compare(load_f32(dir2.path() + "/output.npy"), want, 1e-6, "unregulated output"); r.outcome != Outcome::Pass) return r;
  return Result::pass("regulated 0.75x, unregulated 3x");
}

Result example_early_exit(Device& dev) {
  const std::string ex = examples_dir();
  if (ex.empty()) return Result::skip("examples/ is not available next to this binary (WEFT_EXAMPLES_DIR)");
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
    if (auto r = compare(load_f32(dir.path() + "/x.npy"), x, 0, what + ": x"); r.outcome != Outcome::Pass) return r;
    const auto metrics = read_npy(dir.path() + "/metrics.npy").as<double>();
    if (metrics.size() != 15 || metrics[4] != double(ran))
      return Result::fail(what + ": " + std::to_string(metrics.size() == 15 ? metrics[4] : -1) + " iterations ran, want " +
                          std::to_string(ran));
  }
  return Result::pass("stops after 4 of 6 iterations; runs all 6 without the rule firing");
}

}  // namespace

std::vector<Case> manifest_cases() {
  return {
      {"manifest.fixture_round_trip", "rel 1e-6 (f32 FMA); norm rel 1e-5", fixture_round_trip},
      {"manifest.example_chain", "payload rel 1e-6; reductions rel 1e-5 (summation order)", example_chain},
      {"manifest.example_gain", "rel 1e-6", example_gain},
      {"manifest.example_early_exit", "exact (halving)", example_early_exit},
  };
}

}  // namespace weft::conformance
