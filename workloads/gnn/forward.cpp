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

Forward::Forward(Device& device, const Graph& g, const Model& model, const Rules& rules)
    : nodes_(g.nodes), features_(g.features), layers_(uint32_t(model.layers.size())), info_(build_program(g, model, rules)) {
  // The kernels address Heap and Globals through the bound window only (no far access), so the
  // whole layout must fit in it; say so before anything is allocated.
  info_.program.require_bound_window(device.info(), "gnn: " + std::to_string(g.nodes) + " nodes x " +
                                                        std::to_string(g.features) + " features x " +
                                                        std::to_string(layers_) + " layers");
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
