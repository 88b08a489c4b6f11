#include "mesh.h"

#include <algorithm>
#include <cmath>

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

namespace {

// A window of a Globals segment (Parallel concat writes its branches side by side).
struct Buf {
  std::string seg;
  uint32_t off = 0, words = 0;
};
Buf whole(const std::string& seg, uint32_t words) { return Buf{seg, 0, words}; }

// The mesh's program: alloc() lays out a layer's segments (Heap: every leaf's packed weights,
// scales and f32 vectors; Globals: the values between the children of containers and inside
// multi-stage layers), emit() adds the stages of a layer for one step. Tags name a layer by its
// path: cell "." child "." child ...
class MeshBuilder {
 public:
  MeshBuilder(Program& p, Uploads& up, uint64_t& weight_bytes) : p_(p), up_(up), weight_bytes_(weight_bytes) {}

  void alloc(Layer& l, const std::string& tag) {
    const size_t n = l.children.size();
    for (size_t c = 0; c < n; ++c) {
      const std::string ct = tag + "." + u(c);
      alloc(l.children[c], ct);
      const uint64_t bytes = uint64_t(layer_output_size(l.children[c])) * 4;
      if ((l.type == LayerType::Sequential || l.type == LayerType::Residual) && c + 1 < n) p_.globals().add("t" + ct, bytes);
      if (l.type == LayerType::Parallel && l.combine == Combine::Add && c > 0) p_.globals().add("t" + ct, bytes);
    }
    alloc_intermediates(l, tag);
    alloc_parameters(l, tag);
  }

  // The stages of layer l (tag) of instance id reading `in` and writing `out` in step t.
  void emit(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    switch (l.type) {
      case LayerType::Sequential:
      case LayerType::Residual: return emit_chain(l, tag, in, out, t, id);
      case LayerType::Parallel: return emit_parallel(l, tag, in, out, t, id);
      case LayerType::Dense:
      case LayerType::Conv1D:
      case LayerType::Conv2D:
      case LayerType::Conv3D:
      case LayerType::ConvT1D:
      case LayerType::ConvT2D:
      case LayerType::ConvT3D: return emit_matvec_layer(l, tag, in, out, t, id);
      case LayerType::KMeans: return emit_kmeans(l, tag, in, out, t, id);
      case LayerType::Embedding: return emit_embedding(l, tag, in, out, t, id);
      case LayerType::SwiGLU: return emit_swiglu(l, tag, in, out, t, id);
      case LayerType::MHA: return emit_mha(l, tag, in, out, t, id);
      case LayerType::RNN:
      case LayerType::GRU:
      case LayerType::LSTM: return emit_recurrent(l, tag, in, out, t, id);
      case LayerType::RMSNorm:
      case LayerType::LayerNorm: return emit_norm(l, tag, in, out, t, id);
      case LayerType::Softmax: return emit_softmax(l, tag, in, out, t, id);
      default: fail(ErrorCode::BadInput, "volumetric: no device kernel for " + std::string(layer_type_name(l.type)));
    }
  }

  // to += from (or to = from), a `copy` stage.
  void add_copy(const std::string& name, InstanceId id, const Buf& from, const Buf& to, bool accumulate) {
    StageSpec s = stage(name, id, "copy", to.words);
    s.args = CopyArgs{.src = brange(from), .dst = brange(to), .count = to.words, .accumulate = accumulate ? 1u : 0u}.bind();
    if (accumulate) s.reads = {brange(to)};
    p_.add_stage(s);
  }

 private:
  Range gseg(const std::string& s) const { return p_.segment(Binding::Globals, s); }
  Range hseg(const std::string& s) const { return p_.segment(Binding::Heap, s); }
  Range brange(const Buf& b) const {
    return Range{Binding::Globals, p_.globals().at(b.seg).offset + uint64_t(b.off) * 4, uint64_t(b.words) * 4};
  }
  // "<type>[t].tag": the name of layer l's stage in step t.
  static std::string stage_name(const Layer& l, uint32_t t, const std::string& tag) {
    return std::string(layer_type_name(l.type)) + "[" + u(t) + "]." + tag;
  }
  // A stage of `kernel` for instance id over `items` (grid stride); its arguments to be bound.
  static StageSpec stage(std::string name, InstanceId id, const std::string& kernel, uint64_t items) {
    StageSpec s;
    s.name = std::move(name);
    s.instance = id;
    s.kernel = weft_volumetric_kernels.get(kernel);
    s.groups = {grid_stride_groups(items, kGroupSize), 1, 1};
    return s;
  }

