// The Vulkan backend (both updaters, float32 on the device) against Monty's recordings and
// against the float64 CPU backend, under the tolerances of vulkan_tolerance.h, with the
// validation layer on and no message allowed. On a device with bufferDeviceAddress every
// comparison also runs with the hypothesis rows in far segments split over small allocations
// (how programs beyond the storage-buffer window run), which must agree with the in-window run
// bit for bit.
#include <doctest/doctest.h>

#include <weft/weft.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "cpu_backend.h"
#include "device_under_test.h"
#include "fixture_replay.h"
#include "fixtures.h"
#include "knn.h"
#include "step_profile.h"
#include "synthetic.h"
#include "synthetic_bench.h"
#include "vulkan_backend.h"
#include "vulkan_tolerance.h"

namespace {

using namespace weft::hypothesis_update;

const std::string kMonty = weft::hypothesis_update::test::monty_fixtures();

using weft::test::device;  // the device every suite tests on (device_under_test.h)

void expect_no_validation_messages() {
  REQUIRE(device().validation_enabled());
  const auto messages = device().validation().messages();
  for (const auto& m : messages) INFO(m);
  CHECK(messages.empty());
  device().validation().clear();
}

// Far rows over allocations of 4 KiB: every per-row array spans many chunks.
bool far_rows_supported() { return device().info().buffer_device_address; }
struct SmallFarChunks {
  weft::test::ScopedEnv cap{"WEFT_MAX_ALLOCATION_BYTES", "4096"};
};

// The same replay with the rows far: the same error on every array, step and graph (the kernels'
// far variants do the same float operations in the same order).
void expect_far_replay_identical(const std::string& run, ReplayOptions o, const ReplayReport& in_window) {
  if (!far_rows_supported()) return;
  const SmallFarChunks small;
  o.far_rows = true;
  const ReplayReport far = replay_fixture_run(kMonty + "/" + run, o);
  REQUIRE(far.steps.size() == in_window.steps.size());
  for (size_t s = 0; s < far.steps.size(); ++s) {
    REQUIRE(far.steps[s].arrays.size() == in_window.steps[s].arrays.size());
    for (size_t a = 0; a < far.steps[s].arrays.size(); ++a) {
      const ArrayError &x = far.steps[s].arrays[a], &r = in_window.steps[s].arrays[a];
      INFO(run << " far rows, step " << far.steps[s].step << " " << r.graph << " " << r.array);
      CHECK(x.array == r.array);
      CHECK(x.max_abs_error == r.max_abs_error);
    }
  }
}

void expect_replay_within_tolerance(const std::string& run) {
  ReplayOptions o;
  o.device = &device();
  o.tie_tolerance = kVulkanEvidenceTolerance;
  o.trace_kernel = true;
  const ReplayReport report = replay_fixture_run(kMonty + "/" + run, o);
  expect_far_replay_identical(run, o, report);
  const size_t steps = weft::hypothesis_update::test::recorded_steps(kMonty + "/" + run);
  REQUIRE(steps >= 2);
  REQUIRE(report.steps.size() == steps);
  std::map<std::string, double> worst;  // per array over steps and graphs: the measured maxima
  size_t compared = 0;
  for (const auto& step : report.steps)
    for (const auto& a : step.arrays) {
      INFO(run << " step " << step.step << " " << a.graph << " " << a.array << " " << a.note);
      CHECK(a.max_abs_error <= vulkan_replay_tolerance(a.array));
      worst[a.array] = std::max(worst[a.array], a.max_abs_error);
      ++compared;
    }
  CHECK(compared >= steps * (2 * 7 + 2));
  for (const auto& [array, e] : worst) MESSAGE(run << " " << array << " max error " << e);
  expect_no_validation_messages();
}

// Agreement rule for nearest-neighbour sets: identical, or every node in the symmetric
// difference lies at a squared distance within float32 rounding (relative 2^-20, a few ulps
// of the operations) of the K-th nearest squared distance, i.e. it only swapped places with
// a node it ties with in float32.
bool knn_agrees(const std::vector<int>& dev, const std::vector<int>& cpu, const std::vector<double>& pos,
                const double* query) {
  std::set<int> a(dev.begin(), dev.end()), b(cpu.begin(), cpu.end());
  if (a == b) return true;
  auto d2 = [&](int n) {
    double s = 0;
    for (int c = 0; c < 3; ++c) s += (pos[size_t(n) * 3 + c] - query[c]) * (pos[size_t(n) * 3 + c] - query[c]);
    return s;
  };
  const double kth = d2(cpu.back());
  std::vector<int> differ;
  std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(differ));
  for (int n : differ)
    if (std::abs(d2(n) - kth) > kth * std::ldexp(1.0, -20)) return false;
  return true;
}

// A backend with its rows far against the in-window one after the same steps: bit for bit.
void expect_same_device_state(const VulkanBackend& far, const VulkanBackend& vk, int lm, int g) {
  INFO("far rows against the window, LM " << lm << " graph " << g);
  const HypothesisArrays x = far.hypotheses(lm, g), r = vk.hypotheses(lm, g);
  CHECK(x.evidence == r.evidence);
  CHECK(x.locations == r.locations);
  CHECK(x.rotations == r.rotations);
  const GraphStepInfo xi = far.step_info(lm, g), ri = vk.step_info(lm, g);
  CHECK(xi.tested == ri.tested);
  CHECK(weft::f32_bits(float(xi.threshold)) == weft::f32_bits(float(ri.threshold)));
  CHECK(weft::f32_bits(float(xi.prediction_error)) == weft::f32_bits(float(ri.prediction_error)));
  const BurstTelemetry xt = far.burst_telemetry(lm, g), rt = vk.burst_telemetry(lm, g);
  CHECK(xt.removed_ids == rt.removed_ids);
  CHECK(xt.ages == rt.ages);
  REQUIRE(xt.evidence_slopes.size() == rt.evidence_slopes.size());
  for (size_t h = 0; h < rt.evidence_slopes.size(); ++h)
    CHECK(weft::f32_bits(float(xt.evidence_slopes[h])) == weft::f32_bits(float(rt.evidence_slopes[h])));
  const MostLikely xm = far.most_likely(lm), rm = vk.most_likely(lm);
  CHECK(xm.graph == rm.graph);
  CHECK(xm.hypothesis == rm.hypothesis);
  CHECK(xm.evidence == rm.evidence);
}

