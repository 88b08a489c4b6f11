#include "device_train.h"

#include <algorithm>
#include <array>
#include <functional>

#include "reference.h"
#include "shaders/volumetric_args.h"
#include "weft_volumetric_kernels.h"

namespace weft::volumetric {

namespace {

std::string u(uint64_t v) { return std::to_string(v); }
// Workgroup size of every volumetric kernel (each loops over its items with a grid stride).
constexpr uint32_t kGroupSize = 64;
std::string pname(const char* kind, const std::string& tag, uint32_t j) { return kind + tag + "." + u(j); }

// Layers whose forward is dense.glsl's matrix-vector product with a bias (and activation).
bool is_matvec(const Layer& l) { return l.type == LayerType::Dense || is_conv(l.type); }

bool is_recurrent(const Layer& l) { return l.type == LayerType::RNN || l.type == LayerType::GRU || l.type == LayerType::LSTM; }
uint32_t rnn_kind(const Layer& l) { return l.type == LayerType::RNN ? 0 : l.type == LayerType::GRU ? 1 : 2; }
uint32_t rnn_gates(const Layer& l) { return l.type == LayerType::RNN ? 1 : l.type == LayerType::GRU ? 3 : 4; }
uint32_t rnn_stored(const Layer& l) { return l.type == LayerType::RNN ? 1 : l.type == LayerType::GRU ? 4 : 5; }

bool is_container(const Layer& l) {
  return l.type == LayerType::Sequential || l.type == LayerType::Parallel || l.type == LayerType::Residual;
}

// dense.glsl / dense_backward.comp geometry of a Dense or Conv layer: rows, cols, positions,
// the gather mode and its geometry (dense_backward packs mode 3's flags into its mode).
struct Geometry {
  uint32_t rows, cols, P;
  uint32_t mode = 0, height = 0, width = 0, ksize = 0, out_width = 0, depth = 0, out_height = 0, transposed = 0, dims = 0;
  uint32_t backward_mode() const { return mode == 3 ? 3u | transposed << 4 | dims << 8 : mode; }
};
Geometry geometry(const Layer& l) {
  const uint32_t cols = uint32_t(l.mats[0].cols());
  if (l.type == LayerType::Dense) return {l.out, cols, 1};
  const ConvShape cs = conv_shape(l);
  const uint32_t P = cs.positions();
  if (l.type == LayerType::Conv1D) return {cs.F, cols, P, 1, l.seq, 0, l.kernel, 0};
  if (l.type == LayerType::Conv2D) return {cs.F, cols, P, 2, l.height, l.width, l.kernel, cs.Wo};
  return {cs.F, cols, P, 3, cs.Hi, cs.Wi, cs.K, cs.Wo, cs.Di, cs.Ho, cs.transposed ? 1u : 0u, cs.dims};
}

}  // namespace

// Builds the training program of a network: the Globals layout (allocate), then the forward
// stages of every cell, the loss, the backward stages last cell first, and the optimiser; one
// method per layer kind and direction.
class DeviceTrainer::Builder {
 public:
  Builder(Network& net, DeviceTrainer& t) : net_(net), t_(t), p_("volumetric.train"), G(p_.globals()) {}

  Program build() {
    const uint32_t n = net_.size();
    link_cells();
    allocate_all();
    inst_ = p_.add_instance("train", 1);
    // std::string("y").append(..), not "y" + ..: GCC 12 reports a false -Wrestrict on the latter here.
    for (uint32_t i = 0; i < n; ++i) forward(net_.at(i), u(i), whole(input[i]), whole(std::string("y").append(u(i))));
    loss();
    backward_all();
    optimizer();
    return std::move(p_);
  }

  // After the Executable exists: the parameters, and zeros where nothing writes before reading.
  void upload(Executable& exe) const;

 private:
  // A window of a Globals segment.
  struct Buf {
    std::string seg;
    uint32_t off = 0, words = 0;
  };
  using GIn = In<Binding::Globals>;
  using GOut = Out<Binding::Globals>;

  Buf whole(const std::string& s) const { return Buf{s, 0, uint32_t(G.at(s).size / 4)}; }
  Range r(const Buf& b) const { return Range{Binding::Globals, G.at(b.seg).offset + uint64_t(b.off) * 4, uint64_t(b.words) * 4}; }
  uint32_t w(const Buf& b) const { return uint32_t(r(b).offset / 4); }

  // Where each cell reads from, and who reads each cell (the gradient flows back along these).
  void link_cells() {
    const uint32_t n = net_.size();
    input.assign(n, {});
    consumers.assign(n, {});

    for (uint32_t i = 0; i < n; ++i) {
      const auto src = net_.source(i);
      if (!src)
        input[i] = "x";
      else if (*src < i) {
        input[i] = "y" + u(*src);
        consumers[*src].push_back(i);
      } else {
        input[i] = "zero" + u(i);  // a link to a later cell reads the previous pass: zeros, as the CPU Trainer
      }
    }
  }

  void allocate_all() {
    G.add("x", uint64_t(t_.input_) * 4);
    G.add("t", uint64_t(t_.output_) * 4);
    G.add("hyper", 16);
    G.add("loss", 4);
    for (uint32_t i = 0; i < net_.size(); ++i) {
      allocate(net_.at(i), u(i), true);
      if (input[i] != "x") G.add((input[i][0] == 'z' ? "zero" : "dx") + u(i), uint64_t(layer_input_size(net_.at(i))) * 4);
    }
  }

