#include "numpy_peer.h"

#include <unistd.h>
#include <weft/error.h>
#include <weft/npy.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

namespace weft::hypothesis_update {

namespace {

namespace fs = std::filesystem;

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Text safe inside the bench's JSON strings: no quotes, backslashes or control characters.
std::string plain(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) ? ' ' : c;
  return out;
}

void save(const fs::path& dir, const std::string& name, const std::vector<double>& values,
          std::vector<uint64_t> shape) {
  write_npy((dir / (name + ".npy")).string(), NpyArray::from(DType::F64, values, std::move(shape)));
}

std::vector<double> load(const fs::path& dir, const std::string& name) {
  const NpyArray a = read_npy((dir / (name + ".npy")).string());
  if (a.dtype != DType::F64) fail(ErrorCode::BadInput, "numpy peer: " + name + ".npy is not float64");
  return a.as<double>();
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / double(v.size());
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// The parameters the script reads, per feature column where Monty works per column.
nlohmann::json peer_config(const UpdaterConfig& c, const BenchOptions& o) {
  nlohmann::json j;
  std::vector<double> tolerances, weights;
  std::vector<bool> circular;
  std::vector<int> curvature_columns;
  for (size_t f = 0; f < c.features.size(); ++f)
    for (size_t col = 0; col < c.features[f].width(); ++col) {
      if (int(f) == c.curvature_feature) curvature_columns.push_back(int(tolerances.size()));
      tolerances.push_back(c.features[f].tolerances[col]);
      weights.push_back(c.features[f].weights[col]);
      circular.push_back(c.features[f].first_column_circular && col == 0);
    }
  j["graphs"] = o.graphs;
  j["lms"] = o.lms;
  j["k"] = c.max_nneighbors;
  j["max_match_distance"] = c.max_match_distance;
  j["tolerances"] = tolerances;
  j["weights"] = weights;
  j["circular"] = circular;
  j["curvature_columns"] = curvature_columns;
  j["feature_evidence_increment"] = c.feature_evidence_increment;
  j["sn_weight"] = c.sn_weight;
  j["cd_weight"] = c.cd_weight;
  j["past_weight"] = c.past_weight;
  j["present_weight"] = c.present_weight;
  return j;
}

void write_case(const fs::path& dir, const BenchOptions& o, const UpdaterConfig& config, const BenchRecord& record,
                const HypothesisBackend& backend) {
  std::ofstream(dir / "config.json") << peer_config(config, o).dump();
  for (int g = 0; g < o.graphs; ++g) {
    const ObjectGraph& graph = backend.graph(g);
    const uint64_t n = graph.num_nodes, f = config.feature_width();
    const std::string p = "graph" + std::to_string(g) + "_";
    save(dir, p + "pos", graph.pos, {n, 3});
    save(dir, p + "pose", graph.pose_vectors, {n, 9});
    save(dir, p + "pose_defined", graph.pose_defined, {n});
    save(dir, p + "features", graph.features, {n, f});
  }
  for (int lm = 0; lm < o.lms; ++lm)
    for (int g = 0; g < o.graphs; ++g) {
      const HypothesisArrays& h = record.initial[size_t(lm * o.graphs + g)];
      const uint64_t count = h.size();
      const std::string p = "lm" + std::to_string(lm) + "_graph" + std::to_string(g) + "_";
      save(dir, p + "evidence", h.evidence, {count});
      save(dir, p + "locations", h.locations, {count, 3});
      save(dir, p + "rotations", h.rotations, {count, 9});
    }
  // Steps x LMs (x channels): every LM gets an input in every bench step, in LM order.
  const uint64_t steps = record.steps.size(), lms = uint64_t(o.lms), f = config.feature_width();
  std::vector<double> displacement, pose_vectors, fully_defined, features;
  for (const auto& step : record.steps)
    for (int lm = 0; lm < o.lms; ++lm) {
      const StepInput& in = step.at(size_t(lm));
      if (in.lm != lm || in.channels.size() != 1 || !in.displacement)
        fail(ErrorCode::BadInput, "numpy peer: a recorded step is not one displaced single-channel input per LM");
      displacement.insert(displacement.end(), in.displacement->begin(), in.displacement->end());
      const ChannelInput& ch = in.channels[0];
      pose_vectors.insert(pose_vectors.end(), ch.pose_vectors.begin(), ch.pose_vectors.end());
      fully_defined.push_back(ch.pose_fully_defined ? 1 : 0);
      features.insert(features.end(), ch.features.begin(), ch.features.end());
    }
  save(dir, "displacement", displacement, {steps, lms, 3});
  save(dir, "pose_vectors", pose_vectors, {steps, lms, 1, 3, 3});
  save(dir, "pose_fully_defined", fully_defined, {steps, lms, 1});
  save(dir, "features", features, {steps, lms, 1, f});
}

void compare(const fs::path& dir, const BenchOptions& o, const HypothesisBackend& backend, double tolerance,
             NumpyPeerResult& r) {
  for (int lm = 0; lm < o.lms; ++lm)
    for (int g = 0; g < o.graphs; ++g) {
      const std::string p = "lm" + std::to_string(lm) + "_graph" + std::to_string(g) + "_";
      const std::vector<double> evidence = load(dir, p + "evidence_out"), locations = load(dir, p + "locations_out");
      const HypothesisArrays h = backend.hypotheses(lm, g);
      if (evidence.size() != h.size() || locations.size() != h.locations.size()) {
        ++r.count_mismatches;
        continue;
      }
      r.rows += h.size();
      for (size_t i = 0; i < h.size(); ++i) {
        const double e = std::abs(evidence[i] - h.evidence[i]);
        r.max_evidence_error = std::max(r.max_evidence_error, e);
        r.rows_over_tolerance += !(e <= tolerance);
      }
      for (size_t i = 0; i < locations.size(); ++i)
        r.max_location_error = std::max(r.max_location_error, std::abs(locations[i] - h.locations[i]));
    }
  r.agree = r.count_mismatches == 0 && r.rows_over_tolerance == 0 && r.max_location_error <= tolerance;
}

}  // namespace

NumpyPeerResult run_numpy_peer(const std::string& python, const std::string& script, const BenchOptions& o,
                               const BenchRecord& record, const HypothesisBackend& backend, double tolerance) {
  const UpdaterConfig config = bench_config(o);
  if (config.kind != UpdaterKind::Default || config.threshold.mode != ThresholdMode::All)
    fail(ErrorCode::BadInput, "numpy peer: it implements Monty's default updater with threshold \"all\" only");
  if (record.initial.size() != size_t(o.lms * o.graphs) || record.steps.empty())
    fail(ErrorCode::BadInput, "numpy peer: the bench record does not match the options");
  static std::atomic<int> serial{0};
  const fs::path dir =
      fs::temp_directory_path() / ("weft-monty-numpy-" + std::to_string(::getpid()) + "-" + std::to_string(serial++));
  fs::remove_all(dir);
  fs::create_directories(dir);
  NumpyPeerResult r;
  try {
    write_case(dir, o, config, record, backend);
    // One core: numpy's BLAS and any OpenMP runtime get one thread (the script sets them too).
    const std::string command =
        "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 BLIS_NUM_THREADS=1 PYTHONDONTWRITEBYTECODE=1 "
        "timeout 900 " + quoted(python) + " " + quoted(script) + " " + quoted(dir.string()) + " 2>&1";
    std::string output;
    if (FILE* pipe = popen(command.c_str(), "r")) {
      char buffer[65536];
      while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
      const int status = pclose(pipe);
      if (status != 0 && output.find("\"missing\"") == std::string::npos)
        output = "{\"missing\": \"the peer exited with status " + std::to_string(status) + ": " +
                 plain(output.substr(0, 300)) + "\"}";
    }
    nlohmann::json answer;
    try {
      answer = nlohmann::json::parse(output);
    } catch (const nlohmann::json::exception&) {
      answer = {{"missing", "the peer printed no result: " + output.substr(0, 300)}};
    }
    if (answer.contains("missing")) {
      r.missing = plain(answer["missing"].get<std::string>());
    } else {
      const auto wall = answer.at("wall_ms").get<std::vector<double>>(), cpu = answer.at("cpu_ms").get<std::vector<double>>();
      if (wall.size() != record.steps.size() || cpu.size() != record.steps.size())
        fail(ErrorCode::BadInput, "numpy peer: it timed " + std::to_string(wall.size()) + " steps, the bench " +
                                      std::to_string(record.steps.size()));
      r.versions = "numpy " + answer.at("numpy").get<std::string>() + ", scipy " + answer.at("scipy").get<std::string>() +
                   ", python " + answer.at("python").get<std::string>();
      r.wall_ms_per_step = mean(wall), r.cpu_ms_per_step = mean(cpu);
      r.median_wall_ms_per_step = median(wall), r.median_cpu_ms_per_step = median(cpu);
      compare(dir, o, backend, tolerance, r);
    }
  } catch (...) {
    fs::remove_all(dir);
    throw;
  }
  fs::remove_all(dir);
  return r;
}

}  // namespace weft::hypothesis_update