  // Globals for the values inside multi-stage layers.
  void alloc_intermediates(const Layer& l, const std::string& tag) {
    if (l.type == LayerType::SwiGLU)
      for (const char* t : {"a", "b", "h"}) p_.globals().add(t + tag, uint64_t(l.seq) * l.out * 4);
    if (l.type == LayerType::KMeans) p_.globals().add("km" + tag, uint64_t(l.seq) * l.out * 4);
    if (l.type == LayerType::MHA)
      for (const char* t : {"q", "k", "v", "o"}) p_.globals().add(t + tag, uint64_t(l.seq) * l.in * 4);
    if (l.type == LayerType::RNN || l.type == LayerType::GRU || l.type == LayerType::LSTM) {
      const uint64_t G = l.type == LayerType::RNN ? 1 : l.type == LayerType::GRU ? 3 : 4;
      p_.globals().add("gx" + tag, uint64_t(l.seq) * G * l.out * 4);
      p_.globals().add("gh" + tag, G * l.out * 4);
      p_.globals().add("c" + tag, uint64_t(l.out) * 4);
    }
  }

  // Heap for the packed matrices (in the layer's type) and f32 vectors, queued for upload.
  void alloc_parameters(Layer& l, const std::string& tag) {
    for (size_t m = 0; m < l.mats.size(); ++m) {
      const Packed& pk = l.mats[m].morph(l.dtype);
      const std::string mt = tag + "." + u(m);
      weight_bytes_ += pk.bytes();
      p_.heap().add("w" + mt, std::max<uint64_t>(pk.words.size() * 4, 4));
      p_.heap().add("s" + mt, std::max<uint64_t>(pk.scales.size() * 4, 4));
      up_.words.emplace_back("w" + mt, pk.words);
      up_.floats.emplace_back("s" + mt, pk.scales);
    }
    for (size_t v = 0; v < l.vecs.size(); ++v) {
      p_.heap().add("v" + tag + "." + u(v), uint64_t(l.vecs[v].size()) * 4);
      up_.floats.emplace_back("v" + tag + "." + u(v), l.vecs[v]);
    }
  }

  // A packed matrix-vector stage (dense.glsl): matrix m of layer `tag`, `rows` outputs per
  // position reading x, writing y; bias absent for none; mode/positions/geometry as dense.glsl
  // documents.
  void add_matvec(std::string name, InstanceId id, Layer& l, const std::string& tag, uint32_t m, uint32_t rows, In<Binding::Heap> bias,
                  const Range& x, const Range& y, uint32_t act, uint32_t mode, uint32_t P, uint32_t L, uint32_t Win, uint32_t K,
                  uint32_t Wo) {
    const Packed& pk = l.mats[m].morph(l.dtype);
    const std::string mt = tag + "." + u(m);
    StageSpec s = stage(std::move(name), id, std::string("dense_") + dtype_name(l.dtype), uint64_t(rows) * P);
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
    p_.add_stage(s);
  }
  // A linear projection of the layer's `seq` tokens (mode 0, no bias, no activation).
  void add_projection(std::string name, InstanceId id, Layer& l, const std::string& tag, uint32_t m, uint32_t rows, const Range& x,
                      const Range& y, uint32_t positions) {
    add_matvec(std::move(name), id, l, tag, m, rows, absent, x, y, 0u, 0u, positions, 0u, 0u, 0u, 0u);
  }

  // Sequential / Residual: the children in a chain through their "t" buffers, the last into out.
  void emit_chain(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    const size_t n = l.children.size();
    Buf cur = in;
    for (size_t c = 0; c < n; ++c) {
      const std::string ct = tag + "." + u(c);
      const Buf dst = c + 1 < n ? whole("t" + ct, layer_output_size(l.children[c])) : out;
      emit(l.children[c], ct, cur, dst, t, id);
      cur = dst;
    }
    if (l.type == LayerType::Residual) add_copy("residual[" + u(t) + "]." + tag, id, in, out, true);
  }