  // Per layer (tag = path): y (output), dy (its gradient), z / dz (pre-activations), parameters
  // with gradients and moments; containers' branches get their own y / dy (kept for backward)
  // and an input-gradient buffer dxb where branches' input gradients are summed.
  void allocate(Layer& l, const std::string& tag, bool own_y) {

    const uint64_t out = layer_output_size(l);
    if (own_y) {
      G.add("y" + tag, out * 4);
      G.add("dy" + tag, out * 4);
    }
    if (is_container(l)) {
      const size_t nc = l.children.size();
      for (size_t c = 0; c < nc; ++c) {
        const std::string ct = tag + "." + u(c);
        // Sequential / Residual: all but the last child own their output; Parallel: Add
        // branches after the first own theirs, Concat branches write windows of the parent's.
        const bool chain = l.type != LayerType::Parallel;
        const bool owns = chain ? c + 1 < nc : l.combine == Combine::Add && c > 0;
        allocate(l.children[c], ct, owns);
        if (l.type == LayerType::Parallel && c > 0) G.add("dxb" + ct, uint64_t(layer_input_size(l)) * 4);
      }
      return;
    }
    if (is_matvec(l)) {
      G.add("z" + tag, out * 4);
      G.add("dz" + tag, out * 4);
    }
    if (l.type == LayerType::SwiGLU) {
      for (const char* t : {"a", "b", "h", "da", "db", "dh"}) G.add(t + tag, uint64_t(l.seq) * l.out * 4);
      G.add("dxs" + tag, uint64_t(l.seq) * l.in * 4);
    }
    if (l.type == LayerType::KMeans)
      for (const char* t : {"km", "dkm"}) G.add(t + tag, uint64_t(l.seq) * l.out * 4);
    if (is_recurrent(l)) {
      const uint64_t T = l.seq, H = l.out, GH = uint64_t(rnn_gates(l)) * H;
      for (const char* t : {"gx", "ax", "ah"}) G.add(t + tag, T * GH * 4);
      G.add("gh" + tag, GH * 4);
      G.add("st" + tag, T * rnn_stored(l) * H * 4);
      G.add("hp" + tag, T * H * 4);
      for (const char* t : {"c", "dhn", "dcn", "dhd"}) G.add(t + tag, H * 4);
    }
    if (l.type == LayerType::MHA) {
      for (const char* t : {"q", "k", "v", "o", "dq", "dk", "dv", "do", "dxs"}) G.add(t + tag, uint64_t(l.seq) * l.in * 4);
      for (const char* t : {"pa", "da"}) G.add(t + tag, uint64_t(l.heads) * l.seq * l.seq * 4);
    }
    Leaf leaf{tag, {}};
    for (const WeightStore& m : l.mats) leaf.sizes.push_back(uint32_t(m.master().size()));
    for (const auto& v : l.vecs) leaf.sizes.push_back(uint32_t(v.size()));
    for (uint32_t j = 0; j < leaf.sizes.size(); ++j)
      for (const char* k : {"p", "g", "m", "v", "a"}) G.add(pname(k, tag, j), uint64_t(leaf.sizes[j]) * 4);
    t_.leaves_.push_back(leaf);
    leaf_layers_.push_back(&l);
  }

  // A stage of kernel k with its arguments; reads / writes: what it touches beyond them.
  void stage(std::string name, const char* k, uint32_t groups, std::vector<StageArg> args, std::vector<Buf> reads = {},
             std::vector<Buf> writes = {}) {

    StageSpec s;
    s.name = std::move(name);
    s.kernel = weft_volumetric_kernels.get(k);
    s.instance = inst_;
    s.groups = {groups, 1, 1};
    s.args = std::move(args);
    for (auto& b : reads) s.reads.push_back(r(b));
    for (auto& b : writes) s.writes.push_back(r(b));
    p_.add_stage(s);
  }

  void copy(const std::string& name, const Buf& from, const Buf& to, bool acc) {

    std::vector<Buf> reads;
    if (acc) reads.push_back(to);
    stage(name, "copy", grid_stride_groups(to.words, kGroupSize), CopyArgs{.src = r(from), .dst = r(to), .count = to.words, .accumulate = acc ? 1u : 0u}.bind(),
          reads);
  }

  // A dense_train stage without bias, activation or pre-activations (a linear projection of
  // P positions, mode 0): y = W x.
  void projection(std::string name, const Buf& W, const Buf& x, const Buf& y, uint32_t rows, uint32_t cols, uint32_t P) {

    stage(std::move(name), "dense_train", grid_stride_groups(uint64_t(rows) * P, kGroupSize),
          DenseTrainArgs{.weights = r(W), .scales = r(W), .bias = absent, .x = r(x), .y = r(y), .rows = rows, .cols = cols,
                         .row_words = cols, .act = 0u, .z = absent, .mode = 0u, .positions = P}
              .bind());
  }

  // A dense_backward stage (phase 0 dz and grad_b, 1 dx, 2 grad_w; see volumetric_args.h): the
  // buffers the phase does not touch are absent; dz (a word index) is declared by the phase.
  void dense_backward(std::string name, uint32_t phase, uint32_t groups, const Geometry& g, uint32_t act, const Buf& W, const Buf& z,
                      const Buf& dy, const Buf& dz, const Buf& x, const Buf* dx, const Buf& gW, const Buf& gb) {

    auto in_if = [&](bool used, const Buf& b) { return used ? GIn(r(b)) : GIn(absent); };
    auto out_if = [&](bool used, const Buf* b) { return used ? GOut(r(*b)) : GOut(absent); };
    const DenseBackwardArgs a{.phase = phase, .weights = in_if(phase == 1, W), .z = in_if(phase == 0, z), .dy = in_if(phase == 0, dy),
                              .dz = w(dz), .x = in_if(phase == 2, x), .dx = out_if(phase == 1, dx), .grad_w = out_if(phase == 2, &gW),
                              .grad_b = out_if(phase == 0, &gb), .rows = g.rows, .cols = g.cols, .act = act, .mode = g.backward_mode(),
                              .positions = g.P, .height = g.height, .width = g.width, .ksize = g.ksize, .out_width = g.out_width,
                              .depth = g.depth, .out_height = g.out_height};
    if (phase == 0) stage(std::move(name), "dense_backward", groups, a.bind(), {}, {dz});
    else stage(std::move(name), "dense_backward", groups, a.bind(), {dz});
  }

