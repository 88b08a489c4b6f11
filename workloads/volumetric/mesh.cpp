#include "mesh.h"

#include <algorithm>
#include <cmath>

#include "weft_volumetric_kernels.h"

namespace weft::volumetric {

namespace {

std::string u(uint64_t v) { return std::to_string(v); }
std::string out_name(uint32_t cell, uint32_t parity) { return "o" + u(cell) + "." + u(parity); }
KernelRef kernel(const std::string& name) { return find_kernel(weft_volumetric_kernels, weft_volumetric_kernels_count, name); }
uint32_t groups_for(uint64_t n) { return uint32_t(std::clamp<uint64_t>((n + 63) / 64, 1, 65535)); }

// Leaves of a cell in execution order (Sequential containers flattened).
void leaves(Layer& l, std::vector<Layer*>& out) {
  if (l.type == LayerType::Sequential)
    for (Layer& c : l.children) leaves(c, out);
  else
    out.push_back(&l);
}

struct Uploads {
  std::vector<std::pair<std::string, std::vector<uint32_t>>> words;
  std::vector<std::pair<std::string, std::vector<float>>> floats;
};

}  // namespace

bool device_supports(const Layer& l) {
  switch (l.type) {
    case LayerType::Dense:
    case LayerType::RMSNorm:
    case LayerType::LayerNorm:
    case LayerType::Softmax:
    case LayerType::Embedding:
    case LayerType::Conv1D:
    case LayerType::Conv2D:
    case LayerType::SwiGLU: return true;
    case LayerType::Sequential:
      return std::all_of(l.children.begin(), l.children.end(), [](const Layer& c) { return device_supports(c); });
    default: return false;
  }
}

DeviceMesh::DeviceMesh(Device& device, Network& net, MeshOptions options) : cells_(net.size()), input_(net.input_size()) {
  net.validate();
  if (options.steps == 0) fail(ErrorCode::BadInput, "volumetric: a submission needs at least one step");
  if (net.at(0).type == LayerType::Embedding && !net.source(0)) input_vocab_ = net.at(0).vocab;
  Program p("volumetric");
  p.globals().add("x", uint64_t(input_) * 4);
  for (uint32_t i = 0; i < cells_; ++i) {
    if (!device_supports(net.at(i)))
      fail(ErrorCode::BadInput, "volumetric: " + net.where(i) + " (" + layer_type_name(net.at(i).type) +
                                    ") has no device kernel (device cells: dense, rmsnorm, layernorm, softmax, embedding, conv1d, "
                                    "conv2d, swiglu, sequential of those)");
    out_sizes_.push_back(layer_output_size(net.at(i)));
    for (uint32_t par = 0; par < 2; ++par) p.globals().add(out_name(i, par), uint64_t(out_sizes_[i]) * 4);
  }

  // Heap: every leaf's packed weights, scales and f32 vectors; Globals: the values between the
  // leaves of a Sequential cell.
  Uploads up;
  std::vector<std::vector<Layer*>> cell_leaves(cells_);
  for (uint32_t i = 0; i < cells_; ++i) {
    leaves(net.at(i), cell_leaves[i]);
    for (uint32_t k = 0; k < cell_leaves[i].size(); ++k) {
      Layer& l = *cell_leaves[i][k];
      const std::string tag = u(i) + "." + u(k);
      if (k + 1 < cell_leaves[i].size()) p.globals().add("t" + tag, uint64_t(layer_output_size(l)) * 4);
      if (l.type == LayerType::SwiGLU)
        for (const char* t : {"a", "b", "h"}) p.globals().add(t + tag, uint64_t(l.seq) * l.out * 4);
      for (size_t m = 0; m < l.mats.size(); ++m) {
        const Packed& pk = l.mats[m].morph(l.dtype);
        const std::string mt = tag + "." + u(m);
        weight_bytes_ += pk.bytes();
        p.heap().add("w" + mt, std::max<uint64_t>(pk.words.size() * 4, 4));
        p.heap().add("s" + mt, std::max<uint64_t>(pk.scales.size() * 4, 4));
        up.words.emplace_back("w" + mt, pk.words);
        up.floats.emplace_back("s" + mt, pk.scales);
      }
      for (size_t v = 0; v < l.vecs.size(); ++v) {
        p.heap().add("v" + tag + "." + u(v), uint64_t(l.vecs[v].size()) * 4);
        up.floats.emplace_back("v" + tag + "." + u(v), l.vecs[v]);
      }
    }
  }

  std::vector<InstanceId> inst;
  for (uint32_t i = 0; i < cells_; ++i) inst.push_back(p.add_instance("cell" + u(i), 1));
  auto gword = [&](const std::string& s) { return p.globals().at(s).word_offset(); };
  auto hword = [&](const std::string& s) { return p.heap().at(s).word_offset(); };

  // A packed matrix-vector stage (dense.glsl): matrix m of leaf `tag`, `rows` outputs per
  // position; bias ~0u for none; mode/positions/geometry as dense.glsl documents.
  auto add_matvec = [&](StageSpec& s, Layer& l, const std::string& tag, uint32_t m, uint32_t rows, uint32_t bias, uint32_t x,
                        uint32_t y, uint32_t act, uint32_t mode, uint32_t P, uint32_t L, uint32_t Win, uint32_t K, uint32_t Wo) {
    const Packed& pk = l.mats[m].morph(l.dtype);
    const std::string mt = tag + "." + u(m);
    s.kernel = kernel(std::string("dense_") + dtype_name(l.dtype));
    s.groups = {groups_for(uint64_t(rows) * P), 1, 1};
    s.push = {hword("w" + mt), hword("s" + mt), bias, x, y, rows, pk.cols, pk.row_words, act, ~0u, mode, P, L, Win, K, Wo};
    s.reads.push_back(p.segment(Binding::Heap, "w" + mt));
    s.reads.push_back(p.segment(Binding::Heap, "s" + mt));
  };

  for (uint32_t t = 0; t < options.steps; ++t) {
    const uint32_t front = t % 2, back = 1 - front;
    for (uint32_t i = 0; i < cells_; ++i) {
      const auto src = net.source(i);
      std::string in = "x";
      if (src) in = out_name(*src, options.schedule == Schedule::Pass && *src < i ? back : front);
      const auto& lv = cell_leaves[i];
      for (uint32_t k = 0; k < lv.size(); ++k) {
        Layer& l = *lv[k];
        const std::string tag = u(i) + "." + u(k);
        const std::string out = k + 1 < lv.size() ? "t" + tag : out_name(i, back);
        StageSpec s;
        s.instance = inst[i];
        s.reads = {p.segment(Binding::Globals, in)};
        s.writes = {p.segment(Binding::Globals, out)};
        switch (l.type) {
          case LayerType::Dense:
          case LayerType::Conv1D:
          case LayerType::Conv2D: {
            const bool conv1 = l.type == LayerType::Conv1D, conv2 = l.type == LayerType::Conv2D;
            const uint32_t rows = conv1 || conv2 ? l.filters : l.out;
            const uint32_t P = conv1 ? l.seq - l.kernel + 1 : conv2 ? (l.height - l.kernel + 1) * (l.width - l.kernel + 1) : 1;
            s.name = std::string(layer_type_name(l.type)) + "[" + u(t) + "]." + tag;
            add_matvec(s, l, tag, 0, rows, hword("v" + tag + ".0"), gword(in), gword(out), uint32_t(l.act), conv1 ? 1u : conv2 ? 2u : 0u, P,
                       conv1 ? l.seq : l.height, l.width, l.kernel, conv2 ? l.width - l.kernel + 1 : 0u);
            s.reads.push_back(p.segment(Binding::Heap, "v" + tag + ".0"));
            break;
          }
          case LayerType::Embedding: {
            const Packed& pk = l.mats[0].morph(l.dtype);
            s.name = "embedding[" + u(t) + "]." + tag;
            s.kernel = kernel(std::string("embedding_") + dtype_name(l.dtype));
            s.groups = {groups_for(uint64_t(l.seq) * l.out), 1, 1};
            s.push = {hword("w" + tag + ".0"), hword("s" + tag + ".0"), gword(in), gword(out), l.seq, l.out, pk.row_words, l.vocab};
            s.reads.push_back(p.segment(Binding::Heap, "w" + tag + ".0"));
            s.reads.push_back(p.segment(Binding::Heap, "s" + tag + ".0"));
            break;
          }
          case LayerType::SwiGLU: {
            // a = W1 x, b = W3 x (per token), h = silu(a) * b, y = W2 h: four stages.
            const std::string a = "a" + tag, b = "b" + tag, h = "h" + tag;
            for (uint32_t m = 0; m < 2; ++m) {
              StageSpec proj = s;
              proj.name = "swiglu[" + u(t) + "]." + tag + (m ? ".up" : ".gate");
              proj.writes = {p.segment(Binding::Globals, m ? b : a)};
              add_matvec(proj, l, tag, m, l.out, ~0u, gword(in), gword(m ? b : a), 0u, 0u, l.seq, 0u, 0u, 0u, 0u);
              p.add_stage(proj);
            }
            StageSpec gate = s;
            gate.name = "swiglu[" + u(t) + "]." + tag + ".silu";
            gate.kernel = kernel("swiglu_gate");
            gate.groups = {groups_for(uint64_t(l.seq) * l.out), 1, 1};
            gate.push = {gword(a), gword(b), gword(h), l.seq * l.out};
            gate.reads = {p.segment(Binding::Globals, a), p.segment(Binding::Globals, b)};
            gate.writes = {p.segment(Binding::Globals, h)};
            p.add_stage(gate);
            s.name = "swiglu[" + u(t) + "]." + tag + ".down";
            s.reads = {p.segment(Binding::Globals, h)};
            add_matvec(s, l, tag, 2, l.in, ~0u, gword(h), gword(out), 0u, 0u, l.seq, 0u, 0u, 0u, 0u);
            break;
          }
          case LayerType::RMSNorm:
          case LayerType::LayerNorm: {
            const bool ln = l.type == LayerType::LayerNorm;
            s.name = std::string(ln ? "layernorm[" : "rmsnorm[") + u(t) + "]." + tag;
            s.kernel = kernel("norm");
            s.groups = {groups_for(l.seq), 1, 1};
            const std::string g = "v" + tag + ".0", beta = ln ? "v" + tag + ".1" : g;
            s.push = {gword(in), gword(out), hword(g), hword(beta), l.seq, l.in, f32_bits(l.eps), ln ? 1u : 0u};
            s.reads.push_back(p.segment(Binding::Heap, g));
            if (ln) s.reads.push_back(p.segment(Binding::Heap, beta));
            break;
          }
          case LayerType::Softmax:
            s.name = "softmax[" + u(t) + "]." + tag;
            s.kernel = kernel("softmax");
            s.groups = {groups_for(l.seq), 1, 1};
            s.push = {gword(in), gword(out), l.seq, l.in};
            break;
          default: fail(ErrorCode::BadInput, "volumetric: no device kernel for " + std::string(layer_type_name(l.type)));
        }
        p.add_stage(s);
        in = out;
      }
    }
  }
  if (options.steps % 2 == 1)
    for (uint32_t i = 0; i < cells_; ++i) {
      StageSpec s;
      s.name = "copy." + u(i);
      s.kernel = kernel("copy");
      s.instance = inst[i];
      s.groups = {groups_for(out_sizes_[i]), 1, 1};
      s.push = {gword(out_name(i, 1)), gword(out_name(i, 0)), out_sizes_[i], 0u};
      s.reads = {p.segment(Binding::Globals, out_name(i, 1))};
      s.writes = {p.segment(Binding::Globals, out_name(i, 0))};
      p.add_stage(s);
    }

  const uint64_t window = device.info().max_storage_buffer_range;
  for (const SegmentLayout* s : {&p.heap(), &p.globals()})
    if (s->size() > window)
      fail(ErrorCode::BadInput, "volumetric: " + s->buffer_name() + " needs " + u(s->size()) +
                                    " bytes, over the device's storage-buffer window of " + u(window));
  exe_ = std::make_unique<Executable>(device, std::move(p));
  for (auto& [name, w] : up.words)
    if (!w.empty()) exe_->write_segment(Binding::Heap, name, w.data(), w.size() * 4);
  for (auto& [name, f] : up.floats)
    if (!f.empty()) exe_->write_segment(Binding::Heap, name, f.data(), f.size() * 4);
  set_state(initial_state(net));
}

DeviceMesh::~DeviceMesh() = default;

void DeviceMesh::set_input(const std::vector<float>& x) {
  if (x.size() != input_)
    fail(ErrorCode::BadInput, "volumetric: network input of " + u(x.size()) + " values, " + u(input_) + " expected");
  for (size_t t = 0; t < x.size() && input_vocab_; ++t)
    if (!(x[t] >= 0 && x[t] < float(input_vocab_)) || x[t] != std::floor(x[t]))
      fail(ErrorCode::BadInput, "volumetric: input token " + u(t) + " is " + std::to_string(x[t]) + ", not an id in [0, " +
                                    u(input_vocab_) + ")");
  exe_->write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
}

void DeviceMesh::run() { exe_->run(); }

std::vector<float> DeviceMesh::output(uint32_t cell) {
  if (cell >= cells_) fail(ErrorCode::BadInput, "volumetric: cell " + u(cell) + " of " + u(cells_));
  return exe_->read_segment<float>(Binding::Globals, out_name(cell, 0));
}

MeshState DeviceMesh::state() {
  MeshState s;
  for (uint32_t i = 0; i < cells_; ++i) s.out.push_back(output(i));
  return s;
}

void DeviceMesh::set_state(const MeshState& s) {
  if (s.out.size() != cells_) fail(ErrorCode::BadInput, "volumetric: state of " + u(s.out.size()) + " cells, " + u(cells_) + " expected");
  for (uint32_t i = 0; i < cells_; ++i) {
    if (s.out[i].size() != out_sizes_[i]) fail(ErrorCode::BadInput, "volumetric: state of cell " + u(i) + " has the wrong size");
    exe_->write_segment(Binding::Globals, out_name(i, 0), s.out[i].data(), s.out[i].size() * 4);
  }
}

double DeviceMesh::gpu_ns() { return exe_->timings().total_ns; }

}  // namespace weft::volumetric