void expect_close(const std::vector<double>& ours, const std::vector<double>& ref, double tol, const char* what) {
  REQUIRE(ours.size() == ref.size());
  double worst = 0;
  for (size_t i = 0; i < ours.size(); ++i) worst = std::max(worst, std::abs(ours[i] - ref[i]));
  INFO(what << " max error " << worst);
  CHECK(worst <= tol);
}

}  // namespace

TEST_CASE("vulkan replay default_cylinder matches Monty within the float32 tolerance") {
  expect_replay_within_tolerance("default_cylinder");
}
TEST_CASE("vulkan replay default_sphere matches Monty within the float32 tolerance") {
  expect_replay_within_tolerance("default_sphere");
}

TEST_CASE("vulkan replay burst_cylinder matches Monty within the float32 tolerance") {
  expect_replay_within_tolerance("burst_cylinder");
}
TEST_CASE("vulkan replay burst_sphere matches Monty within the float32 tolerance") {
  expect_replay_within_tolerance("burst_sphere");
}

TEST_CASE("vulkan backend follows the CPU backend: stacked graphs, two LMs, two channels, a no-op step") {
  CpuBackend cpu(1);
  VulkanBackend vk(device()), far(device());
  const SmallFarChunks small;
  far.set_row_placement(RowPlacement::Far);
  std::vector<HypothesisBackend*> backends = {&cpu, &vk};
  if (far_rows_supported()) backends.push_back(&far);
  UpdaterConfig c0 = test::monty_config(UpdaterKind::Default);
  c0.max_channels = 2;
  UpdaterConfig c1 = test::monty_config(UpdaterKind::Default);
  c1.threshold = ThresholdConfig::parse("mean");
  const ObjectGraph ga = test::random_graph("a", 150, 1), gb = test::random_graph("b", 90, 2);
  for (HypothesisBackend* b : backends) {
    const int a = b->add_graph(ga), bb = b->add_graph(gb);
    b->add_learning_module(c0, {a, bb});
    b->add_learning_module(c1, {bb});
    b->set_groups({{0, 1}});
  }
  for (int step = 0; step < 6; ++step) {
    std::vector<StepInput> inputs = {test::random_input(0, 100 + uint64_t(step), step == 0, step % 2 ? 2 : 1)};
    if (step != 3) inputs.push_back(test::random_input(1, 200 + uint64_t(step), step == 0));
    const HypothesisArrays before = vk.hypotheses(1, 1);
    for (HypothesisBackend* b : backends) b->dispatch(inputs);
    for (HypothesisBackend* b : backends) b->wait();
    for (auto [lm, g] : {std::pair{0, 0}, std::pair{0, 1}, std::pair{1, 1}}) {
      INFO("step " << step << " LM " << lm << " graph " << g);
      if (far_rows_supported()) expect_same_device_state(far, vk, lm, g);
      const HypothesisArrays x = vk.hypotheses(lm, g), r = cpu.hypotheses(lm, g);
      expect_close(x.evidence, r.evidence, kVulkanEvidenceTolerance, "evidence");
      expect_close(x.locations, r.locations, kVulkanGeometryTolerance, "locations");
      expect_close(x.rotations, r.rotations, kVulkanGeometryTolerance, "rotations");
      const GraphStepInfo xi = vk.step_info(lm, g), ri = cpu.step_info(lm, g);
      CHECK(xi.updated == ri.updated);
      CHECK(xi.tested == ri.tested);
      CHECK(std::abs(xi.threshold - ri.threshold) <= kVulkanEvidenceTolerance);
      CHECK(std::isnan(xi.prediction_error) == std::isnan(ri.prediction_error));
      if (!std::isnan(ri.prediction_error))
        CHECK(std::abs(xi.prediction_error - ri.prediction_error) <= kVulkanEvidenceTolerance);
    }
    if (step == 3) {  // LM 1 had no input: its device state is untouched, bit for bit
      const HypothesisArrays after = vk.hypotheses(1, 1);
      CHECK(after.evidence == before.evidence);
      CHECK(after.locations == before.locations);
      CHECK_FALSE(vk.step_info(1, 1).updated);
    }
    for (int lm : {0, 1}) {
      const MostLikely x = vk.most_likely(lm), r = cpu.most_likely(lm);
      CHECK(x.graph == r.graph);
      CHECK(std::abs(x.evidence - r.evidence) <= kVulkanEvidenceTolerance);
    }
  }
  // One program for both LMs, recorded at the first step and replayed by the others.
  CHECK(vk.programs_recorded() == 1);
  CHECK_FALSE(vk.program()->far_rows);  // Auto: the program fits the window
  if (far_rows_supported()) CHECK(far.program()->far_rows);
  expect_no_validation_messages();
}

