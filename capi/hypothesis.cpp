// Monty's hypothesis-update backend (workloads/hypothesis_update) through the C ABI.
#include <cstring>

#include "handles.h"
#include "hypothesis_update.h"

using namespace weft;
using namespace weft::hypothesis_update;
using weft::capi::guard;
using weft::capi::require;

struct weft_hypothesis_update_backend {
  std::atomic<int> refs{1};
  std::shared_ptr<Device> device;  // null for the CPU backend
  std::unique_ptr<HypothesisBackend> backend;
  std::vector<UpdaterConfig> configs;  // by LM id: inputs are checked against their feature widths
};

namespace {

UpdaterConfig config_from(const weft_hypothesis_update_config& c) {
  UpdaterConfig out;
  if (c.updater != WEFT_HYPOTHESIS_UPDATE_DEFAULT && c.updater != WEFT_HYPOTHESIS_UPDATE_BURST_SAMPLING)
    fail(ErrorCode::BadInput, "weft_hypothesis_update_config.updater: " + std::to_string(int(c.updater)) + " is not an updater");
  out.kind = c.updater == WEFT_HYPOTHESIS_UPDATE_BURST_SAMPLING ? UpdaterKind::BurstSampling : UpdaterKind::Default;
  out.threshold = ThresholdConfig::parse(c.threshold ? c.threshold : "");
  out.x_percent_threshold = c.x_percent_threshold;
  out.max_match_distance = c.max_match_distance;
  out.max_nneighbors = c.max_nneighbors;
  out.past_weight = c.past_weight;
  out.present_weight = c.present_weight;
  out.feature_evidence_increment = c.feature_evidence_increment;
  out.sn_weight = c.sn_weight;
  out.cd_weight = c.cd_weight;
  out.umbilical_num_poses = c.umbilical_num_poses;
  if (c.feature_count) require(c.features, "weft_hypothesis_update_add_learning_module", "config->features");
  for (uint32_t i = 0; i < c.feature_count; ++i) {
    const weft_hypothesis_update_feature& f = c.features[i];
    const std::string where = "weft_hypothesis_update_config.features[" + std::to_string(i) + "]";
    if (!f.name || !f.tolerances || !f.weights || f.width == 0)
      fail(ErrorCode::BadInput, where + ": needs a name, a width > 0, tolerances and weights");
    out.features.push_back({f.name, std::vector<double>(f.tolerances, f.tolerances + f.width),
                            std::vector<double>(f.weights, f.weights + f.width), f.first_column_circular != 0});
  }
  out.curvature_feature = c.curvature_feature;
  out.burst = {c.burst_sampling_multiplier, c.burst_deletion_trigger_slope, c.burst_duration,
               c.burst_trigger_slope,       c.burst_slope_window,           c.burst_slope_min_age};
  out.max_channels = c.max_channels;
  out.validate();
  return out;
}

StepInput input_from(const weft_hypothesis_update_backend& b, const weft_hypothesis_update_input& in, uint32_t index,
                     const char* fn) {
  const std::string where = std::string(fn) + ": inputs[" + std::to_string(index) + "]";
  if (in.lm < 0 || size_t(in.lm) >= b.configs.size())
    fail(ErrorCode::BadInput, where + ".lm: unknown LM " + std::to_string(in.lm));
  const size_t width = b.configs[size_t(in.lm)].feature_width();
  StepInput out;
  out.lm = in.lm;
  if (in.has_displacement) out.displacement = std::array<double, 3>{in.displacement[0], in.displacement[1], in.displacement[2]};
  if (in.channel_count) require(in.channels, fn, "inputs[].channels");
  for (uint32_t c = 0; c < in.channel_count; ++c) {
    const weft_hypothesis_update_channel& ch = in.channels[c];
    if (ch.feature_count != width || (width && !ch.features))
      fail(ErrorCode::BadInput, where + ".channels[" + std::to_string(c) + "].features: expected " +
                                    std::to_string(width) + " values, got " + std::to_string(ch.feature_count));
    ChannelInput ci;
    std::memcpy(ci.pose_vectors.data(), ch.pose_vectors, sizeof ch.pose_vectors);
    ci.pose_fully_defined = ch.pose_fully_defined != 0;
    ci.features.assign(ch.features, ch.features + width);
    out.channels.push_back(std::move(ci));
  }
  return out;
}

// `counts` lists of ints laid end to end in `items`: the lists.
std::vector<std::vector<int>> lists_from(const int* items, const uint32_t* counts, uint32_t lists, const char* fn,
                                         const char* items_name, const char* counts_name) {
  if (lists > (uint32_t(1) << 20))
    fail(ErrorCode::BadInput, std::string(fn) + ": " + std::to_string(lists) + " lists, over 2^20");
  if (lists) require(counts, fn, counts_name), require(items, fn, items_name);
  std::vector<std::vector<int>> out(lists);
  size_t at = 0;
  for (uint32_t i = 0; i < lists; ++i) {
    if (counts[i] > (uint32_t(1) << 20))
      fail(ErrorCode::BadInput, std::string(fn) + ": " + counts_name + "[" + std::to_string(i) + "] is " +
                                    std::to_string(counts[i]) + ", over 2^20");
    out[i].assign(items + at, items + at + counts[i]);
    at += counts[i];
  }
  return out;
}

weft_status make(weft_hypothesis_update_backend** backend, std::shared_ptr<Device> device, std::unique_ptr<HypothesisBackend> impl) {
  auto handle = std::make_unique<weft_hypothesis_update_backend>();
  handle->device = std::move(device);
  handle->backend = std::move(impl);
  *backend = handle.release();
  return WEFT_OK;
}

}  // namespace

