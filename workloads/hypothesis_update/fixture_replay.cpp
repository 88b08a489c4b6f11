#include "fixture_replay.h"

#include <weft/error.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "cpu_backend.h"
#include "fixture_io.h"
#include "fixture_json.h"
#include "vulkan_backend.h"

namespace weft::hypothesis_update {

namespace {

using fixture_json::as_number;
using fixture_json::as_string;
using fixture_json::at;
using fixture_json::Json;

constexpr double kInf = std::numeric_limits<double>::infinity();

double diff(double a, double b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  if (std::isnan(a) || std::isnan(b)) return kInf;
  if (a == b) return 0;  // equal infinities too
  return std::abs(a - b);
}

// Pairs every hypothesis of ours with one recorded hypothesis (-1: none) for one graph.
struct Pairing {
  std::vector<int64_t> to_recorded;
  std::string problem;  // why some hypothesis has no partner
};

using NodeOf = std::map<std::tuple<double, double, double>, int64_t>;

NodeOf node_lookup(const ObjectGraph& g) {
  NodeOf m;
  for (size_t n = 0; n < g.num_nodes; ++n) m[{g.pos[3 * n], g.pos[3 * n + 1], g.pos[3 * n + 2]}] = int64_t(n);
  return m;
}

int64_t node_at(const NodeOf& nodes, const double* loc) {
  const auto it = nodes.find({loc[0], loc[1], loc[2]});
  return it == nodes.end() ? -1 : it->second;
}

// Keys (frame j, node) of a new block laid out j-major with `count` hypotheses.
std::vector<std::pair<int64_t, int64_t>> block_keys(const NodeOf& nodes, const double* locations, size_t first,
                                                    size_t count, size_t frames) {
  std::vector<std::pair<int64_t, int64_t>> keys;
  const size_t per_frame = frames ? count / frames : 0;
  for (size_t o = 0; o < count; ++o)
    keys.push_back({per_frame ? int64_t(o / per_frame) : 0, node_at(nodes, locations + 3 * (first + o))});
  return keys;
}

std::vector<int64_t> kept(size_t total, const std::vector<int64_t>& removed) {
  std::vector<uint8_t> gone(total, 0);
  for (int64_t r : removed)
    if (r >= 0 && size_t(r) < total) gone[size_t(r)] = 1;
  std::vector<int64_t> out;
  for (size_t i = 0; i < total; ++i)
    if (!gone[i]) out.push_back(int64_t(i));
  return out;
}

// Hypothesis ids from a recorded .npy: whole numbers from 0 to 2^53 (a NaN or 1e300 cast to an
// integer is undefined behaviour, and 2.5 is no id); BadInput naming the file and the entry.
std::vector<int64_t> load_ids(const std::string& path) {
  const std::vector<double> v = load_doubles(path);
  std::vector<int64_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (!fixture_json::is_whole_number(v[i], 0, int64_t(1) << 53))
      fail(ErrorCode::BadInput, path + ": entry " + std::to_string(i) + " is " + std::to_string(v[i]) +
                                    ", not a hypothesis id (a whole number from 0 to 2^53)");
    out[i] = int64_t(v[i]);
  }
  return out;
}

struct GraphReplay {
  std::vector<int64_t> prev_pairing;  // ours -> recorded, for the previous step's arrays
  size_t prev_recorded = 0;
  NodeOf nodes;
};

class StepComparer {
 public:
  StepComparer(StepReport& report, const std::string& graph) : report_(report), graph_(graph) {}