  // The output buffer of child c of container l (tag), given the container's output `out`.
  Buf child_out(const Layer& l, const std::string& tag, size_t c, const Buf& out) const {

    const std::string ct = tag + "." + u(c);
    const size_t nc = l.children.size();
    if (l.type != LayerType::Parallel) return c + 1 < nc ? whole("y" + ct) : out;
    if (l.combine == Combine::Add) return c == 0 ? out : whole("y" + ct);
    uint32_t off = 0;
    for (size_t k = 0; k < c; ++k) off += layer_output_size(l.children[k]);
    return Buf{out.seg, out.off + off, layer_output_size(l.children[c])};
  }

  // The gradient of child c's output, given the container's output gradient `dy`.
  Buf child_dy(const Layer& l, const std::string& tag, size_t c, const Buf& dy) const {

    const std::string ct = tag + "." + u(c);
    if (l.type != LayerType::Parallel) return c + 1 < l.children.size() ? whole("dy" + ct) : dy;
    if (l.combine == Combine::Add) return dy;
    uint32_t off = 0;
    for (size_t k = 0; k < c; ++k) off += layer_output_size(l.children[k]);
    return Buf{dy.seg, dy.off + off, layer_output_size(l.children[c])};
  }

  // ---- forward ----
  void forward(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    if (is_container(l)) forward_container(l, tag, in, out);
    else if (l.type == LayerType::Embedding) forward_embedding(l, tag, in, out);
    else if (l.type == LayerType::KMeans) forward_kmeans(l, tag, in, out);
    else if (is_recurrent(l)) forward_recurrent(l, tag, in, out);
    else if (l.type == LayerType::MHA) forward_mha(l, tag, in, out);
    else if (l.type == LayerType::SwiGLU) forward_swiglu(l, tag, in, out);
    else if (is_matvec(l)) forward_matvec(l, tag, in, out);
    else if (l.type == LayerType::Softmax) forward_softmax(l, tag, in, out);
    else forward_norm(l, tag, in, out);
  }

  void forward_container(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    Buf cur = in;
    for (size_t c = 0; c < l.children.size(); ++c) {
      const Buf o = child_out(l, tag, c, out);
      forward(l.children[c], tag + "." + u(c), l.type == LayerType::Parallel ? in : cur, o);
      if (l.type == LayerType::Parallel && l.combine == Combine::Add && c > 0) copy("forward.add" + tag + "." + u(c), o, out, true);
      cur = o;
    }
    if (l.type == LayerType::Residual) copy("forward.residual" + tag, in, out, true);
  }

  void forward_embedding(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    const Buf E = whole(pname("p", tag, 0));
    stage("forward.embedding" + tag, "embedding_train", grid_stride_groups(uint64_t(l.seq) * l.out, kGroupSize),
          EmbeddingTrainArgs{.table = r(E), .scales = r(E), .x = r(in), .y = r(out), .seq = l.seq, .dim = l.out, .row_words = l.out,
                             .vocab = l.vocab}
              .bind());
  }

  void forward_kmeans(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    const Buf C = whole(pname("p", tag, 0)), km = whole("km" + tag);
    stage("forward.kmeans" + tag, "kmeans_train", grid_stride_groups(uint64_t(l.seq) * l.out, kGroupSize),
          KMeansTrainArgs{.centroids = r(C), .scales = r(C), .x = r(in), .scores = r(km), .seq = l.seq, .width = l.in, .k = l.out,
                          .row_words = l.in}
              .bind());
    stage("forward.kmeans_softmax" + tag, "softmax", grid_stride_groups(l.seq, kGroupSize), SoftmaxArgs{.x = r(km), .y = r(out), .rows = l.seq, .n = l.out}.bind());
  }

  void forward_recurrent(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    // gx = Wx x for all tokens; per step gh = Wh h_{t-1} and the cell (keeping its states);
    // then hp = h shifted by one step (h_{t-1} rows) for Wh's gradient.
    const uint32_t T = l.seq, H = l.out, GH = rnn_gates(l) * H, kind = rnn_kind(l);
    const Buf Wx = whole(pname("p", tag, 0)), Wh = whole(pname("p", tag, 1)), b = whole(pname("p", tag, 2));
    const Buf bh = kind == 1 ? whole(pname("p", tag, 3)) : b;
    const Buf gx = whole("gx" + tag), gh = whole("gh" + tag), c = whole("c" + tag), st = whole("st" + tag);
    projection("forward.rnn_wx" + tag, Wx, in, gx, GH, l.in, T);
    for (uint32_t t = 0; t < T; ++t) {
      if (t) projection("forward.rnn_wh" + tag + "." + u(t), Wh, Buf{out.seg, out.off + (t - 1) * H, H}, gh, GH, H, 1);
      // y is out's first word; the cell reads and writes rows of out (declared whole).
      stage("forward.rnn_cell" + tag + "." + u(t), "recurrent_cell_train", grid_stride_groups(H, kGroupSize),
            RecurrentCellTrainArgs{.gx = r(gx), .gh = r(gh), .y = w(out), .c = r(c), .bias = r(b), .bias_h = r(bh), .t = t, .hidden = H,
                                   .kind = kind, .store = r(st)}
                .bind(),
            {out}, {out});
    }
    if (T > 1) copy("forward.rnn_hprev" + tag, Buf{out.seg, out.off, (T - 1) * H}, Buf{"hp" + tag, H, (T - 1) * H}, false);
  }

