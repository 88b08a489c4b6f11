// Manifest workloads against CPU references: a fixture manifest written to a temp folder, and
// the example manifests in examples/ (computed here from their own .npy inputs).
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include <weft/manifest.h>

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

const char* const kFixtureManifest = R"(# The manifest test fixture (conformance/manifest_cases.cpp).
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

// Mixed absolute/relative error (absolute near zero) within `tol`.
Result close(const std::vector<float>& got, const std::vector<float>& want, double tol, const std::string& what) {
  const ErrorStats e = compare(got, want);
  return within(what, e, e.mixed(), tol);
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
  if (auto r = close(load_f32(out + "/b.npy"), b, 1e-6, "outbox.b"); r.outcome != Outcome::Pass) return r;
  if (auto r = close(load_f32(out + "/globals_acc.npy"), acc, 1e-6, "globals.acc after 2 runs"); r.outcome != Outcome::Pass)
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

}  // namespace

std::vector<Case> manifest_cases() {
  return {
      {"manifest.fixture_round_trip", "rel 1e-6 (f32 FMA); norm rel 1e-5", fixture_round_trip},
  };
}

}  // namespace weft::conformance