  void add(const std::string& array, double error, const std::string& note = {}) {
    report_.arrays.push_back({graph_, array, error, note});
  }
  // Element-wise through the pairing; `width` values per hypothesis.
  void paired(const std::string& array, const Pairing& p, const std::vector<double>& ours,
              const std::vector<double>& recorded, size_t width, size_t recorded_count, bool same_count = true) {
    if (recorded.size() != recorded_count * width) return add(array, kInf, "recorded array has an unexpected size");
    if (ours.size() != p.to_recorded.size() * width) return add(array, kInf, "backend array has an unexpected size");
    if (same_count && p.to_recorded.size() != recorded_count)
      return add(
          array, kInf,
          std::to_string(p.to_recorded.size()) + " hypotheses vs " + std::to_string(recorded_count) + " recorded");
    double worst = 0;
    for (size_t i = 0; i < p.to_recorded.size(); ++i) {
      const int64_t r = p.to_recorded[i];
      if (r < 0 || size_t(r) >= recorded_count) return add(array, kInf, p.problem);
      for (size_t c = 0; c < width; ++c)
        worst = std::max(worst, diff(ours[i * width + c], recorded[size_t(r) * width + c]));
    }
    add(array, worst);
  }
  void id_sets(const std::string& array, std::vector<int64_t> ours, std::vector<int64_t> recorded) {
    std::sort(ours.begin(), ours.end());
    std::sort(recorded.begin(), recorded.end());
    std::vector<int64_t> differ;
    std::set_symmetric_difference(ours.begin(), ours.end(), recorded.begin(), recorded.end(),
                                  std::back_inserter(differ));
    if (differ.empty())
      add(array, 0);
    else
      add(array, kInf, std::to_string(differ.size()) + " ids differ (compared as sets)");
  }