  void forward_mha(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    // q, k, v = W x per token, the attention core, y = Wo o (no bias, linear projections).
    const char* names[3] = {"q", "k", "v"};
    for (uint32_t m = 0; m < 3; ++m)
      projection("forward.mha_" + std::string(names[m]) + tag, whole(pname("p", tag, m)), in, whole(names[m] + tag), l.in, l.in, l.seq);
    const Buf q = whole("q" + tag), k = whole("k" + tag), v = whole("v" + tag), o = whole("o" + tag), Wo = whole(pname("p", tag, 3));
    stage("forward.mha_attention" + tag, "attention", grid_stride_groups(uint64_t(l.seq) * l.heads, kGroupSize),
          AttentionArgs{.q = r(q), .k = r(k), .v = r(v), .o = r(o), .seq = l.seq, .d = l.in, .heads = l.heads}.bind());
    projection("forward.mha_out" + tag, Wo, o, out, l.in, l.in, l.seq);
  }

  void forward_swiglu(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    // a = W1 x, b = W3 x, h = silu(a) b, y = W2 h (no bias, linear projections).
    const Buf W1 = whole(pname("p", tag, 0)), W3 = whole(pname("p", tag, 1)), W2 = whole(pname("p", tag, 2));
    const Buf a = whole("a" + tag), b = whole("b" + tag), h = whole("h" + tag);
    for (int m = 0; m < 2; ++m) projection("forward.swiglu_proj" + tag + "." + u(m), m ? W3 : W1, in, m ? b : a, l.out, l.in, l.seq);
    stage("forward.swiglu_gate" + tag, "swiglu_gate", grid_stride_groups(uint64_t(l.seq) * l.out, kGroupSize),
          SwigluGateArgs{.a = r(a), .b = r(b), .h = r(h), .count = l.seq * l.out}.bind());
    projection("forward.swiglu_down" + tag, W2, h, out, l.in, l.out, l.seq);
  }

  void forward_matvec(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    const Geometry g = geometry(l);
    const Buf W = whole(pname("p", tag, 0)), b = whole(pname("p", tag, 1)), z = whole("z" + tag);
    stage("forward." + std::string(layer_type_name(l.type)) + tag, "dense_train", grid_stride_groups(uint64_t(g.rows) * g.P, kGroupSize),
          DenseTrainArgs{.weights = r(W), .scales = r(W), .bias = r(b), .x = r(in), .y = r(out), .rows = g.rows, .cols = g.cols,
                         .row_words = g.cols, .act = uint32_t(l.act), .z = r(z), .mode = g.mode, .positions = g.P, .height = g.height,
                         .width = g.width, .ksize = g.ksize, .out_width = g.out_width, .depth = g.depth, .out_height = g.out_height,
                         .transposed = g.transposed, .dims = g.dims}
              .bind());
  }

  void forward_softmax(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    stage("forward.softmax" + tag, "softmax", grid_stride_groups(l.seq, kGroupSize), SoftmaxArgs{.x = r(in), .y = r(out), .rows = l.seq, .n = l.in}.bind());
  }

  void forward_norm(Layer& l, const std::string& tag, const Buf& in, const Buf& out) {
    const bool ln = l.type == LayerType::LayerNorm;
    const Buf g = whole(pname("p", tag, 0)), beta = ln ? whole(pname("p", tag, 1)) : g;
    stage("forward.norm" + tag, "norm_train", grid_stride_groups(l.seq, kGroupSize),
          NormTrainArgs{.x = r(in), .y = r(out), .gain = r(g), .beta = r(beta), .rows = l.seq, .n = l.in, .eps = l.eps, .layer = ln ? 1u : 0u}
              .bind());
  }

  // ---- backward ----
  // Backward of layer l: from dy (gradient of its output `out`) to dx (of its input `in`;
  // none when dx is null), adding nothing: every buffer written has one writer per step.
  void backward(Layer& l, const std::string& tag, const Buf& in, const Buf& out, const Buf& dy, const Buf* dx) {
    if (is_container(l)) backward_container(l, tag, in, out, dy, dx);
    else if (l.type == LayerType::Embedding) backward_embedding(l, tag, in, out, dy, dx);
    else if (l.type == LayerType::KMeans) backward_kmeans(l, tag, in, out, dy, dx);
    else if (is_recurrent(l)) backward_recurrent(l, tag, in, out, dy, dx);
    else if (l.type == LayerType::MHA) backward_mha(l, tag, in, out, dy, dx);
    else if (l.type == LayerType::SwiGLU) backward_swiglu(l, tag, in, out, dy, dx);
    else if (is_matvec(l)) backward_matvec(l, tag, in, out, dy, dx);
    else if (l.type == LayerType::Softmax) backward_softmax(l, tag, in, out, dy, dx);
    else backward_norm(l, tag, in, out, dy, dx);
  }