TEST_CASE("device nearest neighbours agree with the exact CPU search, exact ties to the lower node") {
  for (const bool lattice : {true, false})
    for (const int k : {10, 16}) {
      INFO(std::string(lattice ? "lattice" : "random") << " graph, K = " << k);
      // The lattice is exactly representable (multiples of 2^-7), so every distance and every
      // tie is exact in float32 too: the device must return the CPU's ids in the CPU's order.
      ObjectGraph g = test::random_graph("g", 125, 7);
      if (lattice)
        for (size_t n = 0; n < 125; ++n)
          for (int c = 0; c < 3; ++c) g.pos[n * 3 + size_t(c)] = std::ldexp(double((n / (c == 0 ? 1 : c == 1 ? 5 : 25)) % 5), -7);
      UpdaterConfig c = test::monty_config(UpdaterKind::Default);
      c.threshold = ThresholdConfig::parse("all");  // test every hypothesis
      c.max_nneighbors = k;
      VulkanBackend vk(device());
      vk.set_kernel_trace(true);
      const int gid = vk.add_graph(g);
      vk.add_learning_module(c, {gid});
      StepInput first = test::random_input(0, 5, true);
      first.channels[0].pose_fully_defined = true;
      vk.dispatch({first});
      vk.wait();
      StepInput second = test::random_input(0, 6, false);
      if (lattice) second.displacement = std::array<double, 3>{0, 0, 0};  // search at the nodes themselves
      vk.dispatch({second});
      vk.wait();
      const ChannelEvidence ce = vk.last_channel_evidence(0, gid, 0);
      const HypothesisArrays h = vk.hypotheses(0, gid);
      REQUIRE(ce.tested.size() == h.size());
      REQUIRE(ce.traces.size() == h.size());
      size_t exact = 0;
      for (size_t t = 0; t < ce.tested.size(); ++t) {
        const double* q = h.locations.data() + ce.tested[t] * 3;
        int ids[kMaxNeighbors];
        double d2[kMaxNeighbors];
        const int n = k_nearest(g.pos.data(), g.num_nodes, q, k, ids, d2);
        REQUIRE(n == ce.traces[t].count);
        const std::vector<int> dev(ce.traces[t].nearest.begin(), ce.traces[t].nearest.begin() + n);
        const std::vector<int> cpu(ids, ids + n);
        CHECK(knn_agrees(dev, cpu, g.pos, q));
        exact += dev == cpu;
      }
      if (lattice) CHECK(exact == ce.tested.size());
    }
  expect_no_validation_messages();
}

TEST_CASE("vulkan backend: unsupported configs, bad input and reads while pending are typed errors") {
  VulkanBackend vk(device());
  const int g = vk.add_graph(test::random_graph("g", 40, 3));
  UpdaterConfig long_window = test::monty_config(UpdaterKind::BurstSampling);
  long_window.burst.slope_window = 17;
  CHECK_THROWS_AS(vk.add_learning_module(long_window, {g}), weft::Error);
  UpdaterConfig many_channels = test::monty_config(UpdaterKind::Default);
  many_channels.max_channels = 9;
  CHECK_THROWS_AS(vk.add_learning_module(many_channels, {g}), weft::Error);
  const int lm = vk.add_learning_module(test::monty_config(UpdaterKind::Default), {g});
  vk.dispatch({test::random_input(lm, 1, true)});
  CHECK_THROWS_AS(vk.hypotheses(lm, g), weft::Error);  // pending: wait() first
  vk.wait();
  const HypothesisArrays before = vk.hypotheses(lm, g);
  CHECK_THROWS_AS(vk.dispatch({test::random_input(lm, 2, true)}), weft::Error);  // no displacement
  StepInput nan_input = test::random_input(lm, 3, false);
  nan_input.channels[0].features[0] = NAN;
  CHECK_THROWS_AS(vk.dispatch({nan_input}), weft::Error);
  const HypothesisArrays after = vk.hypotheses(lm, g);
  CHECK(after.evidence == before.evidence);
  // The program stacks every LM: set-up waits for the next episode.
  CHECK_THROWS_AS(vk.add_learning_module(test::monty_config(UpdaterKind::Default), {g}), weft::Error);
  vk.reset_episode();
  CHECK(vk.add_learning_module(test::monty_config(UpdaterKind::BurstSampling), {g}) == 1);
  expect_no_validation_messages();
}

TEST_CASE("vulkan backend: a graph out of hypothesis capacity fails in wait() with OutOfMemory") {
  VulkanBackend vk(device());
  vk.set_capacity_per_node(1.0);  // a burst adds 0.4 N per step for 5 steps: the third overflows
  const int g = vk.add_graph(test::random_graph("g", 50, 4));
  const int lm = vk.add_learning_module(test::monty_config(UpdaterKind::BurstSampling), {g});
  bool overflowed = false;
  for (int step = 0; step < 5 && !overflowed; ++step) {
    StepInput in = test::random_input(lm, 40 + uint64_t(step), step == 0);
    in.channels[0].pose_fully_defined = true;
    vk.dispatch({in});
    try {
      vk.wait();
    } catch (const weft::Error& e) {
      CHECK(e.code() == weft::ErrorCode::OutOfMemory);
      overflowed = true;
    }
  }
  CHECK(overflowed);
  CHECK(vk.hypotheses(lm, g).size() <= 64);  // 50 rows, padded to the workgroup
  expect_no_validation_messages();
}