 private:
  StepReport& report_;
  std::string graph_;
};

// Channel 0's kernel intermediates of each tested hypothesis. Neighbours are paired by node id
// within a row, so tied distances may come in either order.
void compare_kernel_trace(StepComparer& cmp, const std::string& dir, const Pairing& tested, const ChannelEvidence& ce,
                          const HypothesisArrays& ours, const ObjectGraph& graph, size_t recorded, size_t k_max) {
  const size_t k = std::min(k_max, graph.num_nodes);
  std::vector<double> search, poses, rotated_sn;
  for (size_t t = 0; t < ce.tested.size(); ++t) {
    const size_t h = ce.tested[t];
    search.insert(search.end(), ours.locations.begin() + long(h * 3), ours.locations.begin() + long(h * 3 + 3));
    poses.insert(poses.end(), ours.rotations.begin() + long(h * 9), ours.rotations.begin() + long(h * 9 + 9));
    if (t < ce.traces.size())
      rotated_sn.insert(rotated_sn.end(), ce.traces[t].rotated_sn.begin(), ce.traces[t].rotated_sn.end());
  }
  cmp.paired("kernel0/search_locations", tested, search, load_doubles(dir + "/search_locations.npy"), 3, recorded);
  cmp.paired("kernel0/poses", tested, poses, load_doubles(dir + "/poses.npy"), 9, recorded);
  if (ce.traces.size() != ce.tested.size())
    return cmp.add("kernel0/rotated_sn", kInf, "backend recorded no kernel trace");
  cmp.paired("kernel0/rotated_sn", tested, rotated_sn, load_doubles(dir + "/rotated_sn.npy"), 3, recorded);

  const std::vector<double> ids = load_doubles(dir + "/nearest_node_ids.npy");
  const std::vector<double> dists = load_doubles(dir + "/custom_dists.npy");
  const std::vector<double> locs = load_doubles(dir + "/nearest_node_locs.npy");
  if (ids.size() != recorded * k || dists.size() != recorded * k || locs.size() != recorded * k * 3) {
    for (const char* a : {"kernel0/nearest_node_ids", "kernel0/custom_dists", "kernel0/nearest_node_locs"})
      cmp.add(a, kInf, "recorded kernel arrays are not (tested, K)");
    return;
  }
  double id_error = 0, dist_error = 0, loc_error = 0;
  std::string note;
  for (size_t t = 0; t < ce.tested.size(); ++t) {
    const int64_t r = tested.to_recorded[t];
    const KernelTrace& tr = ce.traces[t];
    if (r < 0 || size_t(r) >= recorded || size_t(tr.count) != k) {
      id_error = dist_error = loc_error = kInf;
      note = tested.problem;
      break;
    }
    for (size_t i = 0; i < k; ++i) {
      const double* row = ids.data() + size_t(r) * k;
      const size_t j = size_t(std::find(row, row + k, double(tr.nearest[i])) - row);
      if (j == k) {
        id_error = dist_error = loc_error = kInf;
        note = "a nearest node differs from the recorded ones (compared as sets per row)";
        continue;
      }
      dist_error = std::max(dist_error, diff(tr.custom_dist[i], dists[size_t(r) * k + j]));
      for (int c = 0; c < 3; ++c)
        loc_error = std::max(loc_error, diff(graph.pos[size_t(tr.nearest[i]) * 3 + size_t(c)],
                                             locs[(size_t(r) * k + j) * 3 + size_t(c)]));
    }
  }
  cmp.add("kernel0/nearest_node_ids", id_error, note);
  cmp.add("kernel0/custom_dists", dist_error, note);
  cmp.add("kernel0/nearest_node_locs", loc_error, note);
}

// Channel 0's location evidence (and kernel trace) from whichever backend runs the replay.
ChannelEvidence channel_evidence(const HypothesisBackend& b, int lm, int graph) {
  if (const auto* cpu = dynamic_cast<const CpuBackend*>(&b)) return cpu->last_channel_evidence(lm, graph, 0);
  if (const auto* vk = dynamic_cast<const VulkanBackend*>(&b)) return vk->last_channel_evidence(lm, graph, 0);
  return {};
}

// Everything one graph's comparison in one step needs.
struct GraphStepContext {
  const HypothesisBackend& backend;
  int lm, graph_id;
  const ObjectGraph& graph;
  const std::string& name;
  std::string dir;  // stepNN/<graph>
  std::string previous_dir;  // the step before's <graph> folder ("" at the first step)
  bool burst;
  size_t frames;  // hypotheses per node this step
  bool trace_kernel;
  size_t max_neighbors;
  const Json& step_json;
  const std::string& json_where;
  double tie_tolerance;  // ReplayOptions::tie_tolerance
  double past_weight, present_weight;
};

// A step's recorded inputs are the step before's recorded outputs, value for value: in/ files
// that were truncated, retyped or corrupted are refused rather than never looked at.
void check_inputs_follow(const GraphStepContext& c) {
  if (c.previous_dir.empty()) return;
  for (const char* name : {"locations", "poses", "evidence"}) {
    const std::string in = c.dir + "/in/" + name + ".npy", out = c.previous_dir + "/out/" + name + ".npy";
    std::vector<uint64_t> in_shape, out_shape;
    const std::vector<double> a = load_doubles(in, &in_shape), b = load_doubles(out, &out_shape);
    if (in_shape != out_shape) fail(ErrorCode::BadInput, in + ": its shape differs from " + out + ", the state it should continue");
    for (size_t i = 0; i < a.size(); ++i)
      if (!(a[i] == b[i]))
        fail(ErrorCode::BadInput, in + ": value " + std::to_string(i) + " differs from " + out + " (" + std::to_string(a[i]) + " vs " +
                                      std::to_string(b[i]) + ")");
  }
}

// Compares one graph's arrays after one step and advances its pairing; returns the pairing.
Pairing compare_graph_step(const GraphStepContext& c, GraphReplay& gs, StepReport& sr) {
  StepComparer cmp(sr, c.name);
  const HypothesisArrays ours = c.backend.hypotheses(c.lm, c.graph_id);
  const GraphStepInfo info = c.backend.step_info(c.lm, c.graph_id);
  const BurstTelemetry tel = c.backend.burst_telemetry(c.lm, c.graph_id);

  const std::vector<double> rec_e = load_doubles(c.dir + "/out/evidence.npy");
  const size_t rec_count = rec_e.size();
  const std::vector<double> rec_l = load_doubles(c.dir + "/out/locations.npy");
  const std::vector<double> rec_r = load_doubles(c.dir + "/out/poses.npy");
  const std::vector<double> rec_p = load_doubles(c.dir + "/out/possible.npy");
  const std::vector<double> rec_in_e = load_doubles(c.dir + "/in/evidence.npy");
  check_inputs_follow(c);
  // run.json's hypothesis counts agree with the arrays recorded beside them.
  if (const Json* graphs = fixture_json::find(c.step_json, "graphs"))
    if (const Json* g = fixture_json::find(*graphs, c.name))
      for (const auto& [key, count] : {std::pair{"n_in", rec_in_e.size()}, std::pair{"n_out", rec_count}})
        if (const Json* n = fixture_json::find(*g, key))
          if (!n->is_number() || n->get<double>() != double(count))
            fail(ErrorCode::BadInput, c.json_where + " graphs." + c.name + "." + key + ": says " + n->dump() + ", the step's " +
                                          (key[2] == 'i' ? "in" : "out") + "/evidence.npy holds " + std::to_string(count));

  // What each side removed and added this step.
  std::vector<int64_t> rec_removed, rec_added, our_removed = tel.removed_ids;
  size_t our_added = tel.added_ids.size();
  if (c.burst) {
    rec_removed = load_ids(c.dir + "/telemetry/removed_ids.npy");
    rec_added = load_ids(c.dir + "/telemetry/added_ids.npy");
  } else {
    our_added = gs.prev_pairing.empty() ? ours.size() : 0;
    if (rec_in_e.empty())
      for (size_t i = 0; i < rec_count; ++i) rec_added.push_back(int64_t(i));
  }
  const size_t rec_retained = rec_count >= rec_added.size() ? rec_count - rec_added.size() : 0;
  const size_t our_retained = ours.size() - std::min(our_added, ours.size());

  // Pair retained hypotheses through both sides' deletions, new ones by (frame, node).
  Pairing pair;
  pair.to_recorded.assign(ours.size(), -1);
  const std::vector<int64_t> our_kept = kept(gs.prev_pairing.size(), our_removed);
  const std::vector<int64_t> rec_kept = kept(gs.prev_recorded, rec_removed);
  std::vector<int64_t> rec_rank(gs.prev_recorded, -1);
  for (size_t i = 0; i < rec_kept.size(); ++i) rec_rank[size_t(rec_kept[i])] = int64_t(i);
  for (size_t i = 0; i < our_retained && i < our_kept.size(); ++i) {
    const int64_t r = gs.prev_pairing[size_t(our_kept[i])];
    if (r >= 0 && size_t(r) < rec_rank.size()) pair.to_recorded[i] = rec_rank[size_t(r)];
    if (pair.to_recorded[i] < 0) pair.problem = "a hypothesis we kept was deleted in the recording";
  }
  const auto our_keys = block_keys(gs.nodes, ours.locations.data(), our_retained, our_added, c.frames);
  const auto rec_keys = block_keys(gs.nodes, rec_l.data(), rec_retained, rec_added.size(), c.frames);
  std::map<std::pair<int64_t, int64_t>, int64_t> rec_new;
  for (size_t o = 0; o < rec_keys.size(); ++o) rec_new[rec_keys[o]] = int64_t(rec_retained + o);
  for (size_t o = 0; o < our_keys.size(); ++o) {
    const auto it = rec_new.find(our_keys[o]);
    if (it != rec_new.end() && our_keys[o].second >= 0)
      pair.to_recorded[our_retained + o] = it->second;
    else
      pair.problem = "a new hypothesis (frame, node) is not among the recorded new ones";
  }

  cmp.paired("out/evidence", pair, ours.evidence, rec_e, 1, rec_count);
  cmp.paired("out/locations", pair, ours.locations, rec_l, 3, rec_count);
  cmp.paired("out/poses", pair, ours.rotations, rec_r, 9, rec_count);
  std::vector<double> our_possible(ours.possible.begin(), ours.possible.end());
  cmp.paired("out/possible", pair, our_possible, rec_p, 1, rec_count);

  // Displaced locations: Monty records them for every hypothesis that came in, before
  // deletion; ours exist for the retained ones, paired through the previous step.
  const std::vector<double> rec_disp = load_doubles(c.dir + "/displaced/locations.npy");
  Pairing retained_pair;
  retained_pair.problem = "a retained hypothesis has no recorded displaced location";
  for (size_t i = 0; i < our_retained && i < our_kept.size(); ++i)
    retained_pair.to_recorded.push_back(gs.prev_pairing[size_t(our_kept[i])]);
  std::vector<double> our_disp(ours.locations.begin(), ours.locations.begin() + long(our_retained * 3));
  if (retained_pair.to_recorded.size() != our_retained)
    cmp.add("displaced/locations", kInf, "retained count mismatch");
  else
    cmp.paired("displaced/locations", retained_pair, our_disp, rec_disp, 3, rec_disp.size() / 3, false);

  if (c.burst) {
    std::vector<int64_t> our_removed_rec;
    for (int64_t id : our_removed)
      our_removed_rec.push_back(size_t(id) < gs.prev_pairing.size() ? gs.prev_pairing[size_t(id)] : -1);
    cmp.id_sets("telemetry/removed_ids", our_removed_rec, rec_removed);
    cmp.id_sets("telemetry/added_ids", tel.added_ids, rec_added);
    std::vector<double> ages(tel.ages.begin(), tel.ages.end());
    cmp.paired("telemetry/ages", pair, ages, load_doubles(c.dir + "/telemetry/ages.npy"), 1, rec_count);
    cmp.paired("telemetry/evidence_slopes", pair, tel.evidence_slopes,
               load_doubles(c.dir + "/telemetry/evidence_slopes.npy"), 1, rec_count);
  }

  // Kernel output of the first channel: location evidence of each tested hypothesis.
  const Json& jg = at(at(c.step_json, "graphs", c.json_where), c.name, c.json_where + " graphs");
  const double rec_threshold =
      as_number(at(jg, "evidence_update_threshold", c.json_where), c.json_where + " threshold");
  cmp.add("run.json/evidence_update_threshold", diff(info.threshold, rec_threshold));
  const Json& jpe = at(jg, "mlh_prediction_error", c.json_where);
  // null: no prediction error recorded; anything else but a number reads as 0, as it always has.
  const double rec_pe = jpe.is_null() ? NAN : jpe.is_number() ? jpe.get<double>() : 0.0;
  double pe_error = diff(info.prediction_error, rec_pe);
  if (c.tie_tolerance > 0 && pe_error > 0 && !rec_in_e.empty()) {
    // The previous best may be a tie within the tolerance: accept the prediction error of any
    // retained hypothesis tied with the recorded best, its total recovered as
    // (out - past in) / present (the recordings have one input channel, so C = 1 in
    // (2C - total) / 3C). Retained hypotheses come first in the output, in order.
    const std::vector<int64_t> retained = c.burst ? kept(rec_in_e.size(), rec_removed) : kept(rec_in_e.size(), {});
    double best = -kInf;
    for (int64_t r : retained) best = std::max(best, rec_in_e[size_t(r)]);
    for (size_t k = 0; k < retained.size() && k < rec_e.size(); ++k) {
      const double in = rec_in_e[size_t(retained[k])];
      if (in < best - c.tie_tolerance) continue;
      const double total = (rec_e[k] - c.past_weight * in) / c.present_weight;
      pe_error = std::min(pe_error, diff(info.prediction_error, (2.0 - total) / 3.0));
    }
  }
  cmp.add("run.json/mlh_prediction_error", pe_error);
  const std::string kernel_path = c.dir + "/kernel0/new_evidence.npy";
  const ChannelEvidence ce = channel_evidence(c.backend, c.lm, c.graph_id);
  if (std::filesystem::exists(kernel_path)) {
    const std::vector<double> rec_ne = load_doubles(kernel_path);
    // Recorded tested set: retained recorded hypotheses at or above the recorded threshold.
    std::vector<double> rec_kept_e;
    for (int64_t k : kept(rec_in_e.size(), rec_removed)) rec_kept_e.push_back(rec_in_e[size_t(k)]);
    std::vector<int64_t> tested_rank(rec_kept_e.size(), -1);
    int64_t next = 0;
    for (size_t i = 0; i < rec_kept_e.size(); ++i)
      if (rec_kept_e[i] >= rec_threshold) tested_rank[i] = next++;
    Pairing tp;
    tp.problem = "a hypothesis we tested was not tested in the recording";
    for (uint32_t h : ce.tested) {
      const int64_t r = h < pair.to_recorded.size() ? pair.to_recorded[h] : -1;
      tp.to_recorded.push_back(r >= 0 && size_t(r) < tested_rank.size() ? tested_rank[size_t(r)] : -1);
    }
    cmp.paired("kernel0/new_evidence", tp, ce.evidence, rec_ne, 1, rec_ne.size());
    if (c.trace_kernel)
      compare_kernel_trace(cmp, c.dir + "/kernel0", tp, ce, ours, c.graph, rec_ne.size(), c.max_neighbors);
  } else if (!ce.tested.empty()) {
    cmp.add("kernel0/new_evidence", kInf, "we tested hypotheses, the recording has no kernel output");
  }

  gs.prev_pairing = pair.to_recorded;
  gs.prev_recorded = rec_count;
  return pair;
}

}  // namespace