  void backward_container(Layer& l, const std::string& tag, const Buf& in, const Buf& out, const Buf& dy, const Buf* dx) {
    const size_t nc = l.children.size();
    if (l.type == LayerType::Parallel) {
      // Every branch from its own activations; branch input gradients summed into dx.
      for (size_t c = 0; c < nc; ++c) {
        const std::string ct = tag + "." + u(c);
        const Buf bdx = c == 0 || !dx ? (dx ? *dx : Buf{}) : whole("dxb" + ct);
        backward(l.children[c], ct, in, child_out(l, tag, c, out), child_dy(l, tag, c, dy), dx ? &bdx : nullptr);
        if (dx && c > 0) copy("backward.parallel_dx" + ct, bdx, *dx, true);
      }
      return;
    }
    for (size_t c = nc; c-- > 0;) {
      const std::string ct = tag + "." + u(c);
      const Buf cin = c ? child_out(l, tag, c - 1, out) : in;
      const Buf cdx = c ? child_dy(l, tag, c - 1, dy) : (dx ? *dx : Buf{});
      backward(l.children[c], ct, cin, child_out(l, tag, c, out), child_dy(l, tag, c, dy), c || dx ? &cdx : nullptr);
    }
    if (l.type == LayerType::Residual && dx) copy("backward.residual" + tag, dy, *dx, true);
  }

  void backward_embedding(Layer& l, const std::string& tag, const Buf& in, const Buf& /*out*/, const Buf& dy, const Buf* dx) {
    const bool has_dx = dx != nullptr;
    const Buf dxb = dx ? *dx : Buf{"x", 0, 0};
    const Buf gE = whole(pname("g", tag, 0));
    stage("backward.embedding" + tag, "embedding_backward", grid_stride_groups(uint64_t(l.vocab) * l.out + l.seq, kGroupSize),
          EmbeddingBackwardArgs{.x = r(in), .dy = r(dy), .grad = r(gE), .seq = l.seq, .dim = l.out, .vocab = l.vocab,
                                .dx = has_dx ? Out<Binding::Globals>(r(dxb)) : Out<Binding::Globals>(absent)}
              .bind());
  }

  void backward_kmeans(Layer& l, const std::string& tag, const Buf& in, const Buf& out, const Buf& dy, const Buf* dx) {
    const bool has_dx = dx != nullptr;
    const Buf dxb = dx ? *dx : Buf{"x", 0, 0};
    const Buf C = whole(pname("p", tag, 0)), gC = whole(pname("g", tag, 0)), dkm = whole("dkm" + tag);
    stage("backward.kmeans_softmax" + tag, "softmax_backward", grid_stride_groups(l.seq, kGroupSize),
          SoftmaxBackwardArgs{.y = r(out), .dy = r(dy), .dx = r(dkm), .rows = l.seq, .n = l.out}.bind());
    // Phase 0 writes grad_c, phase 1 dx; the other output is absent.
    auto args = [&](uint32_t phase) {
      return KMeansBackwardArgs{.phase = phase, .x = r(in), .centroids = r(C), .ds = r(dkm),
                                .grad_c = phase == 0 ? Out<Binding::Globals>(r(gC)) : Out<Binding::Globals>(absent),
                                .dx = phase == 1 ? Out<Binding::Globals>(r(dxb)) : Out<Binding::Globals>(absent), .seq = l.seq,
                                .width = l.in, .k = l.out}
          .bind();
    };
    stage("backward.kmeans_dc" + tag, "kmeans_backward", grid_stride_groups(uint64_t(l.out) * l.in, kGroupSize), args(0));
    if (has_dx) stage("backward.kmeans_dx" + tag, "kmeans_backward", grid_stride_groups(uint64_t(l.seq) * l.in, kGroupSize), args(1));
  }

  void backward_recurrent(Layer& l, const std::string& tag, const Buf& in, const Buf& out, const Buf& dy, const Buf* dx) {
    const bool has_dx = dx != nullptr;
    const Buf dxb = dx ? *dx : Buf{"x", 0, 0};
    const uint32_t T = l.seq, H = l.out, GH = rnn_gates(l) * H, kind = rnn_kind(l);
    const Buf Wx = whole(pname("p", tag, 0)), Wh = whole(pname("p", tag, 1));
    const Buf gWx = whole(pname("g", tag, 0)), gWh = whole(pname("g", tag, 1)), gb = whole(pname("g", tag, 2));
    const Buf st = whole("st" + tag), ax = whole("ax" + tag), ah = whole("ah" + tag), hp = whole("hp" + tag);
    const Buf dhn = whole("dhn" + tag), dcn = whole("dcn" + tag), dhd = whole("dhd" + tag);
    // dense_backward for W (rows GH x cols) over P positions (mode 0, linear): the gradient a
    // (ax / ah) is dy, z and dz at once (phase 0 turns it into the bias gradient in place).
    auto db = [&](std::string name, uint32_t phase, uint32_t groups, const Buf& W, uint32_t cols, const Buf& a, const Buf& x,
                  const Buf* dxo, const Buf& g, uint32_t P) {
      dense_backward(std::move(name), phase, groups, Geometry{GH, cols, P}, 0u, W, a, a, a, x, dxo, g, g);
    };
    for (uint32_t t = T; t-- > 0;) {
      stage("backward.rnn_step" + tag + "." + u(t), "rnn_step_backward", grid_stride_groups(H, kGroupSize),
            RnnStepBackwardArgs{.kind = kind, .t = t, .steps = T, .hidden = H, .dy = r(dy), .store = r(st), .y = r(out), .dh_next = r(dhn),
                                .dc_next = r(dcn), .ax = r(ax), .ah = r(ah), .dhd = r(dhd)}
                .bind());
      if (t) {
        db("backward.rnn_dh" + tag + "." + u(t), 1, grid_stride_groups(H, kGroupSize), Wh, H, Buf{ah.seg, t * GH, GH}, hp, &dhn, gWh, 1);
        if (kind == 1) copy("backward.rnn_direct" + tag + "." + u(t), dhd, dhn, true);
      }
    }
    if (has_dx) db("backward.rnn_dx" + tag, 1, grid_stride_groups(uint64_t(T) * l.in, kGroupSize), Wx, l.in, ax, in, &dxb, gWx, T);
    db("backward.rnn_dwx" + tag, 2, grid_stride_groups(uint64_t(GH) * l.in, kGroupSize), Wx, l.in, ax, in, nullptr, gWx, T);
    db("backward.rnn_dwh" + tag, 2, grid_stride_groups(uint64_t(GH) * H, kGroupSize), Wh, H, ah, hp, nullptr, gWh, T);
    db("backward.rnn_db" + tag, 0, grid_stride_groups(GH, kGroupSize), Wx, l.in, ax, in, nullptr, gb, T);
    if (kind == 1) db("backward.rnn_dbh" + tag, 0, grid_stride_groups(GH, kGroupSize), Wh, H, ah, hp, nullptr, whole(pname("g", tag, 3)), T);
  }

