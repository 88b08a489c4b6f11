// Forward: a GNN program on one device, recorded once; inputs uploaded once, replayed per run.

#include "gnn.h"

namespace weft::gnn {

namespace {

template <class T>
void put(Executable& exe, const std::string& seg, const std::vector<T>& v) {
  if (!v.empty()) exe.write_segment(Binding::Heap, seg, v.data(), v.size() * sizeof(T));
}

}  // namespace

void upload(Executable& exe, const Graph& g, const Model& model) {
  for (size_t t = 0; t < g.edge_types.size(); ++t) {
    const Csr& c = g.edge_types[t];
    put(exe, std::string("rows") + std::to_string(t), c.row_offsets);
    put(exe, std::string("cols") + std::to_string(t), c.cols);
    put(exe, std::string("w") + std::to_string(t), c.weights);
  }
  put(exe, "x", g.x);
  for (size_t l = 0; l < model.layers.size(); ++l) {
    put(exe, std::string("W") + std::to_string(l), model.layers[l].w);
    put(exe, std::string("b") + std::to_string(l), model.layers[l].b);
  }
}

namespace {

// The most loop steps one invocation of a gnn kernel runs: the aggregation's grid-stride rows
// times (one plus the longest row of any edge type), and the metric's single workgroup over
// every node's features. MissingFeature when the device stops loops sooner (llvmpipe: 65535),
// since the kernels would then return partial sums without a sign of it.
void require_loop_cap(Device& device, const Graph& g) {
  const uint64_t nf = uint64_t(g.nodes) * g.features;
  uint64_t longest_row = 0;
  for (const Csr& c : g.edge_types)
    for (size_t i = 0; i + 1 < c.row_offsets.size(); ++i)
      longest_row = std::max<uint64_t>(longest_row, c.row_offsets[i + 1] - c.row_offsets[i]);
  const uint64_t rows_per_invocation = (nf + uint64_t(grid_stride_groups(nf, 64)) * 64 - 1) / (uint64_t(grid_stride_groups(nf, 64)) * 64);
  const uint64_t aggregate = rows_per_invocation * (1 + longest_row);
  const uint64_t metric = g.features + (uint64_t(g.nodes) + 127) / 128 * (g.features + 1) + 8;
  device.require_loop_steps(std::max(aggregate, metric), "gnn: " + std::to_string(g.nodes) + " nodes x " +
                                                             std::to_string(g.features) + " features with rows of up to " +
                                                             std::to_string(longest_row) + " edges");
}

}  // namespace

Forward::Forward(Device& device, const Graph& g, const Model& model, const Rules& rules)
    : nodes_(g.nodes), features_(g.features), layers_(uint32_t(model.layers.size())), info_(build_program(g, model, rules)) {
  // The kernels address Heap and Globals through the bound window only (no far access), so the
  // whole layout must fit in it; say so before anything is allocated.
  info_.program.require_bound_window(device.info(), "gnn: " + std::to_string(g.nodes) + " nodes x " +
                                                        std::to_string(g.features) + " features x " +
                                                        std::to_string(layers_) + " layers");
  require_loop_cap(device, g);
  exe_ = std::make_unique<Executable>(device, info_.program);
  upload(*exe_, g, model);
}

void Forward::run() { exe_->run(); }

uint32_t Forward::layers_run() {
  uint32_t k = 0;
  for (uint32_t l = 0; l < layers_; ++l)
    if (exe_->metrics(info_.layers[l]).sequence > 0) k = l + 1;
  return k;
}

std::vector<DeviceLayerMetrics> Forward::metrics() {
  std::vector<DeviceLayerMetrics> out;
  for (InstanceId id : info_.layers) {
    const abi::WeftMetrics m = exe_->metrics(id);
    out.push_back({m.norm, m.max_abs, bits_f32(m.counters[1]), bits_f32(m.counters[2]), m.counters[0], m.sequence});
  }
  return out;
}

std::vector<float> Forward::embeddings(uint32_t layer) {
  if (layer > layers_)
    fail(ErrorCode::BadInput, "gnn: embeddings of layer " + std::to_string(layer) + " requested, the model has " +
                                  std::to_string(layers_));
  return exe_->read_segment<float>(Binding::Globals, std::string("h") + std::to_string(layer));
}

std::vector<float> Forward::readout() {
  const uint32_t k = layers_run();
  if (k == 0) return {};
  return exe_->read_register<float>(info_.layers[k - 1], WEFT_R_OUTBOX);
}

double Forward::gpu_ns() { return exe_->timings().total_ns; }

std::vector<StageTime> Forward::stage_times() { return stage_times_by_kind(exe_->program(), exe_->timings()); }

}  // namespace weft::gnn