double StepReport::worst() const {
  double w = 0;
  for (const ArrayError& a : arrays) w = std::max(w, std::isnan(a.max_abs_error) ? kInf : a.max_abs_error);
  return w;
}

double ReplayReport::worst() const {
  double w = 0;
  for (const StepReport& s : steps) w = std::max(w, s.worst());
  return w;
}

ReplayReport replay_fixture_run(const std::string& run_dir, const ReplayOptions& options) try {
  const FixtureRun run = load_fixture_run(run_dir, options.objects_dir);
  std::unique_ptr<HypothesisBackend> owned;
  if (options.device) {
    auto vk = std::make_unique<VulkanBackend>(*options.device);
    vk->set_kernel_trace(options.trace_kernel);
    if (options.far_rows) vk->set_row_placement(RowPlacement::Far);
    owned = std::move(vk);
  } else {
    auto cpu = std::make_unique<CpuBackend>(options.threads);
    cpu->set_kernel_trace(options.trace_kernel);
    owned = std::move(cpu);
  }
  HypothesisBackend& backend = *owned;
  std::vector<int> graph_ids;
  for (const ObjectGraph& g : run.graphs) graph_ids.push_back(backend.add_graph(g));
  const int lm = backend.add_learning_module(run.config, graph_ids);
  backend.set_groups({{lm}});
  const bool burst = run.config.kind == UpdaterKind::BurstSampling;

  ReplayReport report;
  report.run = run.name;
  report.updater = run.updater;
  const auto* cpu = dynamic_cast<const CpuBackend*>(&backend);
  report.threads = cpu ? cpu->threads() : 0;
  std::vector<GraphReplay> state(run.graphs.size());
  for (size_t g = 0; g < run.graphs.size(); ++g) state[g].nodes = node_lookup(run.graphs[g]);

  for (size_t step = 0; step < run.num_steps; ++step) {
    const StepInput input = load_step_input(run, step);
    const std::string dir = step_dir(run, step);
    const std::string jwhere = run.dir + "/run.json steps[" + std::to_string(step) + "]";
    const Json& js = fixture_json::item(at(run.run->doc, "steps", run.dir), step, jwhere);
    const auto t0 = std::chrono::steady_clock::now();
    backend.dispatch({input});
    backend.wait();
    StepReport sr;
    sr.step = int(step);
    sr.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const size_t frames = input.channels[0].pose_fully_defined ? 2 : size_t(run.config.umbilical_num_poses);

    std::vector<Pairing> pairings(run.graphs.size());
    for (size_t g = 0; g < run.graphs.size(); ++g) {
      pairings[g] = compare_graph_step(
          {backend, lm, graph_ids[g], run.graphs[g], run.graph_names[g], dir + "/" + run.graph_names[g],
           step ? step_dir(run, step - 1) + "/" + run.graph_names[g] : std::string(), burst, frames,
           options.trace_kernel, size_t(run.config.max_nneighbors), js, jwhere, options.tie_tolerance,
           run.config.past_weight, run.config.present_weight},
          state[g], sr);
    }

    // Per-LM scalars of the step.
    StepComparer lm_cmp(sr, "");
    const Json& mlh = at(js, "mlh", jwhere);
    const MostLikely ml = backend.most_likely(lm);
    lm_cmp.add("run.json/mlh_evidence", diff(ml.evidence, as_number(at(mlh, "evidence", jwhere), jwhere + " mlh.evidence")));
    const std::string rec_graph = as_string(at(mlh, "graph_id", jwhere), jwhere + " mlh.graph_id");
    const int64_t rec_id =
        fixture_json::as_whole_number(at(mlh, "mlh_id", jwhere), jwhere + " mlh.mlh_id", -(int64_t(1) << 53), int64_t(1) << 53);
    const size_t our_graph = size_t(std::find(graph_ids.begin(), graph_ids.end(), ml.graph) - graph_ids.begin());
    const bool same_graph = our_graph < run.graph_names.size() && run.graph_names[our_graph] == rec_graph;
    bool same_id =
        same_graph && ml.hypothesis >= 0 && pairings[our_graph].to_recorded.at(size_t(ml.hypothesis)) == rec_id;
    if (!same_id && options.tie_tolerance > 0 && our_graph < run.graph_names.size() && ml.hypothesis >= 0) {
      // A different pick is accepted when the recording rates it within the tolerance of its best.
      const int64_t r = pairings[our_graph].to_recorded.at(size_t(ml.hypothesis));
      const std::vector<double> rec_e = load_doubles(dir + "/" + run.graph_names[our_graph] + "/out/evidence.npy");
      const double rec_best = as_number(at(mlh, "evidence", jwhere), jwhere + " mlh.evidence");
      same_id = r >= 0 && size_t(r) < rec_e.size() && rec_e[size_t(r)] >= rec_best - options.tie_tolerance;
    }
    lm_cmp.add("run.json/mlh_id", same_id ? 0 : kInf,
               same_id
                   ? ""
                   : "most likely hypothesis differs (ours " +
                         (our_graph < run.graph_names.size() ? run.graph_names[our_graph] : std::string("none")) + ")");
    if (burst) {
      const BurstTelemetry tel = backend.burst_telemetry(lm, graph_ids[0]);
      lm_cmp.add("run.json/max_global_slope",
                 diff(tel.max_global_slope, as_number(at(js, "max_global_slope", jwhere), jwhere)));
      lm_cmp.add("run.json/sampling_burst_steps_in_step",
                 diff(tel.burst_steps_in_step, as_number(at(js, "sampling_burst_steps_in_step", jwhere), jwhere)));
    }
    report.steps.push_back(std::move(sr));
  }
  return report;
} catch (const nlohmann::json::exception& e) {
  fixture_json::fail_json(run_dir + "/run.json", e);
}

}  // namespace weft::hypothesis_update