  void backward_mha(Layer& l, const std::string& tag, const Buf& in, const Buf& /*out*/, const Buf& dy, const Buf* dx) {
    const bool has_dx = dx != nullptr;
    const Buf dxb = dx ? *dx : Buf{"x", 0, 0};
    // A linear projection without bias: dz is the incoming gradient d itself (phase 0 skipped).
    auto proj = [&](const std::string& name, const Buf& Wm, const Buf& x, const Buf& d, const Buf* dxo, const Buf& gm) {
      const Geometry g{l.in, l.in, l.seq};
      if (dxo) dense_backward(name + "_dx" + tag, 1, grid_stride_groups(uint64_t(l.seq) * l.in, kGroupSize), g, 0u, Wm, d, d, d, x, dxo, gm, gm);
      dense_backward(name + "_dw" + tag, 2, grid_stride_groups(uint64_t(l.in) * l.in, kGroupSize), g, 0u, Wm, d, d, d, x, dxo, gm, gm);
    };
    const Buf q = whole("q" + tag), k = whole("k" + tag), v = whole("v" + tag), o = whole("o" + tag);
    const Buf dq = whole("dq" + tag), dk = whole("dk" + tag), dv = whole("dv" + tag), dO = whole("do" + tag);
    const Buf pa = whole("pa" + tag), da = whole("da" + tag), dxs = whole("dxs" + tag);
    proj("backward.mha_out", whole(pname("p", tag, 3)), o, dy, &dO, whole(pname("g", tag, 3)));
    // Phase 0 reads q, k, v, do and writes dq, pa, da; phase 1 reads q, do, pa, da and writes
    // dk, dv (the arguments a phase does not touch are absent; pa, da are word indices).
    auto att = [&](uint32_t phase) {
      using GIn = In<Binding::Globals>;
      using GOut = Out<Binding::Globals>;
      const bool p0 = phase == 0;
      return AttentionBackwardArgs{.phase = phase, .q = r(q), .k = p0 ? GIn(r(k)) : GIn(absent), .v = p0 ? GIn(r(v)) : GIn(absent),
                                   .dout = r(dO), .dq = p0 ? GOut(r(dq)) : GOut(absent), .dk = p0 ? GOut(absent) : GOut(r(dk)),
                                   .dv = p0 ? GOut(absent) : GOut(r(dv)), .probs = w(pa), .dscores = w(da), .seq = l.seq, .d = l.in,
                                   .heads = l.heads}
          .bind();
    };
    stage("backward.mha_attention_q" + tag, "attention_backward", grid_stride_groups(uint64_t(l.seq) * l.heads, kGroupSize), att(0), {}, {pa, da});
    stage("backward.mha_attention_kv" + tag, "attention_backward", grid_stride_groups(uint64_t(l.seq) * l.heads, kGroupSize), att(1), {pa, da});
    const Buf* grads[3] = {&dq, &dk, &dv};
    const char* names[3] = {"q", "k", "v"};
    for (uint32_t m = 0; m < 3; ++m) {
      const Buf* dxo = !has_dx ? nullptr : m == 0 ? &dxb : &dxs;
      proj(std::string("backward.mha_w") + names[m], whole(pname("p", tag, m)), in, *grads[m], dxo, whole(pname("g", tag, m)));
      if (has_dx && m > 0) copy("backward.mha_dx" + tag + "." + u(m), dxs, dxb, true);
    }
  }

  void backward_swiglu(Layer& l, const std::string& tag, const Buf& in, const Buf& /*out*/, const Buf& dy, const Buf* dx) {
    const bool has_dx = dx != nullptr;
    const Buf dxb = dx ? *dx : Buf{"x", 0, 0};
    const Buf W1 = whole(pname("p", tag, 0)), W3 = whole(pname("p", tag, 1)), W2 = whole(pname("p", tag, 2));
    const Buf g1 = whole(pname("g", tag, 0)), g3 = whole(pname("g", tag, 1)), g2 = whole(pname("g", tag, 2));
    const Buf a = whole("a" + tag), b = whole("b" + tag), h = whole("h" + tag), da = whole("da" + tag), db = whole("db" + tag),
              dh = whole("dh" + tag), dxs = whole("dxs" + tag);
    // A linear projection without bias: dz is the incoming gradient itself (phase 0 skipped).
    auto proj = [&](const std::string& name, const Buf& Wm, const Buf& x, const Buf& d, const Buf* dxo, const Buf& gm, uint32_t rows,
                    uint32_t cols) {
      const Geometry g{rows, cols, l.seq};
      if (dxo) dense_backward(name + "_dx" + tag, 1, grid_stride_groups(uint64_t(l.seq) * cols, kGroupSize), g, 0u, Wm, d, d, d, x, dxo, gm, gm);
      dense_backward(name + "_dw" + tag, 2, grid_stride_groups(uint64_t(rows) * cols, kGroupSize), g, 0u, Wm, d, d, d, x, dxo, gm, gm);
    };
    proj("backward.swiglu_down", W2, h, dy, &dh, g2, l.in, l.out);
    stage("backward.swiglu_gate" + tag, "swiglu_gate_backward", grid_stride_groups(uint64_t(l.seq) * l.out, kGroupSize),
          SwigluGateBackwardArgs{.a = r(a), .b = r(b), .dh = r(dh), .da = r(da), .db = r(db), .count = l.seq * l.out}.bind());
    proj("backward.swiglu_w1", W1, in, da, has_dx ? &dxb : nullptr, g1, l.out, l.in);
    proj("backward.swiglu_w3", W3, in, db, has_dx ? &dxs : nullptr, g3, l.out, l.in);
    if (has_dx) copy("backward.swiglu_dx" + tag, dxs, dxb, true);
  }