namespace {

void expect_burst_matches(const VulkanBackend& vk, const CpuBackend& cpu, int lm, int g) {
  const HypothesisArrays x = vk.hypotheses(lm, g), r = cpu.hypotheses(lm, g);
  REQUIRE(x.size() == r.size());
  expect_close(x.evidence, r.evidence, kVulkanEvidenceTolerance, "evidence");
  expect_close(x.locations, r.locations, kVulkanGeometryTolerance, "locations");
  expect_close(x.rotations, r.rotations, kVulkanGeometryTolerance, "rotations");
  const BurstTelemetry xt = vk.burst_telemetry(lm, g), rt = cpu.burst_telemetry(lm, g);
  CHECK(xt.added_ids == rt.added_ids);
  CHECK(xt.removed_ids == rt.removed_ids);
  CHECK(xt.ages == rt.ages);
  CHECK(xt.burst_steps_in_step == rt.burst_steps_in_step);
  CHECK((std::isinf(xt.max_global_slope) == std::isinf(rt.max_global_slope)));
  if (!std::isinf(rt.max_global_slope)) CHECK(std::abs(xt.max_global_slope - rt.max_global_slope) <= kVulkanEvidenceTolerance);
  REQUIRE(xt.evidence_slopes.size() == rt.evidence_slopes.size());
  for (size_t h = 0; h < rt.evidence_slopes.size(); ++h) {
    CHECK(std::isnan(xt.evidence_slopes[h]) == std::isnan(rt.evidence_slopes[h]));
    if (!std::isnan(rt.evidence_slopes[h]))
      CHECK(std::abs(xt.evidence_slopes[h] - rt.evidence_slopes[h]) <= kVulkanEvidenceTolerance);
  }
  const GraphStepInfo xi = vk.step_info(lm, g), ri = cpu.step_info(lm, g);
  CHECK(xi.tested == ri.tested);
  CHECK(std::abs(xi.threshold - ri.threshold) <= kVulkanEvidenceTolerance);
}

// Three LMs: burst sampling with features over two graphs, the default updater with the median
// threshold over the same two, and burst sampling without features on a third graph.
void add_three_lm_world(HypothesisBackend& b) {
  UpdaterConfig burst = test::monty_config(UpdaterKind::BurstSampling);
  burst.burst.sampling_burst_duration = 3;  // bursts end and restart within the run
  burst.burst.slope_min_age = 3;             // deletions start early
  burst.burst.deletion_trigger_slope = 0.4;
  UpdaterConfig burst_plain = burst;  // no features: the first nodes are sampled, evidence 0
  burst_plain.features.clear();
  burst_plain.curvature_feature = -1;
  UpdaterConfig default_median = test::monty_config(UpdaterKind::Default);
  default_median.threshold = ThresholdConfig::parse("median");
  const ObjectGraph ga = test::random_graph("a", 150, 11), gb = test::random_graph("b", 97, 12);
  ObjectGraph gc = test::random_graph("c", 120, 13);
  gc.features.clear();
  const int a = b.add_graph(ga), bb = b.add_graph(gb), c = b.add_graph(gc);
  b.add_learning_module(burst, {a, bb});
  b.add_learning_module(default_median, {bb, a});
  b.add_learning_module(burst_plain, {c});
}

// The three-LM world's step: LM 1 has no input on step 6, a new episode starts at step 12.
constexpr int kThreeLmSteps = 16, kThreeLmNoInputStep = 6, kThreeLmNewEpisode = 12;
std::vector<StepInput> three_lm_inputs(int step) {
  std::vector<StepInput> inputs;
  for (int lm = 0; lm < 3; ++lm) {
    if (lm == 1 && step == kThreeLmNoInputStep) continue;
    StepInput in = test::random_input(lm, 1000 + uint64_t(step * 3 + lm), step == 0 || step == kThreeLmNewEpisode);
    if (lm == 2) in.channels[0].features.clear();
    inputs.push_back(in);
  }
  return inputs;
}
constexpr std::pair<int, int> kThreeLmSpaces[] = {{0, 0}, {0, 1}, {1, 1}, {1, 0}, {2, 2}};

}  // namespace

TEST_CASE("vulkan burst sampling and the median threshold follow the CPU backend in two LM groups, across episodes") {
  CpuBackend cpu(1);
  VulkanBackend vk(device()), far(device());
  const SmallFarChunks small;
  far.set_row_placement(RowPlacement::Far);
  std::vector<HypothesisBackend*> backends = {&cpu, &vk};
  if (far_rows_supported()) backends.push_back(&far);
  vk.set_row_dispatch_width(3);  // row stages wrap into a 2D grid of workgroups
  far.set_row_dispatch_width(3);
  for (HypothesisBackend* b : backends) {
    add_three_lm_world(*b);
    b->set_groups({{0, 2}, {1}});
  }
  size_t removed = 0, bursts_started = 0;
  for (int step = 0; step < kThreeLmSteps; ++step) {
    if (step == kThreeLmNewEpisode) {  // the device state restarts from nothing, like the CPU's
      for (HypothesisBackend* b : backends) b->reset_episode();
    }
    const std::vector<StepInput> inputs = three_lm_inputs(step);
    for (HypothesisBackend* b : backends) b->dispatch(inputs);
    for (HypothesisBackend* b : backends) b->wait();
    for (auto [lm, g] : kThreeLmSpaces) {
      INFO("step " << step << " LM " << lm << " graph " << g);
      expect_burst_matches(vk, cpu, lm, g);
      if (far_rows_supported()) expect_same_device_state(far, vk, lm, g);
      if (lm != 1) {
        removed += cpu.burst_telemetry(lm, g).removed_ids.size();
        bursts_started += cpu.burst_telemetry(lm, g).burst_steps_in_step == 3;
      }
    }
    for (int lm : {0, 1, 2}) {
      INFO("step " << step << " LM " << lm);
      const MostLikely x = vk.most_likely(lm), r = cpu.most_likely(lm);
      CHECK(x.graph == r.graph);
      CHECK(x.hypothesis == r.hypothesis);
      CHECK(std::abs(x.evidence - r.evidence) <= kVulkanEvidenceTolerance);
    }
  }
  CHECK(removed > 0);           // deletion ran
  CHECK(bursts_started > 3);    // bursts started more than once per LM
  CHECK(vk.programs_recorded() == 1);
  CHECK(vk.group_count() == 2);
  expect_no_validation_messages();
}