extern "C" {

void weft_hypothesis_update_config_default(weft_hypothesis_update_config* config) {
  if (!config) return;
  const UpdaterConfig d;
  std::memset(config, 0, sizeof *config);
  config->struct_size = sizeof *config;
  config->updater = WEFT_HYPOTHESIS_UPDATE_DEFAULT;
  config->threshold = "all";
  config->x_percent_threshold = d.x_percent_threshold;
  config->max_match_distance = d.max_match_distance;
  config->max_nneighbors = d.max_nneighbors;
  config->past_weight = d.past_weight;
  config->present_weight = d.present_weight;
  config->feature_evidence_increment = d.feature_evidence_increment;
  config->sn_weight = d.sn_weight;
  config->cd_weight = d.cd_weight;
  config->umbilical_num_poses = d.umbilical_num_poses;
  config->curvature_feature = d.curvature_feature;
  config->burst_sampling_multiplier = d.burst.sampling_multiplier;
  config->burst_deletion_trigger_slope = d.burst.deletion_trigger_slope;
  config->burst_trigger_slope = d.burst.burst_trigger_slope;
  config->burst_duration = d.burst.sampling_burst_duration;
  config->burst_slope_window = d.burst.slope_window;
  config->burst_slope_min_age = d.burst.slope_min_age;
  config->max_channels = d.max_channels;
}

weft_status weft_hypothesis_update_backend_cpu(uint32_t threads, weft_hypothesis_update_backend** backend) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_backend_cpu", "backend");
    *backend = nullptr;
    make(backend, nullptr, make_cpu_backend(threads));
  });
}

weft_status weft_hypothesis_update_backend_vulkan(weft_device* device, weft_hypothesis_update_backend** backend) {
  return guard([&] {
    require(device, "weft_hypothesis_update_backend_vulkan", "device");
    require(backend, "weft_hypothesis_update_backend_vulkan", "backend");
    *backend = nullptr;
    make(backend, device->device, std::make_unique<VulkanBackend>(*device->device));
  });
}

weft_status weft_hypothesis_update_add_graph(weft_hypothesis_update_backend* backend, const char* name, const double* pos, uint64_t nodes,
                               const double* x, uint64_t columns, uint64_t feature_width, int* graph) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_add_graph", "backend");
    require(name, "weft_hypothesis_update_add_graph", "name");
    require(graph, "weft_hypothesis_update_add_graph", "graph");
    if (nodes) {
      require(pos, "weft_hypothesis_update_add_graph", "pos");
      require(x, "weft_hypothesis_update_add_graph", "x");
    }
    const ObjectGraph g = ObjectGraph::from_arrays(name, std::vector<double>(pos, pos + nodes * 3), nodes,
                                                   std::vector<double>(x, x + nodes * columns), columns, feature_width);
    *graph = backend->backend->add_graph(g);
  });
}

weft_status weft_hypothesis_update_add_learning_module(weft_hypothesis_update_backend* backend, const weft_hypothesis_update_config* config, const int* graphs,
                                         uint32_t graph_count, int* lm) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_add_learning_module", "backend");
    require(config, "weft_hypothesis_update_add_learning_module", "config");
    require(lm, "weft_hypothesis_update_add_learning_module", "lm");
    if (graph_count) require(graphs, "weft_hypothesis_update_add_learning_module", "graphs");
    if (config->struct_size != sizeof(weft_hypothesis_update_config))
      throw capi::InvalidArgument{"weft_hypothesis_update_add_learning_module: config->struct_size is " +
                                  std::to_string(config->struct_size) + "; fill it with weft_hypothesis_update_config_default"};
    UpdaterConfig c = config_from(*config);
    *lm = backend->backend->add_learning_module(c, std::vector<int>(graphs, graphs + graph_count));
    backend->configs.resize(size_t(*lm) + 1);
    backend->configs[size_t(*lm)] = std::move(c);
  });
}

weft_status weft_hypothesis_update_reset_episode(weft_hypothesis_update_backend* backend) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_reset_episode", "backend");
    backend->backend->reset_episode();
  });
}

