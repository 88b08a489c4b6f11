#include "mesh.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "shaders/volumetric_args.h"
#include "weft_volumetric_kernels.h"

namespace weft::volumetric {

namespace {

std::string u(uint64_t v) { return std::to_string(v); }
// Workgroup size of every volumetric kernel (each loops over its items with a grid stride).
constexpr uint32_t kGroupSize = 64;
std::string out_name(uint32_t cell, uint32_t parity) {
  std::string s = "o";  // appended, not "o" + ...: GCC 12 warns falsely (-Wrestrict) on that form
  s += u(cell);
  s += ".";
  s += u(parity);
  return s;
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
    case LayerType::Conv3D:
    case LayerType::ConvT1D:
    case LayerType::ConvT2D:
    case LayerType::ConvT3D:
    case LayerType::KMeans:
    case LayerType::SwiGLU:
    case LayerType::MHA:
    case LayerType::RNN:
    case LayerType::GRU:
    case LayerType::LSTM: return true;
    case LayerType::Sequential:
    case LayerType::Parallel:
    case LayerType::Residual:
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
                                    ") has no device kernel");
    out_sizes_.push_back(layer_output_size(net.at(i)));
    for (uint32_t par = 0; par < 2; ++par) p.globals().add(out_name(i, par), uint64_t(out_sizes_[i]) * 4);
  }

  // Heap: every leaf's packed weights, scales and f32 vectors; Globals: the values between the
  // children of containers. Tags name a layer by its path: cell "." child "." child ...
  Uploads up;
  std::function<void(Layer&, const std::string&)> alloc = [&](Layer& l, const std::string& tag) {
    const size_t n = l.children.size();
    for (size_t c = 0; c < n; ++c) {
      const std::string ct = tag + "." + u(c);
      alloc(l.children[c], ct);
      const uint64_t bytes = uint64_t(layer_output_size(l.children[c])) * 4;
      if ((l.type == LayerType::Sequential || l.type == LayerType::Residual) && c + 1 < n) p.globals().add("t" + ct, bytes);
      if (l.type == LayerType::Parallel && l.combine == Combine::Add && c > 0) p.globals().add("t" + ct, bytes);
    }
    if (l.type == LayerType::SwiGLU)
      for (const char* t : {"a", "b", "h"}) p.globals().add(t + tag, uint64_t(l.seq) * l.out * 4);
    if (l.type == LayerType::KMeans) p.globals().add("km" + tag, uint64_t(l.seq) * l.out * 4);
    if (l.type == LayerType::MHA)
      for (const char* t : {"q", "k", "v", "o"}) p.globals().add(t + tag, uint64_t(l.seq) * l.in * 4);
    if (l.type == LayerType::RNN || l.type == LayerType::GRU || l.type == LayerType::LSTM) {
      const uint64_t G = l.type == LayerType::RNN ? 1 : l.type == LayerType::GRU ? 3 : 4;
      p.globals().add("gx" + tag, uint64_t(l.seq) * G * l.out * 4);
      p.globals().add("gh" + tag, G * l.out * 4);
      p.globals().add("c" + tag, uint64_t(l.out) * 4);
    }
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
  };
  for (uint32_t i = 0; i < cells_; ++i) alloc(net.at(i), u(i));

  std::vector<InstanceId> inst;
  for (uint32_t i = 0; i < cells_; ++i) inst.push_back(p.add_instance("cell" + u(i), 1));
  auto gseg = [&](const std::string& s) { return p.segment(Binding::Globals, s); };
  auto hseg = [&](const std::string& s) { return p.segment(Binding::Heap, s); };
  // A window of a Globals segment (Parallel concat writes its branches side by side).
  struct Buf {
    std::string seg;
    uint32_t off = 0, words = 0;
  };
  auto whole = [&](const std::string& seg, uint32_t words) { return Buf{seg, 0, words}; };
  auto brange = [&](const Buf& b) {
    return Range{Binding::Globals, p.globals().at(b.seg).offset + uint64_t(b.off) * 4, uint64_t(b.words) * 4};
  };