namespace {

// Grouped against ungrouped device runs of the same steps: the same bits everywhere.
void expect_bitwise_equal(const VulkanBackend& grouped, const VulkanBackend& one, int lm, int g) {
  const HypothesisArrays x = grouped.hypotheses(lm, g), r = one.hypotheses(lm, g);
  CHECK(x.evidence == r.evidence);
  CHECK(x.locations == r.locations);
  CHECK(x.rotations == r.rotations);
  const GraphStepInfo xi = grouped.step_info(lm, g), ri = one.step_info(lm, g);
  CHECK(xi.updated == ri.updated);
  CHECK(xi.tested == ri.tested);
  CHECK(std::bit_cast<uint64_t>(xi.threshold) == std::bit_cast<uint64_t>(ri.threshold));
  CHECK(std::bit_cast<uint64_t>(xi.prediction_error) == std::bit_cast<uint64_t>(ri.prediction_error));
  const BurstTelemetry xt = grouped.burst_telemetry(lm, g), rt = one.burst_telemetry(lm, g);
  CHECK(xt.added_ids == rt.added_ids);
  CHECK(xt.removed_ids == rt.removed_ids);
  CHECK(xt.ages == rt.ages);
  CHECK(xt.burst_steps_in_step == rt.burst_steps_in_step);
  CHECK(std::bit_cast<uint64_t>(xt.max_global_slope) == std::bit_cast<uint64_t>(rt.max_global_slope));
  REQUIRE(xt.evidence_slopes.size() == rt.evidence_slopes.size());
  for (size_t h = 0; h < rt.evidence_slopes.size(); ++h)
    CHECK(std::bit_cast<uint64_t>(xt.evidence_slopes[h]) == std::bit_cast<uint64_t>(rt.evidence_slopes[h]));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST_CASE("vulkan LM groups run as separate submissions and equal the ungrouped run bit for bit") {
  CpuBackend cpu(1);
  VulkanBackend grouped(device()), one(device());
  for (HypothesisBackend* b : std::initializer_list<HypothesisBackend*>{&cpu, &grouped, &one}) add_three_lm_world(*b);
  grouped.set_groups({{0, 1}, {2}});
  cpu.set_groups({{0, 1}, {2}});
  // Wall time of dispatch + wait after the first step (which records the programs), measured,
  // not asserted; the order alternates so neither run always goes first.
  double grouped_s = 0, one_s = 0;
  for (int step = 0; step < kThreeLmSteps; ++step) {
    if (step == kThreeLmNewEpisode)
      for (HypothesisBackend* b : std::initializer_list<HypothesisBackend*>{&cpu, &grouped, &one}) b->reset_episode();
    const std::vector<StepInput> inputs = three_lm_inputs(step);
    cpu.dispatch(inputs);
    const std::array<VulkanBackend*, 2> order =
        step % 2 ? std::array<VulkanBackend*, 2>{&one, &grouped} : std::array<VulkanBackend*, 2>{&grouped, &one};
    for (VulkanBackend* b : order) {
      const auto t0 = std::chrono::steady_clock::now();
      b->dispatch(inputs);
      b->wait();
      if (step > 0) (b == &grouped ? grouped_s : one_s) += seconds_since(t0);
    }
    cpu.wait();
    for (auto [lm, g] : kThreeLmSpaces) {
      INFO("step " << step << " LM " << lm << " graph " << g);
      expect_bitwise_equal(grouped, one, lm, g);
      expect_burst_matches(grouped, cpu, lm, g);
    }
    for (int lm : {0, 1, 2}) {
      INFO("step " << step << " LM " << lm);
      const MostLikely x = grouped.most_likely(lm), r = one.most_likely(lm);
      CHECK(x.graph == r.graph);
      CHECK(x.hypothesis == r.hypothesis);
      CHECK(std::bit_cast<uint64_t>(x.evidence) == std::bit_cast<uint64_t>(r.evidence));
    }
  }
  CHECK(grouped.group_count() == 2);
  CHECK(one.group_count() == 1);
  CHECK(grouped.program(0)->space_of_lm.size() == 2);  // LMs 0 and 1
  CHECK(grouped.program(1)->space_of_lm.size() == 1);  // LM 2
  CHECK(grouped.programs_recorded() == 1);
  MESSAGE("15 steps, dispatch + wait: two groups " << grouped_s * 1e3 << " ms, one program " << one_s * 1e3 << " ms on "
                                                    << device().info().name);
  expect_no_validation_messages();
}

TEST_CASE("vulkan LM groups: a new grouping waits for a new episode, the same grouping is accepted") {
  VulkanBackend vk(device());
  add_three_lm_world(vk);
  vk.set_groups({{0, 1}, {2}});
  vk.dispatch(three_lm_inputs(0));
  vk.wait();
  const HypothesisArrays before = vk.hypotheses(2, 2);
  CHECK_NOTHROW(vk.set_groups({{0, 1}, {2}}));
  CHECK_NOTHROW(vk.set_groups({{0, 1}}));  // LM 2 alone in the rest: the same partition
  CHECK(weft::test::error_code_of([&] { vk.set_groups({{0}, {1, 2}}); }) == weft::ErrorCode::BadInput);
  const std::string m = weft::test::error_message_of([&] { vk.set_groups({{0}, {1, 2}}); });
  CHECK(m.find("set_groups") != std::string::npos);
  CHECK(m.find("reset_episode") != std::string::npos);
  CHECK(vk.hypotheses(2, 2).evidence == before.evidence);  // the refused grouping changed nothing
  vk.dispatch(three_lm_inputs(1));
  vk.wait();
  CHECK(vk.group_count() == 2);
  vk.reset_episode();
  CHECK_NOTHROW(vk.set_groups({{0}, {1, 2}}));
  vk.dispatch(three_lm_inputs(0));
  vk.wait();
  CHECK(vk.group_count() == 2);
  CHECK(vk.program(1)->space_of_lm.size() == 2);
  CHECK(vk.programs_recorded() == 2);
  expect_no_validation_messages();
}

// 13^3 = 2197 lattice nodes 2^-7 m apart (exactly representable in float32, so every tie is a
// true tie), or 2500 random nodes in a 4 cm cube.
static ObjectGraph big_graph(bool lattice, uint64_t seed) {
  const size_t n = lattice ? 2197 : 2500;
  ObjectGraph g = test::random_graph("big", n, seed);
  if (lattice)
    for (size_t i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) g.pos[i * 3 + size_t(c)] = std::ldexp(double((i / (c == 0 ? 1 : c == 1 ? 13 : 169)) % 13), -7);
  return g;
}

TEST_CASE("device nearest neighbours are exact on graphs of 2000+ nodes") {
  // 13^3 = 2197 lattice nodes 2^-7 m apart (exact in float32: every tie is a true tie, the
  // device must return the CPU's ids in the CPU's order), and 2500 random nodes (agreement up
  // to float32 ties of the K-th distance).
  for (const bool lattice : {true, false}) {
    INFO(std::string(lattice ? "lattice" : "random") << " graph");
    const ObjectGraph g = big_graph(lattice, 21);
    const size_t n = g.num_nodes;
    UpdaterConfig c = test::monty_config(UpdaterKind::Default);
    c.threshold = ThresholdConfig::parse("all");
    c.max_nneighbors = 16;
    VulkanBackend vk(device());
    vk.set_kernel_trace(true);
    const int gid = vk.add_graph(g);
    vk.add_learning_module(c, {gid});
    StepInput first = test::random_input(0, 31, true);
    first.channels[0].pose_fully_defined = true;
    vk.dispatch({first});
    vk.wait();
    StepInput second = test::random_input(0, 32, false);
    if (lattice) second.displacement = std::array<double, 3>{0, 0, 0};
    vk.dispatch({second});
    vk.wait();
    const ChannelEvidence ce = vk.last_channel_evidence(0, gid, 0);
    const HypothesisArrays h = vk.hypotheses(0, gid);
    REQUIRE(h.size() == 2 * n);
    REQUIRE(ce.tested.size() == h.size());
    size_t exact = 0, agree = 0;
    for (size_t t = 0; t < ce.tested.size(); ++t) {
      const double* q = h.locations.data() + ce.tested[t] * 3;
      int ids[kMaxNeighbors];
      double d2[kMaxNeighbors];
      const int k = k_nearest(g.pos.data(), g.num_nodes, q, 16, ids, d2);
      const std::vector<int> dev(ce.traces[t].nearest.begin(), ce.traces[t].nearest.begin() + k);
      const std::vector<int> cpu(ids, ids + k);
      agree += knn_agrees(dev, cpu, g.pos, q);
      exact += dev == cpu;
    }
    CHECK(agree == ce.tested.size());
    if (lattice) CHECK(exact == ce.tested.size());

    // Without the trace the device searches its grid (device_grid.h): the same evidence, bit for
    // bit, as its exact search above, and the CPU backend's within the float32 tolerance.
    VulkanBackend grid(device());
    CpuBackend cpu(2);
    for (HypothesisBackend* b : {static_cast<HypothesisBackend*>(&grid), static_cast<HypothesisBackend*>(&cpu)}) {
      b->add_graph(g);
      b->add_learning_module(c, {0});
      b->dispatch({first});
      b->wait();
      b->dispatch({second});
      b->wait();
    }
    const ChannelEvidence ge = grid.last_channel_evidence(0, gid, 0), re = cpu.last_channel_evidence(0, gid, 0);
    REQUIRE(ge.tested == ce.tested);
    REQUIRE(re.tested == ce.tested);
    // The lattice has ~7 nodes within max_match_distance (1 cm) of each query, so the grid
    // finds fewer than K = 16 and adds the far value; the random graph has ~160, a full K.
    for (size_t t = 0; t < ce.tested.size(); ++t) {
      CHECK(ge.evidence[t] == ce.evidence[t]);
      CHECK(std::abs(ge.evidence[t] - re.evidence[t]) <= kVulkanEvidenceTolerance);
    }
    MESSAGE(std::string(lattice ? "lattice" : "random") << ": " << exact << " of " << ce.tested.size() << " identical in order");
  }
  expect_no_validation_messages();
}

TEST_CASE("neighbour lists give the grid walk's evidence bit for bit, inside and outside their box") {
  // 2500 random nodes in a 4 cm cube (a full K within the 1 cm radius) and a 2197-node lattice
  // (exact float32 ties); the third step moves every hypothesis by 3 cm, rotated, so part of the
  // queries leave the lists' box (the cube grown by the radius) and walk the grid instead.
  for (const int k : {3, 10, 16})
    for (const bool lattice : {true, false}) {
      INFO((lattice ? "lattice" : "random") << " graph, K = " << k);
      const ObjectGraph g = big_graph(lattice, 23);
      UpdaterConfig c = test::monty_config(UpdaterKind::Default);
      c.threshold = ThresholdConfig::parse("all");
      c.max_nneighbors = k;
      VulkanBackend listed(device()), walked(device());
      walked.set_neighbour_lists(false);
      StepInput far = test::random_input(0, 43, false);
      far.displacement = std::array<double, 3>{0.03, -0.02, 0.025};
      const std::vector<StepInput> steps = {test::random_input(0, 41, true), test::random_input(0, 42, false), far};
      for (VulkanBackend* b : {&listed, &walked}) b->add_graph(g), b->add_learning_module(c, {0});
      for (const StepInput& in : steps) {
        for (VulkanBackend* b : {&listed, &walked}) b->dispatch({in}), b->wait();
        const ChannelEvidence a = listed.last_channel_evidence(0, 0, 0), b = walked.last_channel_evidence(0, 0, 0);
        REQUIRE(a.tested == b.tested);
        CHECK(a.evidence == b.evidence);
        CHECK(listed.hypotheses(0, 0).evidence == walked.hypotheses(0, 0).evidence);
      }
      // Where the last step's queries were: both inside and outside the lists' box.
      const HypothesisArrays h = listed.hypotheses(0, 0);
      const double lo = -c.max_match_distance, hi = (lattice ? 12 * std::ldexp(1.0, -7) : 0.04) + c.max_match_distance;
      size_t outside = 0;
      for (size_t r = 0; r < h.size(); ++r)
        for (int a = 0; a < 3; ++a)
          if (h.locations[r * 3 + size_t(a)] < lo || h.locations[r * 3 + size_t(a)] > hi) {
            ++outside;
            break;
          }
      CHECK(outside > h.size() / 10);
      CHECK(outside < h.size() * 9 / 10);
    }
  expect_no_validation_messages();
}

// Burst sampling ranks a graph's nodes by evidence with one invocation's sort (the select
// stage). At 8000 nodes that sort passes llvmpipe's 65,535 loop steps per invocation; before the
// loop checks the step came out wrong (evidence off by up to 1.5 on 2,534 of 9,600 rows against
// the CPU backend) without any error. Now such a device refuses the step naming the stage, and a
// device without the cap must agree with the CPU backend.
TEST_CASE("vulkan burst sampling on a graph too large for one invocation's sort is refused, never wrong") {
  BenchOptions o;
  o.nodes = 8000;
  o.steps = 2;
  o.kind = UpdaterKind::BurstSampling;
  VulkanBackend vk(device());
  CpuBackend cpu(2);
  run_synthetic_bench(cpu, o);
  if (device().loop_iteration_limit() == UINT32_MAX) {
    run_synthetic_bench(vk, o);
    const BenchAgreement a = compare_bench_backends(vk, cpu, kVulkanEvidenceTolerance, kVulkanAlignedEvidenceBound * (o.steps + 1),
                                                    kVulkanGeometryTolerance);
    CHECK(a.agree);
  } else {
    try {
      run_synthetic_bench(vk, o);
      FAIL("the step ran although the device stops loops after " << device().loop_iteration_limit() << " iterations");
    } catch (const weft::Error& e) {
      CHECK(e.code() == weft::ErrorCode::MissingFeature);
      CHECK(std::string(e.what()).find("stage 'select'") != std::string::npos);
    }
  }
  expect_no_validation_messages();
}

TEST_CASE("a step's profile names every Vulkan stage and CPU phase once, with the traffic model's bytes") {
  BenchOptions o;
  o.nodes = 300, o.umbilical = 2, o.steps = 2, o.k = 5;
  VulkanBackend vk(device());
  CpuBackend cpu(2);
  const auto gpu_step = [&] { return vk.last_step_timings().total_ns * 1e-9; };
  run_synthetic_bench(vk, o, gpu_step);
  run_synthetic_bench(cpu, o);
  const StepCounts counts = bench_step_counts(cpu, o);
  CHECK(counts.rows == 600);
  CHECK(counts.tested == 600);
  CHECK(counts.nodes == 300);

  const std::vector<KernelProfile> kernels = profile_vulkan_step(vk, bench_step_counts(vk, o));
  const auto& stages = vk.program()->exe->program().stages();
  REQUIRE(kernels.size() == stages.size());
  double sum = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    CHECK(kernels[i].name == stages[i].name);
    CHECK(kernels[i].ms >= 0);
    sum += kernels[i].ms;
  }
  if (vk.last_step_timings().valid) CHECK(sum == doctest::Approx(vk.last_step_timings().total_ns * 1e-6).epsilon(0.05));
  // Location evidence: every row displaced (16 words) and every tested row's K neighbours
  // (10 words each) and its evidence, float32.
  const KernelProfile& le = *std::find_if(kernels.begin(), kernels.end(), [](auto& k) { return k.name == "location_evidence"; });
  CHECK(le.bytes == 4 * (600.0 * 16 + 600.0 * (5 * 10 + 1)));

  std::vector<std::string> phases;
  for (const KernelProfile& k : profile_cpu_step(cpu, counts)) phases.push_back(k.name);
  CHECK(phases == std::vector<std::string>{"burst_trigger", "prepare", "location_evidence", "finish", "most_likely"});
  expect_no_validation_messages();
}

namespace {

// Three LMs voting on two shared graphs: LM 0 {a, b} and LM 1 {b, a} (default updater), LM 2
// {a} averaging (past + present weight 1); LM 0 hears 1 and 2, LM 1 hears 0, LM 2 hears 0 and 1.
const std::vector<std::vector<int>> kVoteMatrix = {{1, 2}, {0}, {0, 1}};
void add_voting_world(HypothesisBackend& b) {
  const int a = b.add_graph(test::random_graph("a", 80, 51)), bb = b.add_graph(test::random_graph("b", 70, 52));
  UpdaterConfig c = test::monty_config(UpdaterKind::Default);
  c.threshold = ThresholdConfig::parse("all");
  c.max_match_distance = 0.02;  // votes of a 4 cm object land within reach
  UpdaterConfig averaging = c;
  averaging.past_weight = 0.5, averaging.present_weight = 0.5;
  b.add_learning_module(c, {a, bb});
  b.add_learning_module(c, {bb, a});
  b.add_learning_module(averaging, {a});
}

// Step inputs with sensed locations a few mm apart; LM 2 has no input on step 3.
std::vector<StepInput> voting_inputs(int step) {
  std::vector<StepInput> inputs;
  for (int lm = 0; lm < 3; ++lm) {
    if (lm == 2 && step == 3) continue;
    StepInput in = test::random_input(lm, 500 + uint64_t(step * 3 + lm), step == 0);
    in.sensed_location = std::array<double, 3>{0.002 * lm + 0.001 * step, 0.003 - 0.001 * lm, 0.0005 * step};
    inputs.push_back(in);
  }
  return inputs;
}

}  // namespace

TEST_CASE("vulkan votes between LMs follow the CPU backend's votes, in the same submission as the update") {
  CpuBackend cpu(1), unvoted(1);
  VulkanBackend vk(device()), far(device());
  const SmallFarChunks small;
  far.set_row_placement(RowPlacement::Far);
  std::vector<HypothesisBackend*> voting = {&cpu, &vk};
  if (far_rows_supported()) voting.push_back(&far);
  for (HypothesisBackend* b : voting) add_voting_world(*b), b->set_votes(kVoteMatrix, {0.6, 1.5});
  add_voting_world(unvoted);
  size_t moved_by_votes = 0;
  for (int step = 0; step < 6; ++step) {
    const std::vector<StepInput> inputs = voting_inputs(step);
    for (HypothesisBackend* b : voting) b->dispatch(inputs);
    unvoted.dispatch(inputs);
    for (HypothesisBackend* b : voting) b->wait();
    unvoted.wait();
    for (auto [lm, g] : {std::pair{0, 0}, std::pair{0, 1}, std::pair{1, 1}, std::pair{1, 0}, std::pair{2, 0}}) {
      INFO("step " << step << " LM " << lm << " graph " << g);
      const HypothesisArrays x = vk.hypotheses(lm, g), r = cpu.hypotheses(lm, g);
      expect_close(x.evidence, r.evidence, kVulkanEvidenceTolerance, "evidence");
      expect_close(x.locations, r.locations, kVulkanGeometryTolerance, "locations");
      if (far_rows_supported()) expect_same_device_state(far, vk, lm, g);
      if (step == 0) {  // same hypotheses before the vote: the vote is what differs
        const HypothesisArrays u = unvoted.hypotheses(lm, g);
        for (size_t h = 0; h < u.size(); ++h) moved_by_votes += u.evidence[h] != r.evidence[h];
      }
    }
    for (int lm : {0, 1, 2}) {
      INFO("step " << step << " LM " << lm);
      const MostLikely x = vk.most_likely(lm), r = cpu.most_likely(lm);
      CHECK(x.graph == r.graph);
      CHECK(x.hypothesis == r.hypothesis);
      CHECK(std::abs(x.evidence - r.evidence) <= kVulkanEvidenceTolerance);
    }
  }
  CHECK(moved_by_votes > 50);
  CHECK(vk.group_count() == 1);  // update and vote: one program, one submission per step
  CHECK(vk.program()->votes);
  expect_no_validation_messages();
}

TEST_CASE("vulkan votes: senders in another group, a new vote matrix mid-episode and a missing location are BadInput") {
  using weft::test::contains;
  using weft::test::error_message_of;
  VulkanBackend vk(device());
  add_voting_world(vk);
  vk.set_votes(kVoteMatrix);
  vk.set_groups({{0, 1}, {2}});
  CHECK(contains(error_message_of([&] { vk.dispatch(voting_inputs(0)); }),
                 "LM 0 receives votes from LM 2 of another group"));
  vk.set_groups({{0, 1, 2}});
  std::vector<StepInput> unlocated = voting_inputs(0);
  unlocated[1].sensed_location.reset();
  CHECK(contains(error_message_of([&] { vk.dispatch(unlocated); }), "LM 1): sensed_location is required"));
  vk.dispatch(voting_inputs(0));
  vk.wait();
  CHECK_NOTHROW(vk.set_votes(kVoteMatrix));  // the same votes again
  CHECK(contains(error_message_of([&] { vk.set_votes({{1}, {0}, {}}); }), "reset_episode"));
  vk.reset_episode();
  CHECK_NOTHROW(vk.set_votes({{1}, {0}, {}}));
  expect_no_validation_messages();
}

TEST_CASE("vulkan votes within one group while another group samples in bursts follow the CPU backend") {
  CpuBackend cpu(1);
  VulkanBackend vk(device());
  UpdaterConfig burst = test::monty_config(UpdaterKind::BurstSampling);
  burst.burst.sampling_burst_duration = 2;
  for (HypothesisBackend* b : std::initializer_list<HypothesisBackend*>{&cpu, &vk}) {
    add_voting_world(*b);
    b->add_learning_module(burst, {1});
    std::vector<std::vector<int>> matrix = kVoteMatrix;
    matrix.push_back({});  // LM 3 neither sends nor receives
    b->set_votes(matrix, {0.7, 1});
    b->set_groups({{0, 1, 2}, {3}});
  }
  for (int step = 0; step < 6; ++step) {
    std::vector<StepInput> inputs = voting_inputs(step);
    inputs.push_back(test::random_input(3, 900 + uint64_t(step), step == 0));  // no location: it does not vote
    for (HypothesisBackend* b : std::initializer_list<HypothesisBackend*>{&cpu, &vk}) b->dispatch(inputs);
    for (HypothesisBackend* b : std::initializer_list<HypothesisBackend*>{&cpu, &vk}) b->wait();
    for (auto [lm, g] : {std::pair{0, 0}, std::pair{0, 1}, std::pair{1, 1}, std::pair{1, 0}, std::pair{2, 0}}) {
      INFO("step " << step << " LM " << lm << " graph " << g);
      expect_close(vk.hypotheses(lm, g).evidence, cpu.hypotheses(lm, g).evidence, kVulkanEvidenceTolerance, "evidence");
    }
    INFO("step " << step << " LM 3");
    expect_burst_matches(vk, cpu, 3, 1);
  }
  CHECK(vk.group_count() == 2);
  CHECK(vk.program(0)->votes);
  CHECK_FALSE(vk.program(1)->votes);  // a group without votes has no vote stages
  expect_no_validation_messages();
}