  // Parallel: every branch from `in`, side by side in out (Concat) or summed into it (Add).
  void emit_parallel(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    uint32_t off = 0;
    for (size_t c = 0; c < l.children.size(); ++c) {
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
  }

  // Dense and every convolution: one dense.glsl stage with the layer's gather.
  void emit_matvec_layer(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    const In<Binding::Heap> bias = hseg("v" + tag + ".0");
    if (l.type == LayerType::Dense || l.type == LayerType::Conv1D || l.type == LayerType::Conv2D) {
      const bool conv1 = l.type == LayerType::Conv1D, conv2 = l.type == LayerType::Conv2D;
      const uint32_t rows = conv1 || conv2 ? l.filters : l.out;
      const uint32_t P = conv1 ? l.seq - l.kernel + 1 : conv2 ? (l.height - l.kernel + 1) * (l.width - l.kernel + 1) : 1;
      add_matvec(stage_name(l, t, tag), id, l, tag, 0, rows, bias, brange(in), brange(out), uint32_t(l.act), conv1 ? 1u : conv2 ? 2u : 0u,
                 P, conv1 ? l.seq : l.height, l.width, l.kernel, conv2 ? l.width - l.kernel + 1 : 0u);
      return;
    }
    const ConvShape cs = conv_shape(l);
    add_matvec(stage_name(l, t, tag), id, l, tag, 0, cs.F, bias, brange(in), brange(out), uint32_t(l.act), 3u, cs.positions(), cs.Hi,
               cs.Wi, cs.K, cs.Wo);
  }

  // K-means: scores from the packed centroids, then the row softmax into the output.
  void emit_kmeans(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    const Packed& pk = l.mats[0].morph(l.dtype);
    StageSpec sc = stage("kmeans[" + u(t) + "]." + tag + ".scores", id, std::string("kmeans_") + dtype_name(l.dtype), uint64_t(l.seq) * l.out);
    sc.args = KMeansArgs{.centroids = hseg("w" + tag + ".0"), .scales = hseg("s" + tag + ".0"), .x = brange(in), .scores = gseg("km" + tag),
                         .seq = l.seq, .width = l.in, .k = l.out, .row_words = pk.row_words}
                  .bind();
    p_.add_stage(sc);
    StageSpec s = stage("kmeans[" + u(t) + "]." + tag + ".softmax", id, "softmax", l.seq);
    s.args = SoftmaxArgs{.x = gseg("km" + tag), .y = brange(out), .rows = l.seq, .n = l.out}.bind();
    p_.add_stage(s);
  }

  void emit_embedding(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    const Packed& pk = l.mats[0].morph(l.dtype);
    StageSpec s = stage("embedding[" + u(t) + "]." + tag, id, std::string("embedding_") + dtype_name(l.dtype), uint64_t(l.seq) * l.out);
    s.args = EmbeddingArgs{.table = hseg("w" + tag + ".0"), .scales = hseg("s" + tag + ".0"), .x = brange(in), .y = brange(out),
                           .seq = l.seq, .dim = l.out, .row_words = pk.row_words, .vocab = l.vocab}
                 .bind();
    p_.add_stage(s);
  }

  // SwiGLU: a = W1 x, b = W3 x (per token), h = silu(a) * b, y = W2 h: four stages.
  void emit_swiglu(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    const std::string a = "a" + tag, b = "b" + tag, h = "h" + tag, name = "swiglu[" + u(t) + "]." + tag;
    for (uint32_t m = 0; m < 2; ++m) add_projection(name + (m ? ".up" : ".gate"), id, l, tag, m, l.out, brange(in), gseg(m ? b : a), l.seq);
    StageSpec gate = stage(name + ".silu", id, "swiglu_gate", uint64_t(l.seq) * l.out);
    gate.args = SwigluGateArgs{.a = gseg(a), .b = gseg(b), .h = gseg(h), .count = l.seq * l.out}.bind();
    p_.add_stage(gate);
    add_projection(name + ".down", id, l, tag, 2, l.in, gseg(h), brange(out), l.seq);
  }

  // MHA: q, k, v = W x per token (packed), the attention core, then Wo o into the output.
  void emit_mha(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    const std::string name = "mha[" + u(t) + "]." + tag;
    const char* names[3] = {"q", "k", "v"};
    for (uint32_t m = 0; m < 3; ++m) add_projection(name + "." + names[m], id, l, tag, m, l.in, brange(in), gseg(names[m] + tag), l.seq);
    StageSpec att = stage(name + ".attention", id, "attention", uint64_t(l.seq) * l.heads);
    att.args = AttentionArgs{.q = gseg("q" + tag), .k = gseg("k" + tag), .v = gseg("v" + tag), .o = gseg("o" + tag), .seq = l.seq,
                             .d = l.in, .heads = l.heads}
                   .bind();
    p_.add_stage(att);
    add_projection(name + ".out", id, l, tag, 3, l.in, gseg("o" + tag), brange(out), l.seq);
  }

  // RNN / GRU / LSTM: gx = Wx x for every token in one stage, then per time step gh = Wh h_{t-1}
  // and the cell, which writes row `step` of the output.
  void emit_recurrent(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    const uint32_t kind = l.type == LayerType::RNN ? 0 : l.type == LayerType::GRU ? 1 : 2, G = kind == 0 ? 1 : kind == 1 ? 3 : 4;
    const uint32_t H = l.out;
    const std::string name = stage_name(l, t, tag);
    add_projection(name + ".wx", id, l, tag, 0, G * H, brange(in), gseg("gx" + tag), l.seq);
    const std::string b = "v" + tag + ".0", bh = kind == 1 ? "v" + tag + ".1" : b;
    const uint64_t out_offset = brange(out).offset;
    for (uint32_t step = 0; step < l.seq; ++step) {
      const Range hprev{Binding::Globals, out_offset + uint64_t(step ? step - 1 : 0) * H * 4, uint64_t(H) * 4};
      if (step) add_projection(name + ".wh", id, l, tag, 1, G * H, hprev, gseg("gh" + tag), 1);
      StageSpec cell = stage(name + ".cell", id, "recurrent_cell", H);
      // y is out's first word: the cell reads row step - 1 and writes row step of it.
      cell.args = RecurrentCellArgs{.gx = gseg("gx" + tag), .gh = gseg("gh" + tag), .y = uint32_t(out_offset / 4), .c = gseg("c" + tag),
                                    .bias = hseg(b), .bias_h = hseg(bh), .t = step, .hidden = H, .kind = kind, .store = absent}
                      .bind();
      cell.reads = {hprev};
      cell.writes = {Range{Binding::Globals, out_offset + uint64_t(step) * H * 4, uint64_t(H) * 4}};
      p_.add_stage(cell);
    }
  }

  void emit_norm(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    const bool ln = l.type == LayerType::LayerNorm;
    StageSpec s = stage(std::string(ln ? "layernorm[" : "rmsnorm[") + u(t) + "]." + tag, id, "norm", l.seq);
    const std::string g = "v" + tag + ".0", beta = ln ? "v" + tag + ".1" : g;
    s.args = NormArgs{.x = brange(in), .y = brange(out), .gain = hseg(g), .beta = hseg(beta), .rows = l.seq, .n = l.in, .eps = l.eps,
                      .layer = ln ? 1u : 0u}
                 .bind();
    p_.add_stage(s);
  }

  void emit_softmax(Layer& l, const std::string& tag, const Buf& in, const Buf& out, uint32_t t, InstanceId id) {
    StageSpec s = stage("softmax[" + u(t) + "]." + tag, id, "softmax", l.seq);
    s.args = SoftmaxArgs{.x = brange(in), .y = brange(out), .rows = l.seq, .n = l.in}.bind();
    p_.add_stage(s);
  }

  Program& p_;
  Uploads& up_;
  uint64_t& weight_bytes_;
};

}  // namespace

uint32_t checked_steps(uint32_t steps) {
  if (steps == 0 || steps > kMaxStepsPerRun)
    fail(ErrorCode::BadInput, "steps is " + u(steps) + "; one call runs 1 to " + u(kMaxStepsPerRun) + " steps (call again for more)");
  return steps;
}

MeshState run_reference(Network& net, const std::vector<float>& x, const MeshOptions& options) {
  checked_steps(options.steps);
  MeshState state = initial_state(net);
  for (uint32_t t = 0; t < options.steps; ++t) {
    if (options.schedule == Schedule::Pass) forward(net, x, state);
    else step(net, x, state);
  }
  return state;
}

DeviceMesh::DeviceMesh(Device& device, Network& net, MeshOptions options) : cells_(net.size()), input_(net.input_size()) {
  net.validate();
  checked_steps(options.steps);
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
  Uploads up;
  MeshBuilder mesh(p, up, weight_bytes_);
  for (uint32_t i = 0; i < cells_; ++i) mesh.alloc(net.at(i), u(i));
  std::vector<InstanceId> inst;
  for (uint32_t i = 0; i < cells_; ++i) inst.push_back(p.add_instance("cell" + u(i), 1));

  // Step t reads parity t % 2 (a Pass reads earlier cells' new outputs) and writes the other.
  for (uint32_t t = 0; t < options.steps; ++t) {
    const uint32_t front = t % 2, back = 1 - front;
    for (uint32_t i = 0; i < cells_; ++i) {
      const auto src = net.source(i);
      Buf in = whole("x", input_);
      if (src) in = whole(out_name(*src, options.schedule == Schedule::Pass && *src < i ? back : front), out_sizes_[*src]);
      mesh.emit(net.at(i), u(i), in, whole(out_name(i, back), out_sizes_[i]), t, inst[i]);
    }
  }
  // After an odd number of steps the outputs are in the back buffers: copy them to the front.
  if (options.steps % 2 == 1)
    for (uint32_t i = 0; i < cells_; ++i)
      mesh.add_copy("copy." + u(i), inst[i], whole(out_name(i, 1), out_sizes_[i]), whole(out_name(i, 0), out_sizes_[i]), false);

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
