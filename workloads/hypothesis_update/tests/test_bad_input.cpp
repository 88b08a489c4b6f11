// Bad input is a weft::Error (BadInput) naming what and where, never a crash, and a rejected
// dispatch leaves every LM's state as it was.
#include <doctest/doctest.h>
#include <weft/error.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cpu_backend.h"
#include "fixture_io.h"
#include "fixture_replay.h"
#include "npy.h"
#include "fixtures.h"
#include "synthetic.h"

using namespace weft::hypothesis_update;
using namespace weft::hypothesis_update::test;

namespace {

// The BadInput message of f(), or "" when it did not throw one.
template <class F>
std::string bad_input(F&& f) {
  try {
    f();
  } catch (const weft::Error& e) {
    if (e.code() == weft::ErrorCode::BadInput) return e.what();
    return std::string("wrong code: ") + e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("malformed graphs and configs") {
  std::vector<double> pos(10 * 3, 0.0), x(10 * 16, 0.0);
  CHECK(contains(bad_input([&] { ObjectGraph::from_arrays("cup", pos, 9, x, 16, 5); }),
                 "graph 'cup': pos must be (N,3)"));
  CHECK(contains(bad_input([&] { ObjectGraph::from_arrays("cup", pos, 10, x, 12, 5); }), "x must be (N,F)"));
  CHECK(contains(bad_input([&] { ObjectGraph::from_arrays("cup", pos, 10, std::vector<double>(10 * 14), 14, 5); }),
                 "needs 16"));
  pos[7] = NAN;
  CHECK(contains(bad_input([&] { ObjectGraph::from_arrays("cup", pos, 10, x, 16, 5); }),
                 "graph 'cup' pos: value 7 is not finite"));

  CpuBackend b(1);
  const int g = b.add_graph(random_graph("a", 20, 1));
  CHECK(contains(bad_input([&] {
                   b.add_learning_module(monty_config(UpdaterKind::Default), {g, 5});
                 }),
                 "graph id 5 out of range"));
  UpdaterConfig k17 = monty_config(UpdaterKind::Default);
  k17.max_nneighbors = 17;
  CHECK(contains(bad_input([&] { b.add_learning_module(k17, {g}); }), "max_nneighbors"));
  UpdaterConfig burst = monty_config(UpdaterKind::BurstSampling);
  burst.threshold = ThresholdConfig::parse("80%");
  CHECK(contains(bad_input([&] { b.add_learning_module(burst, {g}); }), "threshold 'all'"));
  UpdaterConfig narrow = monty_config(UpdaterKind::Default);
  narrow.features.pop_back();
  narrow.curvature_feature = -1;
  CHECK(contains(bad_input([&] { b.add_learning_module(narrow, {g}); }), "feature columns"));
  CHECK(b.num_learning_modules() == 0);
  const int lm = b.add_learning_module(monty_config(UpdaterKind::Default), {g});
  CHECK(contains(bad_input([&] { b.set_groups({{lm}, {lm}}); }), "more than one group"));
  CHECK(contains(bad_input([&] { b.set_groups({{lm, 3}}); }), "LM 3, out of range"));
  CHECK(contains(bad_input([&] { (void)b.hypotheses(lm, 7); }), "does not hold graph id 7"));
  CHECK(contains(bad_input([&] { (void)b.hypotheses(4, g); }), "LM 4 out of range"));
}

TEST_CASE("rejected dispatches name the LM and field and change nothing") {
  CpuBackend b(2);
  const int g = b.add_graph(random_graph("a", 40, 2));
  const int lm = b.add_learning_module(monty_config(UpdaterKind::Default), {g});
  b.dispatch({random_input(lm, 1, true)});
  b.wait();
  const HypothesisArrays before = b.hypotheses(lm, g);

  StepInput nan_displacement = random_input(lm, 2, false);
  (*nan_displacement.displacement)[1] = NAN;
  CHECK(contains(bad_input([&] { b.dispatch({nan_displacement}); }), "(LM 0) displacement: value 1 is NaN"));
  StepInput nan_pose = random_input(lm, 2, false);
  nan_pose.channels[0].pose_vectors[4] = NAN;
  CHECK(contains(bad_input([&] { b.dispatch({nan_pose}); }), "channel 0 pose_vectors: value 4"));
  StepInput inf_feature = random_input(lm, 2, false);
  inf_feature.channels[0].features[3] = INFINITY;
  CHECK(contains(bad_input([&] { b.dispatch({inf_feature}); }), "channel 0 features: value 3"));
  StepInput short_features = random_input(lm, 2, false);
  short_features.channels[0].features.pop_back();
  CHECK(contains(bad_input([&] { b.dispatch({short_features}); }), "4 feature values, the config needs 5"));
  StepInput no_displacement = random_input(lm, 2, true);
  CHECK(contains(bad_input([&] { b.dispatch({no_displacement}); }), "displacement is required"));
  StepInput two_channels = random_input(lm, 2, false, 2);
  CHECK(contains(bad_input([&] { b.dispatch({two_channels}); }), "2 channels, expected 1..1"));
  CHECK(contains(bad_input([&] { b.dispatch({random_input(3, 2, false)}); }), "LM id out of range"));
  CHECK(contains(bad_input([&] {
                   b.dispatch({random_input(lm, 2, false), random_input(lm, 3, false)});
                 }),
                 "second input for the same LM"));

  const HypothesisArrays after = b.hypotheses(lm, g);
  CHECK(after.evidence == before.evidence);
  CHECK(after.locations == before.locations);
  CHECK(after.rotations == before.rotations);
  b.dispatch({random_input(lm, 2, false)});  // still usable
  b.wait();
  CHECK(b.step_info(lm, g).updated);
}

TEST_CASE("missing or malformed fixture files name the file") {
  const std::string monty = weft::hypothesis_update::test::monty_fixtures();
  CHECK(contains(bad_input([&] { replay_fixture_run("/nonexistent/run"); }),
                 "fixture file missing: /nonexistent/run/run.json"));
  CHECK(contains(bad_input([&] {
                   replay_fixture_run(monty + "/default_cylinder", {"/nonexistent/objects", 1});
                 }),
                 "/nonexistent/objects/objects.json"));

  // A run whose step folders are absent: the first missing input file is named.
  const std::filesystem::path tmp = std::filesystem::temp_directory_path() / "weft_hyp_missing_step";
  std::filesystem::create_directories(tmp);
  std::filesystem::copy_file(monty + "/default_cylinder/run.json", tmp / "run.json",
                             std::filesystem::copy_options::overwrite_existing);
  CHECK(contains(bad_input([&] {
                   replay_fixture_run(tmp.string(), {monty + "/objects", 1});
                 }),
                 "step00/features/pose_vectors.npy"));
  {
    std::ofstream broken(tmp / "run.json");
    broken << "{\"updater\": \"DefaultHypothesesUpdater\", \"steps\": [";
  }
  CHECK(contains(bad_input([&] { replay_fixture_run(tmp.string(), {monty + "/objects", 1}); }), "run.json"));
  std::filesystem::remove_all(tmp);
}

TEST_CASE("malformed or missing run.json fields name the file and the key") {
  const std::string monty = weft::hypothesis_update::test::monty_fixtures();
  const std::string source = monty + "/default_cylinder";
  std::string original;
  {
    std::ifstream in(source + "/run.json");
    std::ostringstream s;
    s << in.rdbuf();
    original = s.str();
  }
  // A copy of default_cylinder whose step folders are links to the recorded ones.
  const std::filesystem::path tmp = std::filesystem::temp_directory_path() / "weft_hyp_bad_json";
  std::filesystem::remove_all(tmp);
  std::filesystem::create_directories(tmp);
  for (const auto& entry : std::filesystem::directory_iterator(source))
    if (entry.is_directory()) std::filesystem::create_directory_symlink(entry.path(), tmp / entry.path().filename());
  // The BadInput message of replaying the copy with `from` (first occurrence) replaced by `to`.
  auto replay_with = [&](const std::string& from, const std::string& to) {
    std::string text = original;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    {
      std::ofstream out(tmp / "run.json");
      out << text;
    }
    return bad_input([&] { replay_fixture_run(tmp.string(), {monty + "/objects", 1}); });
  };
  const std::string file = (tmp / "run.json").string();
  CHECK(replay_with("\"run\": \"default_cylinder\"", "\"run\": \"default_cylinder\"").empty());
  CHECK(contains(replay_with("\"max_nneighbors\": 10", "\"max_nneighbors\": \"ten\""),
                 file + " max_nneighbors: expected a number"));
  CHECK(contains(replay_with("\"past_weight\": 1,", ""), file + ": missing 'past_weight'"));
  CHECK(contains(replay_with("\"channel\": \"patch\"", "\"channel\": 7"), file + " channel: expected a string"));
  CHECK(contains(replay_with("\"updater\": \"DefaultHypothesesUpdater\"", "\"updater\": null"),
                 file + " updater: expected a string"));
  CHECK(contains(replay_with("\"steps\": [", "\"steps\": {"), file));
  // run.json's hypothesis counts are checked against the arrays beside them.
  CHECK(contains(replay_with("\"n_out\": 576", "\"n_out\": 575"), "graphs.cylinder.n_out: says 575, the step's out/evidence.npy holds 576"));
  CHECK(contains(replay_with("\"mlh_id\": 73", "\"mlh_idx\": 73"), file + " steps[0]: missing 'mlh_id'"));
  CHECK(contains(replay_with("\"mlh_id\": 73", "\"mlh_id\": NaN"), file + " steps[0] mlh.mlh_id: expected a whole number"));
  CHECK(contains(replay_with("\"graph_id\": \"cylinder\"", "\"graph_id\": Infinity"),
                 file + " steps[0] mlh.graph_id: expected a string"));
  CHECK(contains(replay_with("\"x_percent_threshold\": 20", "\"x_percent_threshold\": 20,,"), file + ": "));
  std::filesystem::remove_all(tmp);
}

namespace {

// A full copy of default_cylinder with one file replaced, replayed: the message it is refused with.
std::string replay_with_file(const std::string& relative, const weft::NpyArray& contents,
                             const std::string& run = "default_cylinder") {
  namespace fs = std::filesystem;
  const std::string monty = weft::hypothesis_update::test::monty_fixtures();
  const fs::path tmp = fs::temp_directory_path() / "weft_hyp_cross_check";
  fs::remove_all(tmp);
  fs::copy(monty + "/" + run, tmp, fs::copy_options::recursive);
  fs::remove(tmp / relative);
  weft::write_npy((tmp / relative).string(), contents);
  const std::string message = bad_input([&] { replay_fixture_run(tmp.string(), {monty + "/objects", 1}); });
  fs::remove_all(tmp);
  return message;
}

}  // namespace

TEST_CASE("fixture inputs the updater does not read are still cross-checked: sensed locations and in/ states") {
  using weft::DType;
  using weft::NpyArray;
  const std::string monty = weft::hypothesis_update::test::monty_fixtures();
  const NpyArray sensed = weft::read_npy(monty + "/default_cylinder/step01/sensed_location.npy");
  std::vector<double> v = sensed.dtype == DType::F64 ? sensed.as<double>() : std::vector<double>();
  if (v.empty())
    for (float f : sensed.as<float>()) v.push_back(f);
  CHECK(contains(replay_with_file("step01/sensed_location.npy", NpyArray::from(DType::F64, std::vector<double>{v[0], v[1]})),
                 "step01/sensed_location.npy: expected 3 values, got 2"));
  CHECK(contains(replay_with_file("step01/sensed_location.npy", NpyArray::from(DType::F64, std::vector<double>{v[0], NAN, v[2]})),
                 "step01/sensed_location.npy: a value is not finite"));
  CHECK(contains(replay_with_file("step01/sensed_location.npy", NpyArray::from(DType::F64, std::vector<double>{v[0] + 0.01, v[1], v[2]})),
                 "step01/sensed_location.npy: moved by"));

  const NpyArray locations = weft::read_npy(monty + "/default_cylinder/step01/cylinder/in/locations.npy");
  std::vector<double> l = locations.as<double>();
  REQUIRE(locations.dtype == DType::F64);
  l[7] += 1e-9;
  CHECK(contains(replay_with_file("step01/cylinder/in/locations.npy", NpyArray::from(DType::F64, l, locations.shape)),
                 "step01/cylinder/in/locations.npy: value 7 differs from"));
  l.resize(l.size() - 3);
  CHECK(contains(replay_with_file("step01/cylinder/in/locations.npy", NpyArray::from(DType::F64, l, {l.size() / 3, 3})),
                 "step01/cylinder/in/locations.npy: its shape differs from"));
}

// Recorded hypothesis ids were cast to integers as read: NaN was undefined behaviour, 2.5 an id.
TEST_CASE("recorded hypothesis ids must be whole numbers") {
  using weft::DType;
  using weft::NpyArray;
  const std::string file = "step01/cylinder/telemetry/removed_ids.npy";
  CHECK(contains(replay_with_file(file, NpyArray::from(DType::F64, std::vector<double>{2.5}), "burst_cylinder"),
                 "removed_ids.npy: entry 0 is 2.500000, not a hypothesis id"));
  CHECK(contains(replay_with_file(file, NpyArray::from(DType::F64, std::vector<double>{1, NAN}), "burst_cylinder"),
                 "removed_ids.npy: entry 1 is nan, not a hypothesis id"));
}

TEST_CASE("objects.json feature ranges are checked: whole columns, Monty's fixed columns, widths the tolerances agree with") {
  namespace fs = std::filesystem;
  const std::string monty = weft::hypothesis_update::test::monty_fixtures();
  std::string original;
  {
    std::ifstream in(monty + "/objects/objects.json");
    std::ostringstream s;
    s << in.rdbuf();
    original = s.str();
  }
  const fs::path tmp = fs::temp_directory_path() / "weft_hyp_bad_objects";
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  for (const auto& e : fs::directory_iterator(monty + "/objects"))
    if (e.is_directory()) fs::create_directory_symlink(e.path(), tmp / e.path().filename());
  auto replay_with = [&](const std::string& from, const std::string& to) {
    std::string text = original;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    std::ofstream(tmp / "objects.json") << text;
    return bad_input([&] { replay_fixture_run(monty + "/default_cylinder", {tmp.string(), 1}); });
  };
  const auto hsv_at = original.find("\"hsv\"");
  REQUIRE(hsv_at != std::string::npos);
  // The hsv range [11, 14] as written in the file, whitespace and all.
  const size_t open = original.find('[', hsv_at), close = original.find(']', open);
  const std::string hsv = original.substr(hsv_at, close + 1 - hsv_at);
  CHECK(contains(replay_with(hsv, "\"hsv\": [11, 13]"), "feature 'hsv' has 3 tolerances but objects.json feature_mapping gives it columns [11, 13)"));
  CHECK(contains(replay_with(hsv, "\"hsv\": [11.5, 14]"), "feature_mapping.hsv: [11.500000, 14.000000] is not a range of whole columns"));
  CHECK(contains(replay_with(hsv, "\"hsv\": [14, 11]"), "is not a range of whole columns"));
  const auto pfd_at = original.find("\"pose_fully_defined\"");
  const size_t pfd_close = original.find(']', pfd_at);
  CHECK(contains(replay_with(original.substr(pfd_at, pfd_close + 1 - pfd_at), "\"pose_fully_defined\": [10, 12]"),
                 "feature_mapping.pose_fully_defined must be [10, 11]"));
  fs::remove_all(tmp);
}

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

// Regression (fuzzing): counts were cast to int as read, so NaN, 1e300 or -1e300 was undefined
// behaviour (UBSan) and 2.5 became 2. Now each is refused naming the key.
TEST_CASE("run.json counts must be whole numbers in int's range") {
  const std::string monty = weft::hypothesis_update::test::monty_fixtures();
  const std::string run = read_file(monty + "/burst_cylinder/run.json"), objects = read_file(monty + "/objects/objects.json");
  const auto parse_with = [&](const std::string& from, const std::string& to) {
    std::string text = run;
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    return bad_input([&] { parse_fixture_json({"r/run.json", text}, {"o/objects.json", objects}); });
  };
  CHECK(parse_with("\"run\": \"burst_cylinder\"", "\"run\": \"burst_cylinder\"").empty());
  CHECK(contains(parse_with("\"max_nneighbors\": 10", "\"max_nneighbors\": 1e300"),
                 "r/run.json max_nneighbors: expected a whole number in [-2147483648, 2147483647], got 1e+300"));
  CHECK(contains(parse_with("\"umbilical_num_poses\": 8", "\"umbilical_num_poses\": NaN"),
                 "r/run.json umbilical_num_poses: expected a whole number in [-2147483648, 2147483647], got NaN"));
  CHECK(contains(parse_with("\"window_size\": 10", "\"window_size\": -Infinity"), "r/run.json window_size: expected a whole number"));
  CHECK(contains(parse_with("\"min_age\": 5", "\"min_age\": 2.5"), "r/run.json min_age: expected a whole number"));
  CHECK(contains(parse_with("\"sampling_burst_duration\": 5", "\"sampling_burst_duration\": 4294967301"),
                 "r/run.json sampling_burst_duration: expected a whole number"));
  // In range, the config's own checks still judge it.
  CHECK(contains(parse_with("\"max_nneighbors\": 10", "\"max_nneighbors\": 17"), "max_nneighbors must be in 1..16, got 17"));
  // Each node starts with umbilical_num_poses hypotheses: unbounded, it asked for unbounded memory.
  CHECK(contains(parse_with("\"umbilical_num_poses\": 8", "\"umbilical_num_poses\": 2000000000"),
                 "umbilical_num_poses must be in 1..360, got 2000000000"));
}

// A feature_mapping that is not an object was read as "no features" and the replay went on.
TEST_CASE("objects.json feature_mapping must be an object") {
  const std::string monty = weft::hypothesis_update::test::monty_fixtures();
  const std::string run = read_file(monty + "/burst_cylinder/run.json");
  std::string objects = read_file(monty + "/objects/objects.json");
  const size_t at = objects.find("\"feature_mapping\"");
  REQUIRE(at != std::string::npos);
  objects.replace(at, std::string("\"feature_mapping\"").size(), "\"feature_mapping\": [], \"unused\"");
  CHECK(contains(bad_input([&] { parse_fixture_json({"r/run.json", run}, {"o/objects.json", objects}); }),
                 "o/objects.json feature_mapping: expected an object"));
}

// Every input the fixture JSON fuzzing found mishandled replays to BadInput or a valid run.
TEST_CASE("fixture JSON fuzz regressions are refused as bad input") {
  size_t replayed = 0;
  for (const auto& e : std::filesystem::directory_iterator(WEFT_HYPOTHESIS_FIXTURE_JSON_REGRESSIONS)) {
    CAPTURE(e.path().filename().string());
    const std::string input = read_file(e.path().string());
    const size_t nul = input.find('\0');
    const std::string objects = nul == std::string::npos ? input : input.substr(nul + 1);
    CHECK(!bad_input([&] { parse_fixture_json({"run.json", input.substr(0, nul)}, {"objects.json", objects}); }).empty());
    ++replayed;
  }
  CHECK(replayed > 0);
}
