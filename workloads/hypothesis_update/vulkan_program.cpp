#include "vulkan_program.h"

#include <algorithm>
#include <string>

#include "weft_hyp_kernels.h"

namespace weft::hyp {

namespace {

KernelRef kernel(const char* name) { return find_kernel(weft_hyp_kernels, weft_hyp_kernels_count, name); }

uint32_t f2u(float f) { return f32_bits(f); }

uint32_t threshold_mode_code(ThresholdMode m) {
  switch (m) {
    case ThresholdMode::Number: return 0;
    case ThresholdMode::Mean: return 1;
    case ThresholdMode::Median: return 2;
    case ThresholdMode::Percent: return 3;
    case ThresholdMode::XPercent: return 4;
    case ThresholdMode::All: return 5;
    case ThresholdMode::None: return 6;
  }
  return 6;
}

}  // namespace

void check_device_config(const UpdaterConfig& c) {
  if (c.threshold.mode == ThresholdMode::Median)
    fail(ErrorCode::BadInput, "vulkan backend: the 'median' evidence threshold is not implemented on the device");
  if (c.kind != UpdaterKind::Default)
    fail(ErrorCode::BadInput, "vulkan backend: only the default updater runs on the device (burst sampling: use cpu)");
  if (c.max_channels < 1 || uint32_t(c.max_channels) > kHypMaxChannels)
    fail(ErrorCode::BadInput, "vulkan backend: max_channels must be 1.." + std::to_string(kHypMaxChannels));
  if (c.feature_width() > kHypMaxFeatureWidth)
    fail(ErrorCode::BadInput, "vulkan backend: at most " + std::to_string(kHypMaxFeatureWidth) + " feature columns");
}

LmProgram build_lm_program(Device& device, const UpdaterConfig& c, const std::vector<const ObjectGraph*>& graphs,
                           const std::vector<uint32_t>& hyps, bool trace) {
  const uint32_t G = uint32_t(graphs.size());
  const uint32_t C = uint32_t(c.max_channels);
  const uint32_t fw = uint32_t(c.feature_width());
  LmProgram lp;
  lp.hyps = hyps;
  lp.max_channels = C;
  lp.trace = trace;
  std::vector<uint32_t> node_offset(G), graph_table(size_t(G) * 8, 0), wg_graph;
  uint32_t nodes = 0;
  for (uint32_t g = 0; g < G; ++g) {
    node_offset[g] = nodes;
    lp.hyp_offset.push_back(lp.padded_rows);
    graph_table[g * 8 + 0] = nodes;
    graph_table[g * 8 + 1] = uint32_t(graphs[g]->num_nodes);
    graph_table[g * 8 + 2] = lp.padded_rows;
    graph_table[g * 8 + 3] = hyps[g];
    const uint32_t blocks = (hyps[g] + kHypWorkgroup - 1) / kHypWorkgroup;
    wg_graph.insert(wg_graph.end(), blocks, g);
    lp.padded_rows += blocks * kHypWorkgroup;
    nodes += uint32_t(graphs[g]->num_nodes);
  }
  const uint32_t H = std::max(lp.padded_rows, kHypWorkgroup);
  if (wg_graph.empty()) wg_graph.push_back(0);  // no hypotheses: the stages have nothing to do

  // Stacked object models (float32: the fixtures' graphs are float32, so this is exact).
  std::vector<float> pos, pose, pdf, feat;
  for (const ObjectGraph* g : graphs) {
    pos.insert(pos.end(), g->pos.begin(), g->pos.end());
    pose.insert(pose.end(), g->pose_vectors.begin(), g->pose_vectors.end());
    pdf.insert(pdf.end(), g->pose_defined.begin(), g->pose_defined.end());
    feat.insert(feat.end(), g->features.begin(), g->features.end());
  }
  std::vector<uint32_t> params(128, 0);
  params[0] = f2u(float(c.feature_evidence_increment));
  params[1] = f2u(float(c.sn_weight));
  params[2] = f2u(float(c.cd_weight));
  params[3] = f2u(float(c.max_match_distance));
  params[4] = f2u(float(c.past_weight));
  params[5] = f2u(float(c.present_weight));
  params[6] = threshold_mode_code(c.threshold.mode);
  params[7] = f2u(float(c.threshold.value));
  params[8] = f2u(float(c.x_percent_threshold));
  params[9] = uint32_t(c.max_nneighbors);
  params[10] = fw;
  params[11] = c.feature_evidence_increment > 0 && fw > 0 ? 1u : 0u;
  double weight_sum = 0;
  uint32_t col = 0;
  for (const FeatureSpec& f : c.features)
    for (size_t i = 0; i < f.width(); ++i, ++col) {
      params[16 + col] = f2u(float(f.tolerances[i]));
      params[48 + col] = f2u(float(f.weights[i]));
      params[80 + col] = f.first_column_circular && i == 0 ? 1u : 0u;
      weight_sum += f.weights[i];
    }
  params[12] = f2u(float(weight_sum));

  Program p("hypothesis_update");
  auto& heap = p.heap();
  auto& glob = p.globals();
  auto bytes = [](size_t words) { return uint64_t(std::max<size_t>(words, 1)) * 4; };
  heap.add("pos", bytes(pos.size()));
  heap.add("pose", bytes(pose.size()));
  heap.add("pdf", bytes(pdf.size()));
  heap.add("feat", bytes(feat.size()));
  heap.add("graphs", bytes(graph_table.size()));
  heap.add("wg_graph", bytes(wg_graph.size()));
  heap.add("params", bytes(params.size()));
  glob.add("E", bytes(H));
  glob.add("L", bytes(size_t(H) * 3));
  glob.add("R", bytes(size_t(H) * 9));
  glob.add("new", bytes(size_t(C) * H));
  glob.add("fe", bytes(size_t(C) * nodes));
  glob.add("input", bytes(4 + size_t(C) * kHypChannelWords));
  glob.add("stats", bytes(size_t(G) * kHypStatsWords));
  glob.add("mlh", bytes(4));
  glob.add("trace", bytes(trace ? size_t(H) * kHypTraceWords : 1));

  auto hw = [&](const char* s) { return heap.at(s).word_offset(); };
  auto gw = [&](const char* s) { return glob.at(s).word_offset(); };
  const std::vector<uint32_t> push = {gw("E"),     gw("L"),       gw("R"),      gw("new"),      gw("fe"),
                                      gw("input"), gw("stats"),   gw("mlh"),    trace ? gw("trace") : WEFT_NONE,
                                      H,           nodes,         G,            hw("pos"),      hw("pose"),
                                      hw("pdf"),   hw("feat"),    hw("graphs"), hw("wg_graph"), hw("params")};
  const InstanceId inst = p.add_instance("hypotheses", 1);
  auto seg = [&](const char* s) { return p.segment(Binding::Globals, s); };
  const Range all_heap = p.whole(Binding::Heap);
  auto stage = [&](const char* name, uint32_t groups, std::vector<Range> reads, std::vector<Range> writes) {
    StageSpec s;
    s.name = name;
    s.kernel = kernel(name);
    s.instance = inst;
    s.groups = {std::max(groups, 1u), 1, 1};
    s.push = push;
    reads.push_back(all_heap);
    s.reads = std::move(reads);
    s.writes = std::move(writes);
    p.add_stage(std::move(s));
  };
  const uint32_t row_groups = uint32_t(wg_graph.size());
  stage("hyp_threshold", 1, {seg("E")}, {seg("stats")});
  stage("hyp_feature_evidence", (nodes + kHypWorkgroup - 1) / kHypWorkgroup, {seg("input")}, {seg("fe")});
  stage("hyp_location_evidence", row_groups, {seg("E"), seg("R"), seg("L"), seg("input"), seg("stats"), seg("fe")},
        {seg("L"), seg("new"), seg("trace")});
  stage("hyp_floor", G, {seg("new"), seg("stats"), seg("input")}, {seg("stats")});
  stage("hyp_apply", row_groups, {seg("new"), seg("stats"), seg("input"), seg("E")}, {seg("E")});
  stage("hyp_argmax", 1, {seg("E")}, {seg("mlh")});

  lp.exe = std::make_unique<Executable>(device, std::move(p));
  // The object models cross the bus here, once per program (re-recorded only when hypothesis
  // counts change).
  auto upload = [&](const char* name, const auto& v) {
    if (!v.empty()) lp.exe->write_segment(Binding::Heap, name, v.data(), v.size() * 4);
  };
  upload("pos", pos);
  upload("pose", pose);
  upload("pdf", pdf);
  upload("feat", feat);
  upload("graphs", graph_table);
  upload("wg_graph", wg_graph);
  upload("params", params);
  return lp;
}

}  // namespace weft::hyp
