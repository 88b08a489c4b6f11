// The backend API contract: groups, LMs without input, variable inputs, determinism.
#include <doctest/doctest.h>
#include <weft/error.h>

#include <algorithm>
#include <cstring>

#include "cpu_backend.h"
#include "synthetic.h"

using namespace weft::hypothesis_update;
using namespace weft::hypothesis_update::test;

namespace {

bool bit_equal(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

bool same_hypotheses(const HypothesisArrays& a, const HypothesisArrays& b) {
  return bit_equal(a.evidence, b.evidence) && bit_equal(a.locations, b.locations) &&
         bit_equal(a.rotations, b.rotations) && a.possible == b.possible;
}

// Three LMs over two graphs: LM 0 default (both graphs), LM 1 burst (both), LM 2 default (graph 1).
struct World {
  std::unique_ptr<CpuBackend> backend;
  explicit World(unsigned threads, size_t nodes = 60) : backend(std::make_unique<CpuBackend>(threads)) {
    const int a = backend->add_graph(random_graph("a", nodes, 11));
    const int b = backend->add_graph(random_graph("b", nodes + 7, 12));
    backend->add_learning_module(monty_config(UpdaterKind::Default), {a, b});
    backend->add_learning_module(monty_config(UpdaterKind::BurstSampling), {a, b});
    backend->add_learning_module(monty_config(UpdaterKind::Default), {b});
  }
  void step(const std::vector<int>& lms, int step_index) {
    std::vector<StepInput> inputs;
    for (int lm : lms) inputs.push_back(random_input(lm, uint64_t(1000 * step_index + lm), step_index == 0));
    backend->dispatch(inputs);
    backend->wait();
  }
};

void run_episode(World& w, int steps) {
  for (int s = 0; s < steps; ++s) w.step({0, 1, 2}, s);
}

}  // namespace

TEST_CASE("an LM without input keeps its state bit-exactly") {
  World w(2);
  w.step({0, 1, 2}, 0);
  w.step({0, 1, 2}, 1);
  const HypothesisArrays lm1_before = w.backend->hypotheses(1, 0);
  const HypothesisArrays lm0_before = w.backend->hypotheses(0, 0);
  const MostLikely ml1_before = w.backend->most_likely(1);
  w.step({0, 2}, 2);  // LM 1 gets nothing this step
  CHECK(same_hypotheses(w.backend->hypotheses(1, 0), lm1_before));
  CHECK(w.backend->most_likely(1).evidence == ml1_before.evidence);
  CHECK_FALSE(w.backend->step_info(1, 0).updated);
  CHECK(w.backend->step_info(0, 0).updated);
  CHECK_FALSE(same_hypotheses(w.backend->hypotheses(0, 0), lm0_before));
  // An LM with no input at all yet has no hypotheses and no most likely one.
  World fresh(1);
  fresh.step({0}, 0);
  CHECK(fresh.backend->hypotheses(2, 1).size() == 0);
  CHECK(fresh.backend->most_likely(2).graph == -1);
  CHECK(fresh.backend->hypotheses(0, 0).size() > 0);
}

TEST_CASE("grouping and thread count do not change results") {
  World reference(1);
  run_episode(reference, 8);
  for (unsigned threads : {2u, 5u}) {
    World w(threads);
    w.backend->set_groups(threads == 2 ? std::vector<std::vector<int>>{{2}, {0, 1}}
                                       : std::vector<std::vector<int>>{{1, 2}});
    run_episode(w, 8);
    for (int lm = 0; lm < 3; ++lm)
      for (int g : lm == 2 ? std::vector<int>{1} : std::vector<int>{0, 1}) {
        INFO("threads " << threads << " lm " << lm << " graph " << g);
        CHECK(same_hypotheses(w.backend->hypotheses(lm, g), reference.backend->hypotheses(lm, g)));
        const BurstTelemetry a = w.backend->burst_telemetry(lm, g), b = reference.backend->burst_telemetry(lm, g);
        CHECK(a.removed_ids == b.removed_ids);
        CHECK(a.ages == b.ages);
      }
  }
}

TEST_CASE("most likely hypothesis is the global argmax over the LM's graphs") {
  World w(2);
  run_episode(w, 4);
  for (int lm = 0; lm < 3; ++lm) {
    MostLikely best;
    for (int g = 0; g < 2; ++g) {
      if (lm == 2 && g == 0) continue;
      const auto e = w.backend->hypotheses(lm, g).evidence;
      for (size_t h = 0; h < e.size(); ++h)
        if (best.graph < 0 || e[h] > best.evidence) best = {g, int64_t(h), e[h]};
    }
    const MostLikely got = w.backend->most_likely(lm);
    CHECK(got.graph == best.graph);
    CHECK(got.hypothesis == best.hypothesis);
    CHECK(got.evidence == best.evidence);
  }
}

TEST_CASE("two identical input channels add twice the evidence of one") {
  // Same history on two backends, then one gets the step's channel once, the other twice.
  auto make = [] {
    auto b = std::make_unique<CpuBackend>(2);
    const int g = b->add_graph(random_graph("a", 80, 5));
    UpdaterConfig c = monty_config(UpdaterKind::Default);
    c.threshold = ThresholdConfig::parse("all");
    c.max_channels = 2;
    b->add_learning_module(c, {g});
    b->dispatch({random_input(0, 1, true)});
    b->wait();
    return b;
  };
  auto one = make(), two = make();
  const std::vector<double> before = one->hypotheses(0, 0).evidence;
  StepInput single = random_input(0, 2, false);
  StepInput doubled = single;
  doubled.channels.push_back(single.channels[0]);
  one->dispatch({single});
  two->dispatch({doubled});
  one->wait();
  two->wait();
  const auto e1 = one->hypotheses(0, 0).evidence, e2 = two->hypotheses(0, 0).evidence;
  REQUIRE(e1.size() == before.size());
  REQUIRE(e2.size() == before.size());
  for (size_t h = 0; h < before.size(); ++h)
    CHECK(e2[h] - before[h] == doctest::Approx(2 * (e1[h] - before[h])).epsilon(1e-12));
  // (2C - total) / 3C with the doubled total equals the single-channel value.
  CHECK(two->step_info(0, 0).prediction_error == doctest::Approx(one->step_info(0, 0).prediction_error).epsilon(1e-12));
  CHECK(one->step_info(0, 0).tested == before.size());  // "all" tests everything
}

TEST_CASE("burst sampling adds n rounded to a multiple of J, telemetry is consistent") {
  CpuBackend b(2);
  const int g = b.add_graph(random_graph("a", 101, 9));
  b.add_learning_module(monty_config(UpdaterKind::BurstSampling), {g});
  size_t previous = 0;
  for (int s = 0; s < 8; ++s) {
    StepInput in = random_input(0, uint64_t(50 + s), s == 0);
    b.dispatch({in});
    b.wait();
    const BurstTelemetry t = b.burst_telemetry(0, g);
    const HypothesisArrays h = b.hypotheses(0, g);
    const int64_t per_node = in.channels[0].pose_fully_defined ? 2 : 8;
    // round(101 * 0.4) = 40, minus 40 % J
    const size_t expect_new = t.burst_steps_in_step > 0 ? size_t(40 - 40 % per_node) : 0;
    CHECK(t.added_ids.size() == expect_new);
    CHECK(h.size() == previous - t.removed_ids.size() + t.added_ids.size());
    CHECK(t.ages.size() == h.size());
    for (size_t i = 0; i < t.added_ids.size(); ++i) CHECK(t.added_ids[i] == int64_t(h.size() - t.added_ids.size() + i));
    for (int64_t id : t.added_ids) CHECK(t.ages[size_t(id)] == 1);
    previous = h.size();
  }
}

TEST_CASE("dispatch is asynchronous: reads and set-up wait for wait()") {
  World w(2, 400);
  w.backend->dispatch({random_input(0, 1, true), random_input(1, 2, true)});
  // Whether or not the step has finished, the API refuses reads until wait().
  CHECK_THROWS_AS(w.backend->hypotheses(0, 0), weft::Error);
  CHECK_THROWS_AS(w.backend->dispatch({random_input(2, 3, true)}), weft::Error);
  w.backend->wait();
  CHECK(w.backend->hypotheses(0, 0).size() > 0);
  w.backend->wait();  // a second wait is harmless
  w.backend->reset_episode();
  CHECK(w.backend->hypotheses(0, 0).size() == 0);
}