  void backward_matvec(Layer& l, const std::string& tag, const Buf& in, const Buf& /*out*/, const Buf& dy, const Buf* dx) {
    const bool has_dx = dx != nullptr;
    const Buf dxb = dx ? *dx : Buf{"x", 0, 0};
    const Buf W = whole(pname("p", tag, 0)), z = whole("z" + tag), dz = whole("dz" + tag), gW = whole(pname("g", tag, 0)),
              gb = whole(pname("g", tag, 1));
    const Geometry g = geometry(l);
    const std::string kind = layer_type_name(l.type);
    const uint32_t act = uint32_t(l.act);
    const Buf* dxo = has_dx ? &dxb : nullptr;
    dense_backward("backward." + kind + "_dz" + tag, 0, grid_stride_groups(g.rows, kGroupSize), g, act, W, z, dy, dz, in, dxo, gW, gb);
    if (has_dx) dense_backward("backward." + kind + "_dx" + tag, 1, grid_stride_groups(layer_input_size(l), kGroupSize), g, act, W, z, dy, dz, in, dxo, gW, gb);
    dense_backward("backward." + kind + "_dw" + tag, 2, grid_stride_groups(uint64_t(g.rows) * g.cols, kGroupSize), g, act, W, z, dy, dz, in, dxo, gW, gb);
  }

  void backward_softmax(Layer& l, const std::string& tag, const Buf& /*in*/, const Buf& out, const Buf& dy, const Buf* dx) {
    const bool has_dx = dx != nullptr;
    const Buf dxb = dx ? *dx : Buf{"x", 0, 0};
    if (has_dx)
      stage("backward.softmax" + tag, "softmax_backward", grid_stride_groups(l.seq, kGroupSize),
            SoftmaxBackwardArgs{.y = r(out), .dy = r(dy), .dx = r(dxb), .rows = l.seq, .n = l.in}.bind());
  }

  void backward_norm(Layer& l, const std::string& tag, const Buf& in, const Buf& /*out*/, const Buf& dy, const Buf* dx) {
    const bool has_dx = dx != nullptr;
    const Buf dxb = dx ? *dx : Buf{"x", 0, 0};
    const bool ln = l.type == LayerType::LayerNorm;
    const Buf g = whole(pname("p", tag, 0)), gg = whole(pname("g", tag, 0)), gbeta = ln ? whole(pname("g", tag, 1)) : gg;
    // Phase 0 (dx) reads the gain; phase 1 writes grad_gain and grad_beta (grad_gain again for
    // RMSNorm, which has no beta); what a phase does not touch is absent.
    auto args = [&](uint32_t phase) {
      using GIn = In<Binding::Globals>;
      using GOut = Out<Binding::Globals>;
      const bool p0 = phase == 0;
      return NormBackwardArgs{.phase = phase, .x = r(in), .dy = r(dy), .dx = p0 ? GOut(r(dxb)) : GOut(absent),
                              .gain = p0 ? GIn(r(g)) : GIn(absent), .grad_gain = p0 ? GOut(absent) : GOut(r(gg)),
                              .grad_beta = p0 ? GOut(absent) : GOut(r(gbeta)), .rows = l.seq, .n = l.in, .eps = l.eps,
                              .layer = ln ? 1u : 0u}
          .bind();
    };
    if (has_dx) stage("backward.norm_dx" + tag, "norm_backward", grid_stride_groups(l.seq, kGroupSize), args(0));
    stage("backward.norm_dg" + tag, "norm_backward", grid_stride_groups(l.in, kGroupSize), args(1));
  }

  void loss() {
    const uint32_t n = net_.size();
    const std::string last = u(n - 1);
    stage("loss", t_.o_.loss == Loss::CrossEntropy ? "cross_entropy_grad" : "loss_grad", 1,
          LossGradArgs{.y = r(whole("y" + last)), .target = r(whole("t")), .dy = r(whole("dy" + last)), .loss = r(whole("loss")), .n = t_.output_}
              .bind());
  }

  // Backward, last cell first: a cell's output gradient is the sum of its consumers' input
  // gradients (the last cell's comes from the loss), then its own backward.
  void backward_all() {
    for (uint32_t i = net_.size(); i-- > 0;) {
      const std::string ti = u(i);
      for (size_t c = 0; c < consumers[i].size(); ++c)
        copy("backward.gather" + ti + "." + u(c), whole("dx" + u(consumers[i][c])), whole("dy" + ti), c > 0);
      const Buf dx = input[i][0] == 'y' ? whole("dx" + ti) : Buf{};
      backward(net_.at(i), ti, whole(input[i]), whole("y" + ti), whole("dy" + ti), input[i][0] == 'y' ? &dx : nullptr);
    }
  }