  // A packed matrix-vector stage (dense.glsl): matrix m of layer `tag`, `rows` outputs per
  // position reading x, writing y; bias absent for none; mode/positions/geometry as dense.glsl
  // documents.
  auto add_matvec = [&](StageSpec& s, Layer& l, const std::string& tag, uint32_t m, uint32_t rows, In<Binding::Heap> bias,
                        const Range& x, const Range& y, uint32_t act, uint32_t mode, uint32_t P, uint32_t L, uint32_t Win, uint32_t K,
                        uint32_t Wo) {
    const Packed& pk = l.mats[m].morph(l.dtype);
    const std::string mt = tag + "." + u(m);
    s.kernel = weft_volumetric_kernels.get(std::string("dense_") + dtype_name(l.dtype));
    s.groups = {grid_stride_groups(uint64_t(rows) * P, kGroupSize), 1, 1};
    DenseArgs a{.weights = hseg("w" + mt), .scales = hseg("s" + mt), .bias = bias, .x = x, .y = y, .rows = rows, .cols = pk.cols,
                .row_words = pk.row_words, .act = act, .z = absent, .mode = mode, .positions = P, .height = L, .width = Win,
                .ksize = K, .out_width = Wo};
    if (mode == 3) {  // the rest of the generic conv geometry
      const ConvShape cs = conv_shape(l);
      a.depth = cs.Di;
      a.out_height = cs.Ho;
      a.transposed = cs.transposed ? 1u : 0u;
      a.dims = cs.dims;
    }
    s.args = a.bind();
  };
  // out += from (or out = from), a `copy` stage.
  auto add_copy = [&](const std::string& name, InstanceId id, const Buf& from, const Buf& to, bool accumulate) {
    StageSpec s;
    s.name = name;
    s.kernel = weft_volumetric_kernels.get("copy");
    s.instance = id;
    s.groups = {grid_stride_groups(to.words, kGroupSize), 1, 1};
    s.args = CopyArgs{.src = brange(from), .dst = brange(to), .count = to.words, .accumulate = accumulate ? 1u : 0u}.bind();
    if (accumulate) s.reads = {brange(to)};
    p.add_stage(s);
  };