weft_status weft_hypothesis_update_set_groups(weft_hypothesis_update_backend* backend, const int* lms, const uint32_t* sizes,
                                              uint32_t group_count) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_set_groups", "backend");
    backend->backend->set_groups(lists_from(lms, sizes, group_count, "weft_hypothesis_update_set_groups", "lms", "sizes"));
  });
}

weft_status weft_hypothesis_update_set_votes(weft_hypothesis_update_backend* backend, const int* senders,
                                             const uint32_t* sender_counts, uint32_t lm_count,
                                             double vote_evidence_threshold, double vote_weight) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_set_votes", "backend");
    backend->backend->set_votes(
        lists_from(senders, sender_counts, lm_count, "weft_hypothesis_update_set_votes", "senders", "sender_counts"),
        {vote_evidence_threshold, vote_weight});
  });
}

namespace {
// Both dispatch entry points: refusals name the one the caller used.
weft_status dispatch_inputs(weft_hypothesis_update_backend* backend, const weft_hypothesis_update_input* inputs,
                            const double* sensed_locations, uint32_t count, const char* fn, bool located) {
  return guard([&] {
    require(backend, fn, "backend");
    if (count) require(inputs, fn, "inputs");
    if (count && located) require(sensed_locations, fn, "sensed_locations");
    std::vector<StepInput> steps;
    for (uint32_t i = 0; i < count; ++i) {
      steps.push_back(input_from(*backend, inputs[i], i, fn));
      if (sensed_locations) steps.back().sensed_location = std::array<double, 3>{
          sensed_locations[i * 3], sensed_locations[i * 3 + 1], sensed_locations[i * 3 + 2]};
    }
    backend->backend->dispatch(steps);
  });
}
}  // namespace

weft_status weft_hypothesis_update_dispatch(weft_hypothesis_update_backend* backend, const weft_hypothesis_update_input* inputs, uint32_t count) {
  return dispatch_inputs(backend, inputs, nullptr, count, "weft_hypothesis_update_dispatch", false);
}

weft_status weft_hypothesis_update_dispatch_located(weft_hypothesis_update_backend* backend,
                                                    const weft_hypothesis_update_input* inputs,
                                                    const double* sensed_locations, uint32_t count) {
  return dispatch_inputs(backend, inputs, sensed_locations, count, "weft_hypothesis_update_dispatch_located", true);
}

weft_status weft_hypothesis_update_wait(weft_hypothesis_update_backend* backend) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_wait", "backend");
    backend->backend->wait();
  });
}

weft_status weft_hypothesis_update_count(const weft_hypothesis_update_backend* backend, int lm, int graph, uint64_t* hypotheses) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_count", "backend");
    require(hypotheses, "weft_hypothesis_update_count", "hypotheses");
    *hypotheses = backend->backend->hypotheses(lm, graph).size();
  });
}

weft_status weft_hypothesis_update_read(const weft_hypothesis_update_backend* backend, int lm, int graph, uint64_t capacity, double* evidence,
                          double* locations, double* rotations, uint8_t* possible) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_read", "backend");
    const HypothesisArrays a = backend->backend->hypotheses(lm, graph);
    const size_t h = a.size();
    if (capacity < h)
      fail(ErrorCode::BadInput, "weft_hypothesis_update_read: LM " + std::to_string(lm) + " graph " + std::to_string(graph) + " holds " +
                                    std::to_string(h) + " hypotheses; capacity is " + std::to_string(capacity));
    if (evidence) std::memcpy(evidence, a.evidence.data(), h * sizeof(double));
    if (locations) std::memcpy(locations, a.locations.data(), h * 3 * sizeof(double));
    if (rotations) std::memcpy(rotations, a.rotations.data(), h * 9 * sizeof(double));
    if (possible) std::memcpy(possible, a.possible.data(), h);
  });
}

weft_status weft_hypothesis_update_step_info_get(const weft_hypothesis_update_backend* backend, int lm, int graph, weft_hypothesis_update_step_info* info) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_step_info_get", "backend");
    require(info, "weft_hypothesis_update_step_info_get", "info");
    const GraphStepInfo s = backend->backend->step_info(lm, graph);
    *info = {s.threshold, s.prediction_error, s.tested, s.updated ? 1 : 0};
  });
}

weft_status weft_hypothesis_update_most_likely(const weft_hypothesis_update_backend* backend, int lm, int* graph, int64_t* hypothesis,
                                 double* evidence) {
  return guard([&] {
    require(backend, "weft_hypothesis_update_most_likely", "backend");
    const MostLikely m = backend->backend->most_likely(lm);
    if (graph) *graph = m.graph;
    if (hypothesis) *hypothesis = m.hypothesis;
    if (evidence) *evidence = m.evidence;
  });
}

void weft_hypothesis_update_backend_release(weft_hypothesis_update_backend* backend) { weft::capi::release(backend); }

}  // extern "C"
