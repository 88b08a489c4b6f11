#include "fixture_io.h"

#include <weft/error.h>
#include <weft/input_file.h>
#include <weft/npy.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "fixture_json.h"

namespace weft::hypothesis_update {

namespace {

using fixture_json::as_number;
using fixture_json::as_string;
using fixture_json::at;
using fixture_json::find;
using fixture_json::Json;

[[noreturn]] void bad(const std::string& m) { fail(ErrorCode::BadInput, m); }

std::vector<double> numbers(const Json& v, const std::string& where) {
  if (!v.is_array()) bad(where + ": expected an array");
  std::vector<double> out;
  for (size_t i = 0; i < v.size(); ++i) out.push_back(as_number(v[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

// Non-pose features in graph column order, from objects.json's feature_mapping: (start, end,
// name). Every range is checked — whole numbers, start < end, the fixed columns where Monty puts
// them (node_ids [0, 1), pose_vectors [1, 10), pose_fully_defined [10, 11)).
struct FeatureColumns {
  size_t start, end;
  std::string name;
  bool operator<(const FeatureColumns& o) const { return start < o.start; }
};
std::vector<FeatureColumns> feature_columns(const std::string& objects_json, const std::string& path) {
  const Json objects = fixture_json::parse(objects_json, path);
  const Json& mapping = at(objects, "feature_mapping", path);
  std::vector<FeatureColumns> columns;
  if (!mapping.is_object()) bad(path + " feature_mapping: expected an object of name: [start, end]");
  const std::map<std::string, std::pair<size_t, size_t>> fixed = {
      {"node_ids", {0, 1}}, {"pose_vectors", {1, 10}}, {"pose_fully_defined", {10, 11}}};
  for (const auto& [name, range] : mapping.items()) {
    const std::string where = path + " feature_mapping." + name;
    const std::vector<double> r = numbers(range, where);
    if (r.size() != 2) bad(where + " must be [start, end]");
    if (!(r[0] >= 0 && r[0] < r[1] && r[1] < 1e6 && r[0] == std::floor(r[0]) && r[1] == std::floor(r[1])))
      bad(where + ": [" + std::to_string(r[0]) + ", " + std::to_string(r[1]) + "] is not a range of whole columns");
    if (const auto f = fixed.find(name); f != fixed.end()) {
      if (size_t(r[0]) != f->second.first || size_t(r[1]) != f->second.second)
        bad(where + " must be [" + std::to_string(f->second.first) + ", " + std::to_string(f->second.second) + "]");
      continue;
    }
    columns.push_back({size_t(r[0]), size_t(r[1]), name});
  }
  std::sort(columns.begin(), columns.end());
  return columns;
}

UpdaterConfig parse_config(const Json& run, const std::string& path, const std::vector<FeatureColumns>& columns) {
  // Counts are ints; their ranges are UpdaterConfig::validate()'s to judge.
  const auto count = [&](const Json& v, const char* key) {
    return int(fixture_json::as_whole_number(v, path + " " + key, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  };
  UpdaterConfig c;
  const std::string updater = as_string(at(run, "updater", path), path + " updater");
  if (updater == "DefaultHypothesesUpdater")
    c.kind = UpdaterKind::Default;
  else if (updater == "BurstSamplingHypothesesUpdater")
    c.kind = UpdaterKind::BurstSampling;
  else
    bad(path + ": unknown updater '" + updater + "'");
  const Json& thr = at(run, "evidence_threshold_config", path);
  c.threshold = thr.is_number()
                    ? ThresholdConfig{ThresholdMode::Number, thr.get<double>()}
                    : ThresholdConfig::parse(as_string(thr, path + " evidence_threshold_config"));
  if (const Json* x = find(run, "x_percent_threshold"))
    c.x_percent_threshold = as_number(*x, path + " x_percent_threshold");
  if (const Json* u = find(run, "umbilical_num_poses"))
    c.umbilical_num_poses = count(*u, "umbilical_num_poses");
  const Json& lm = at(run, "lm_params", path);
  const std::string channel = as_string(at(run, "channel", path), path + " channel");
  c.max_match_distance = as_number(at(lm, "max_match_distance", path), path + " max_match_distance");
  c.max_nneighbors = count(at(lm, "max_nneighbors", path), "max_nneighbors");
  c.past_weight = as_number(at(lm, "past_weight", path), path + " past_weight");
  c.present_weight = as_number(at(lm, "present_weight", path), path + " present_weight");
  c.feature_evidence_increment =
      as_number(at(lm, "feature_evidence_increment", path), path + " feature_evidence_increment");
  const Json& tol = at(at(lm, "tolerances", path), channel, path + " tolerances");
  const Json& wts = at(at(lm, "feature_weights", path), channel, path + " feature_weights");
  const std::vector<double> pose_w = numbers(at(wts, "pose_vectors", path + " feature_weights"), path + " pose weights");
  if (pose_w.size() < 2) bad(path + ": pose_vectors weights need 2 entries");
  c.sn_weight = pose_w[0];
  c.cd_weight = pose_w[1];
  size_t expected_column = kFirstFeatureColumn;
  for (const auto& [column, end, name] : columns) {
    if (column != expected_column)
      bad(path + ": feature '" + name + "' does not follow the previous feature's columns");
    FeatureSpec f;
    f.name = name;
    f.tolerances = numbers(at(tol, name, path + " tolerances"), path + " tolerances." + name);
    f.weights = numbers(at(wts, name, path + " feature_weights"), path + " feature_weights." + name);
    f.first_column_circular = name == "hsv";
    if (name == "principal_curvatures_log") c.curvature_feature = int(c.features.size());
    expected_column += f.width();
    if (end != expected_column)
      bad(path + ": feature '" + name + "' has " + std::to_string(f.width()) + " tolerances but objects.json feature_mapping gives it columns [" +
          std::to_string(column) + ", " + std::to_string(end) + ")");
    c.features.push_back(std::move(f));
  }
  if (const Json* b = find(run, "burst_params")) {
    c.burst.sampling_multiplier = as_number(at(*b, "sampling_multiplier", path), path + " sampling_multiplier");
    c.burst.deletion_trigger_slope =
        as_number(at(*b, "deletion_trigger_slope", path), path + " deletion_trigger_slope");
    c.burst.sampling_burst_duration = count(at(*b, "sampling_burst_duration", path), "sampling_burst_duration");
    c.burst.burst_trigger_slope = as_number(at(*b, "burst_trigger_slope", path), path + " burst_trigger_slope");
  }
  if (const Json* t = find(run, "slope_tracker")) {
    c.burst.slope_window = count(at(*t, "window_size", path), "window_size");
    c.burst.slope_min_age = count(at(*t, "min_age", path), "min_age");
  }
  c.validate();
  return c;
}

}  // namespace

std::vector<double> load_doubles(const std::string& path, std::vector<uint64_t>* shape) {
  if (!std::filesystem::is_regular_file(path)) bad("fixture file missing: " + path);
  const NpyArray a = read_npy(path);
  if (shape) *shape = a.shape;
  const size_t n = size_t(a.count());
  std::vector<double> out(n);
  switch (a.dtype) {
    case DType::F64:
      out = a.as<double>();
      break;
    case DType::F32: {
      auto v = a.as<float>();
      std::copy(v.begin(), v.end(), out.begin());
      break;
    }
    case DType::I64: {
      auto v = a.as<int64_t>();
      std::transform(v.begin(), v.end(), out.begin(), [](int64_t x) { return double(x); });
      break;
    }
    case DType::I32: {
      auto v = a.as<int32_t>();
      std::copy(v.begin(), v.end(), out.begin());
      break;
    }
    case DType::Bool:
    case DType::U8: {
      auto v = a.as<uint8_t>();
      std::copy(v.begin(), v.end(), out.begin());
      break;
    }
    default:
      bad(path + ": unsupported dtype " + dtype_descr(a.dtype));
  }
  if (out.size() != n) bad(path + ": data does not match its shape");
  return out;
}

std::string step_dir(const FixtureRun& run, size_t step) {
  char name[16];
  std::snprintf(name, sizeof name, "step%02zu", step);
  return run.dir + "/" + name;
}

FixtureRun parse_fixture_json(const FixtureText& run_json, const FixtureText& objects_json) try {
  FixtureRun r;
  const std::string& path = run_json.path;
  auto run = std::make_shared<RunJson>();
  run->doc = fixture_json::parse(run_json.text, path);
  r.run = run;
  const Json& doc = run->doc;
  if (find(doc, "run")) r.name = as_string(at(doc, "run", path), path + " run");
  r.updater = as_string(at(doc, "updater", path), path + " updater");
  r.config = parse_config(doc, path, feature_columns(objects_json.text, objects_json.path));
  const Json& steps = at(doc, "steps", path);
  if (!steps.is_array() || steps.empty()) bad(path + ": 'steps' must be a non-empty array");
  r.num_steps = steps.size();
  const Json& graphs = at(steps[0], "graphs", path + " steps[0]");
  if (graphs.is_object())
    for (const auto& [name, unused] : graphs.items()) r.graph_names.push_back(name);
  return r;
} catch (const nlohmann::json::exception& e) {
  fixture_json::fail_json(run_json.path, e);
}

FixtureRun load_fixture_run(const std::string& run_dir, const std::string& objects_dir) {
  const std::string path = run_dir + "/run.json";
  if (!std::filesystem::is_regular_file(path)) bad("fixture file missing: " + path);
  const std::string objects = objects_dir.empty() ? run_dir + "/../objects" : objects_dir;
  const std::string objects_path = objects + "/objects.json";
  const std::string run_text = read_text_file(path, "cannot open");
  FixtureRun r = parse_fixture_json({path, run_text}, {objects_path, read_text_file(objects_path, "cannot open")});
  r.dir = run_dir;
  r.objects_dir = objects;
  if (r.name.empty()) r.name = run_dir;
  for (const std::string& name : r.graph_names) {
    std::vector<uint64_t> ps, xs;
    const std::string dir = r.objects_dir + "/" + name;
    const std::vector<double> pos = load_doubles(dir + "/pos.npy", &ps);
    const std::vector<double> x = load_doubles(dir + "/x.npy", &xs);
    if (ps.size() != 2 || ps[1] != 3) bad(dir + "/pos.npy: expected shape (N,3)");
    if (xs.size() != 2 || xs[0] != ps[0]) bad(dir + "/x.npy: expected shape (N,F) with N of pos.npy");
    r.graphs.push_back(ObjectGraph::from_arrays(name, pos, size_t(ps[0]), x, size_t(xs[1]), r.config.feature_width()));
  }
  return r;
}

// The sensor's recorded location: three finite numbers, and from one step to the next it moves
// by the recorded displacement — so a truncated, mistyped or corrupted file is found even though
// the updater itself reads only the displacement.
static void check_sensed_location(const FixtureRun& run, size_t step, const std::optional<std::array<double, 3>>& displacement) {
  const auto sensed = [&](size_t s) {
    const std::string path = step_dir(run, s) + "/sensed_location.npy";
    const std::vector<double> v = load_doubles(path);
    if (v.size() != 3) bad(path + ": expected 3 values, got " + std::to_string(v.size()));
    for (double x : v)
      if (!std::isfinite(x)) bad(path + ": a value is not finite");
    return v;
  };
  const std::vector<double> now = sensed(step);
  if (step == 0 || !displacement) return;
  const std::vector<double> before = sensed(step - 1);
  for (int k = 0; k < 3; ++k) {
    const double moved = now[k] - before[k], said = (*displacement)[k];
    if (std::fabs(moved - said) > 1e-6 * std::max(1.0, std::fabs(now[k])))
      bad(step_dir(run, step) + "/sensed_location.npy: moved by " + std::to_string(moved) + " along axis " + std::to_string(k) +
          " since the step before, but displacement.npy says " + std::to_string(said));
  }
}

StepInput load_step_input(const FixtureRun& run, size_t step) try {
  const std::string dir = step_dir(run, step);
  const std::string where = run.dir + "/run.json steps[" + std::to_string(step) + "]";
  if (!run.run) bad(where + ": run.json is not loaded");
  const Json& s = fixture_json::item(at(run.run->doc, "steps", where), step, where);
  StepInput in;
  in.lm = 0;
  const Json* has = find(s, "has_displacement");
  if (has && has->is_boolean() && has->get<bool>()) {
    std::vector<uint64_t> shape;
    const std::vector<double> d = load_doubles(dir + "/displacement.npy", &shape);
    if (d.size() != 3) bad(dir + "/displacement.npy: expected 3 values");
    in.displacement = std::array<double, 3>{d[0], d[1], d[2]};
  }
  ChannelInput ch;
  const std::vector<double> pv = load_doubles(dir + "/features/pose_vectors.npy");
  if (pv.size() != 9) bad(dir + "/features/pose_vectors.npy: expected (3,3)");
  std::copy(pv.begin(), pv.end(), ch.pose_vectors.begin());
  const std::vector<double> pfd = load_doubles(dir + "/features/pose_fully_defined.npy");
  if (pfd.size() != 1) bad(dir + "/features/pose_fully_defined.npy: expected a scalar");
  if (std::isnan(pfd[0])) bad(dir + "/features/pose_fully_defined.npy: NaN");
  ch.pose_fully_defined = pfd[0] != 0;
  for (const FeatureSpec& f : run.config.features) {
    const std::string path = dir + "/features/" + f.name + ".npy";
    const std::vector<double> v = load_doubles(path);
    if (v.size() != f.width())
      bad(path + ": expected " + std::to_string(f.width()) + " values, got " + std::to_string(v.size()));
    ch.features.insert(ch.features.end(), v.begin(), v.end());
  }
  in.channels.push_back(std::move(ch));
  check_sensed_location(run, step, in.displacement);
  return in;
} catch (const nlohmann::json::exception& e) {
  fixture_json::fail_json(run.dir + "/run.json", e);
}

}  // namespace weft::hypothesis_update