  // The optimiser, after every backward read of the parameters.
  void optimizer() {
    for (const Leaf& lf : t_.leaves_)
      for (uint32_t j = 0; j < lf.sizes.size(); ++j)
        stage("optimizer" + lf.tag + "." + u(j), "optimizer", grid_stride_groups(lf.sizes[j], kGroupSize),
              OptimizerArgs{.p = r(whole(pname("p", lf.tag, j))), .g = r(whole(pname("g", lf.tag, j))), .m = r(whole(pname("m", lf.tag, j))),
                            .v = r(whole(pname("v", lf.tag, j))), .acc = r(whole(pname("a", lf.tag, j))), .count = lf.sizes[j], .adam = t_.o_.optimizer == Optimizer::Adam ? 1u : 0u,
                            .hyper = r(whole("hyper")), .beta1 = t_.o_.beta1, .beta2 = t_.o_.beta2}
                  .bind());
  }

  Network& net_;
  DeviceTrainer& t_;
  Program p_;
  SegmentLayout& G;
  InstanceId inst_;
  std::vector<std::string> input;                // per cell: the segment it reads
  std::vector<std::vector<uint32_t>> consumers;  // per cell: the cells that read it
  std::vector<Layer*> leaf_layers_;              // beside t_.leaves_
};

void DeviceTrainer::Builder::upload(Executable& exe) const {
  auto zero = [&](const std::string& seg) {
    const std::vector<float> zeros(exe.program().globals().at(seg).size / 4, 0.0f);
    exe.write_segment(Binding::Globals, seg, zeros.data(), zeros.size() * 4);
  };
  for (const Leaf& lf : t_.leaves_)
    if (exe.program().globals().contains("hp" + lf.tag)) zero("hp" + lf.tag);  // h_{-1} = 0
  for (uint32_t i = 0; i < net_.size(); ++i) {
    // Zero inputs of links to later cells; zero output gradients of cells nobody reads.
    if (input[i][0] == 'z') zero(input[i]);
    if (consumers[i].empty() && i + 1 < net_.size()) zero("dy" + u(i));
  }
  for (size_t k = 0; k < t_.leaves_.size(); ++k) {
    const Layer& l = *leaf_layers_[k];
    uint32_t j = 0;
    for (const WeightStore& ws_ : l.mats)
      exe.write_segment(Binding::Globals, pname("p", t_.leaves_[k].tag, j++), ws_.master().data(), ws_.master().size() * 4);
    for (const auto& v : l.vecs) exe.write_segment(Binding::Globals, pname("p", t_.leaves_[k].tag, j++), v.data(), v.size() * 4);
    for (j = 0; j < t_.leaves_[k].sizes.size(); ++j) {
      zero(pname("m", t_.leaves_[k].tag, j));
      zero(pname("v", t_.leaves_[k].tag, j));
      zero(pname("a", t_.leaves_[k].tag, j));
    }
  }
}

DeviceTrainer::DeviceTrainer(Device& device, Network& net, TrainOptions options) : o_(options) {
  check_train_options(options);
  net.validate();
  input_ = net.input_size();
  output_ = net.output_size();
  for (uint32_t i = 0; i < net.size(); ++i)
    if (!layer_trainable(net.at(i)))  // the CPU Trainer's set: every kind has a device backward too
      fail(ErrorCode::BadInput, "volumetric: device training: " + net.where(i) + " is " + layer_type_name(net.at(i).type) +
                                    " (device training takes dense, every convolution, embedding, swiglu, mha, rnn, gru, lstm, kmeans, rmsnorm, layernorm, softmax and containers of them)");
  Builder builder(net, *this);
  exe_ = std::make_unique<Executable>(device, builder.build());
  builder.upload(*exe_);
}

DeviceTrainer::~DeviceTrainer() = default;

float DeviceTrainer::step(const std::vector<float>& x, const std::vector<float>& target) { return step_batch({x}, {target}); }

// One replay per sample: hyper[3] = 0 makes the optimiser only add the gradients to its
// accumulators; the last sample's replay passes 1 / batch and takes the step.
float DeviceTrainer::step_batch(const std::vector<std::vector<float>>& xs, const std::vector<std::vector<float>>& targets) {
  check_batch(xs, targets, input_, output_, o_.loss);
  ++t_;
  const AdamFactors f = adam_factors(o_, t_);
  double sum = 0;
  for (size_t b = 0; b < xs.size(); ++b) {
    const float hyper[4] = {o_.lr, f.lr_t, f.eps_t, b + 1 == xs.size() ? 1.0f / float(xs.size()) : 0.0f};
    exe_->write_segment(Binding::Globals, "x", xs[b].data(), xs[b].size() * 4);
    exe_->write_segment(Binding::Globals, "t", targets[b].data(), targets[b].size() * 4);
    exe_->write_segment(Binding::Globals, "hyper", hyper, sizeof hyper);
    exe_->run();
    float loss = 0;
    exe_->read_segment(Binding::Globals, "loss", &loss, 4);
    sum += loss;
  }
  return float(sum / double(xs.size()));
}

void DeviceTrainer::download(Network& net) {
  size_t k = 0;
  std::function<void(Layer&)> walk = [&](Layer& l) {
    if (is_container(l)) {
      for (Layer& c : l.children) walk(c);
      return;
    }
    const std::string& tag = leaves_.at(k++).tag;
    uint32_t j = 0;
    for (WeightStore& m : l.mats) m.set_master(exe_->read_segment<float>(Binding::Globals, pname("p", tag, j++)));
    for (auto& v : l.vecs) v = exe_->read_segment<float>(Binding::Globals, pname("p", tag, j++));
  };
  for (uint32_t i = 0; i < net.size(); ++i) walk(net.at(i));
}

double DeviceTrainer::gpu_ns() { return exe_->timings().total_ns; }

}  // namespace weft::volumetric