  // The stages of layer l (tag) reading `in` and writing `out` in step t.
  std::function<void(Layer&, const std::string&, const Buf&, const Buf&, uint32_t, InstanceId)> emit =
      [&](Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
        const size_t n = l.children.size();
        if (l.type == LayerType::Sequential || l.type == LayerType::Residual) {
          Buf cur = in;
          for (size_t c = 0; c < n; ++c) {
            const std::string ct = tag + "." + u(c);
            const Buf dst = c + 1 < n ? whole("t" + ct, layer_output_size(l.children[c])) : out;
            emit(l.children[c], ct, cur, dst, t, id);
            cur = dst;
          }
          if (l.type == LayerType::Residual) add_copy("residual[" + u(t) + "]." + tag, id, in, out, true);
          return;
        }
        if (l.type == LayerType::Parallel) {
          uint32_t off = 0;
          for (size_t c = 0; c < n; ++c) {
            const std::string ct = tag + "." + u(c);
            const uint32_t words = layer_output_size(l.children[c]);
            if (l.combine == Combine::Concat) {
              emit(l.children[c], ct, in, Buf{out.seg, out.off + off, words}, t, id);
              off += words;
            } else if (c == 0) {
              emit(l.children[c], ct, in, out, t, id);
            } else {
              const Buf tmp = whole("t" + ct, words);
              emit(l.children[c], ct, in, tmp, t, id);
              add_copy("parallel_add[" + u(t) + "]." + ct, id, tmp, out, true);
            }
          }
          return;
        }
        StageSpec s;
        s.instance = id;
        switch (l.type) {
          case LayerType::Dense:
          case LayerType::Conv1D:
          case LayerType::Conv2D: {
            const bool conv1 = l.type == LayerType::Conv1D, conv2 = l.type == LayerType::Conv2D;
            const uint32_t rows = conv1 || conv2 ? l.filters : l.out;
            const uint32_t P = conv1 ? l.seq - l.kernel + 1 : conv2 ? (l.height - l.kernel + 1) * (l.width - l.kernel + 1) : 1;
            s.name = std::string(layer_type_name(l.type)) + "[" + u(t) + "]." + tag;
            add_matvec(s, l, tag, 0, rows, hseg("v" + tag + ".0"), brange(in), brange(out), uint32_t(l.act), conv1 ? 1u : conv2 ? 2u : 0u,
                       P, conv1 ? l.seq : l.height, l.width, l.kernel, conv2 ? l.width - l.kernel + 1 : 0u);
            break;
          }
          case LayerType::Conv3D:
          case LayerType::ConvT1D:
          case LayerType::ConvT2D:
          case LayerType::ConvT3D: {
            const ConvShape cs = conv_shape(l);
            s.name = std::string(layer_type_name(l.type)) + "[" + u(t) + "]." + tag;
            add_matvec(s, l, tag, 0, cs.F, hseg("v" + tag + ".0"), brange(in), brange(out), uint32_t(l.act), 3u, cs.positions(), cs.Hi,
                       cs.Wi, cs.K, cs.Wo);
            break;
          }
          case LayerType::KMeans: {
            // Scores from the packed centroids, then the row softmax into the output.
            const Packed& pk = l.mats[0].morph(l.dtype);
            StageSpec sc = s;
            sc.name = "kmeans[" + u(t) + "]." + tag + ".scores";
            sc.kernel = weft_volumetric_kernels.get(std::string("kmeans_") + dtype_name(l.dtype));
            sc.groups = {grid_stride_groups(uint64_t(l.seq) * l.out, kGroupSize), 1, 1};
            sc.args = KMeansArgs{.centroids = hseg("w" + tag + ".0"), .scales = hseg("s" + tag + ".0"), .x = brange(in),
                                 .scores = gseg("km" + tag), .seq = l.seq, .width = l.in, .k = l.out, .row_words = pk.row_words}
                          .bind();
            p.add_stage(sc);
            s.name = "kmeans[" + u(t) + "]." + tag + ".softmax";
            s.kernel = weft_volumetric_kernels.get("softmax");
            s.groups = {grid_stride_groups(l.seq, kGroupSize), 1, 1};
            s.args = SoftmaxArgs{.x = gseg("km" + tag), .y = brange(out), .rows = l.seq, .n = l.out}.bind();
            break;
          }
          case LayerType::Embedding: {
            const Packed& pk = l.mats[0].morph(l.dtype);
            s.name = "embedding[" + u(t) + "]." + tag;
            s.kernel = weft_volumetric_kernels.get(std::string("embedding_") + dtype_name(l.dtype));
            s.groups = {grid_stride_groups(uint64_t(l.seq) * l.out, kGroupSize), 1, 1};
            s.args = EmbeddingArgs{.table = hseg("w" + tag + ".0"), .scales = hseg("s" + tag + ".0"), .x = brange(in), .y = brange(out),
                                   .seq = l.seq, .dim = l.out, .row_words = pk.row_words, .vocab = l.vocab}
                         .bind();
            break;
          }
          case LayerType::SwiGLU: {
            // a = W1 x, b = W3 x (per token), h = silu(a) * b, y = W2 h: four stages.
            const std::string a = "a" + tag, b = "b" + tag, h = "h" + tag;
            for (uint32_t m = 0; m < 2; ++m) {
              StageSpec proj = s;
              proj.name = "swiglu[" + u(t) + "]." + tag + (m ? ".up" : ".gate");
              add_matvec(proj, l, tag, m, l.out, absent, brange(in), gseg(m ? b : a), 0u, 0u, l.seq, 0u, 0u, 0u, 0u);
              p.add_stage(proj);
            }
            StageSpec gate = s;
            gate.name = "swiglu[" + u(t) + "]." + tag + ".silu";
            gate.kernel = weft_volumetric_kernels.get("swiglu_gate");
            gate.groups = {grid_stride_groups(uint64_t(l.seq) * l.out, kGroupSize), 1, 1};
            gate.args = SwigluGateArgs{.a = gseg(a), .b = gseg(b), .h = gseg(h), .count = l.seq * l.out}.bind();
            p.add_stage(gate);
            s.name = "swiglu[" + u(t) + "]." + tag + ".down";
            add_matvec(s, l, tag, 2, l.in, absent, gseg(h), brange(out), 0u, 0u, l.seq, 0u, 0u, 0u, 0u);
            break;
          }
          case LayerType::MHA: {
            // q, k, v = W x per token (packed), the attention core, then Wo o into the output.
            const char* names[3] = {"q", "k", "v"};
            for (uint32_t m = 0; m < 3; ++m) {
              StageSpec proj = s;
              proj.name = "mha[" + u(t) + "]." + tag + "." + names[m];
              add_matvec(proj, l, tag, m, l.in, absent, brange(in), gseg(names[m] + tag), 0u, 0u, l.seq, 0u, 0u, 0u, 0u);
              p.add_stage(proj);
            }
            StageSpec att = s;
            att.name = "mha[" + u(t) + "]." + tag + ".attention";
            att.kernel = weft_volumetric_kernels.get("attention");
            att.groups = {grid_stride_groups(uint64_t(l.seq) * l.heads, kGroupSize), 1, 1};
            att.args = AttentionArgs{.q = gseg("q" + tag), .k = gseg("k" + tag), .v = gseg("v" + tag), .o = gseg("o" + tag),
                                     .seq = l.seq, .d = l.in, .heads = l.heads}
                           .bind();
            p.add_stage(att);
            s.name = "mha[" + u(t) + "]." + tag + ".out";
            add_matvec(s, l, tag, 3, l.in, absent, gseg("o" + tag), brange(out), 0u, 0u, l.seq, 0u, 0u, 0u, 0u);
            break;
          }
          case LayerType::RNN:
          case LayerType::GRU:
          case LayerType::LSTM: {
            // gx = Wx x for every token in one stage, then per time step gh = Wh h_{t-1} and the cell.
            const uint32_t kind = l.type == LayerType::RNN ? 0 : l.type == LayerType::GRU ? 1 : 2, G = kind == 0 ? 1 : kind == 1 ? 3 : 4;
            const uint32_t H = l.out;
            StageSpec px = s;
            px.name = std::string(layer_type_name(l.type)) + "[" + u(t) + "]." + tag + ".wx";
            add_matvec(px, l, tag, 0, G * H, absent, brange(in), gseg("gx" + tag), 0u, 0u, l.seq, 0u, 0u, 0u, 0u);
            p.add_stage(px);
            const std::string b = "v" + tag + ".0", bh = kind == 1 ? "v" + tag + ".1" : b;
            for (uint32_t step = 0; step < l.seq; ++step) {
              const Range hprev{Binding::Globals, brange(out).offset + uint64_t(step ? step - 1 : 0) * H * 4, uint64_t(H) * 4};
              if (step) {
                StageSpec ph;
                ph.instance = id;
                ph.name = std::string(layer_type_name(l.type)) + "[" + u(t) + "]." + tag + ".wh";
                add_matvec(ph, l, tag, 1, G * H, absent, hprev, gseg("gh" + tag), 0u, 0u, 1, 0u, 0u, 0u, 0u);
                p.add_stage(ph);
              }
              StageSpec cell;
              cell.instance = id;
              cell.name = std::string(layer_type_name(l.type)) + "[" + u(t) + "]." + tag + ".cell";
              cell.kernel = weft_volumetric_kernels.get("recurrent_cell");
              cell.groups = {grid_stride_groups(H, kGroupSize), 1, 1};
              // y is out's first word: the cell reads row step - 1 and writes row step of it.
              cell.args = RecurrentCellArgs{.gx = gseg("gx" + tag), .gh = gseg("gh" + tag), .y = uint32_t(brange(out).offset / 4),
                                            .c = gseg("c" + tag), .bias = hseg(b), .bias_h = hseg(bh), .t = step, .hidden = H,
                                            .kind = kind, .store = absent}
                              .bind();
              cell.reads = {hprev};
              cell.writes = {Range{Binding::Globals, brange(out).offset + uint64_t(step) * H * 4, uint64_t(H) * 4}};
              if (step + 1 < l.seq) p.add_stage(cell);
              else s = cell;  // the last one is added below
            }
            break;
          }
          case LayerType::RMSNorm:
          case LayerType::LayerNorm: {
            const bool ln = l.type == LayerType::LayerNorm;
            s.name = std::string(ln ? "layernorm[" : "rmsnorm[") + u(t) + "]." + tag;
            s.kernel = weft_volumetric_kernels.get("norm");
            s.groups = {grid_stride_groups(l.seq, kGroupSize), 1, 1};
            const std::string g = "v" + tag + ".0", beta = ln ? "v" + tag + ".1" : g;
            s.args = NormArgs{.x = brange(in), .y = brange(out), .gain = hseg(g), .beta = hseg(beta), .rows = l.seq, .n = l.in,
                              .eps = l.eps, .layer = ln ? 1u : 0u}
                         .bind();
            break;
          }
          case LayerType::Softmax:
            s.name = "softmax[" + u(t) + "]." + tag;
            s.kernel = weft_volumetric_kernels.get("softmax");
            s.groups = {grid_stride_groups(l.seq, kGroupSize), 1, 1};
            s.args = SoftmaxArgs{.x = brange(in), .y = brange(out), .rows = l.seq, .n = l.in}.bind();
            break;
          default: fail(ErrorCode::BadInput, "volumetric: no device kernel for " + std::string(layer_type_name(l.type)));
        }
        p.add_stage(s);
      };

  for (uint32_t t = 0; t < options.steps; ++t) {
    const uint32_t front = t % 2, back = 1 - front;
    for (uint32_t i = 0; i < cells_; ++i) {
      const auto src = net.source(i);
      Buf in = whole("x", input_);
      if (src) in = whole(out_name(*src, options.schedule == Schedule::Pass && *src < i ? back : front), out_sizes_[*src]);
      emit(net.at(i), u(i), in, whole(out_name(i, back), out_sizes_[i]), t, inst[i]);
    }
  }
  if (options.steps % 2 == 1)
    for (uint32_t i = 0; i < cells_; ++i) {
      StageSpec s;
      s.name = "copy." + u(i);
      s.kernel = weft_volumetric_kernels.get("copy");
      s.instance = inst[i];
      s.groups = {grid_stride_groups(out_sizes_[i], kGroupSize), 1, 1};
      s.args = CopyArgs{.src = gseg(out_name(i, 1)), .dst = gseg(out_name(i, 0)), .count = out_sizes_[i], .accumulate = 0u}.bind();
      p.add_stage(s);
    }

  p.require_bound_window(device.info(), "volumetric: " + u(cells_) + " cells (packed weights in Heap, activations in Globals)");
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
