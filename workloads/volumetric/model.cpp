// The grid model: layer shapes, seeded initialisation, the 4-D grid and its validation.
#include "model.h"

#include <cmath>
#include <algorithm>
#include <random>

#include <weft/error.h>

namespace weft::volumetric {

namespace {

constexpr const char* kLayerNames[] = {"dense", "rmsnorm", "layernorm", "softmax", "embedding", "conv1d", "conv2d", "swiglu",
                                       "mha",   "rnn",     "gru",       "lstm",    "sequential", "parallel", "residual",
                                       "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "kmeans"};
constexpr const char* kActNames[] = {"linear", "relu", "tanh", "sigmoid", "silu"};

std::string u(uint64_t v) { return std::to_string(v); }

bool is_container(LayerType t) { return t == LayerType::Sequential || t == LayerType::Parallel || t == LayerType::Residual; }

}  // namespace

const char* layer_type_name(LayerType t) { return kLayerNames[uint32_t(t)]; }

LayerType parse_layer_type(const std::string& s) {
  for (uint32_t i = 0; i < std::size(kLayerNames); ++i)
    if (s == kLayerNames[i]) return LayerType(i);
  std::string known;
  for (const char* n : kLayerNames) known += std::string(known.empty() ? "" : ", ") + n;
  fail(ErrorCode::BadInput, "unknown layer type '" + s + "' (known: " + known + ")");
}

const char* activation_name(Activation a) { return kActNames[uint32_t(a)]; }

Activation parse_activation(const std::string& s) {
  for (uint32_t i = 0; i < std::size(kActNames); ++i)
    if (s == kActNames[i]) return Activation(i);
  fail(ErrorCode::BadInput, "unknown activation '" + s + "' (known: linear, relu, tanh, sigmoid, silu)");
}

bool is_conv(LayerType t) {
  return t == LayerType::Conv1D || t == LayerType::Conv2D || t == LayerType::Conv3D || t == LayerType::ConvT1D ||
         t == LayerType::ConvT2D || t == LayerType::ConvT3D;
}

ConvShape conv_shape(const Layer& l) {
  ConvShape s;
  s.C = l.channels;
  s.F = l.filters;
  s.K = l.kernel;
  s.transposed = l.type == LayerType::ConvT1D || l.type == LayerType::ConvT2D || l.type == LayerType::ConvT3D;
  s.dims = l.type == LayerType::Conv1D || l.type == LayerType::ConvT1D ? 1 : l.type == LayerType::Conv2D || l.type == LayerType::ConvT2D ? 2 : 3;
  s.Wi = s.dims == 1 ? l.seq : l.width;
  s.Hi = s.dims >= 2 ? l.height : 1;
  s.Di = s.dims == 3 ? l.depth : 1;
  auto out = [&](uint32_t in, bool used) -> uint32_t {
    if (!used) return 1;
    if (s.transposed) return in + s.K - 1;
    return in >= s.K ? in - s.K + 1 : 0;
  };
  s.Wo = out(s.Wi, true);
  s.Ho = out(s.Hi, s.dims >= 2);
  s.Do = out(s.Di, s.dims == 3);
  return s;
}

int64_t ConvShape::input_index(uint32_t q, uint32_t p) const {
  const uint32_t kv = taps() / C, c = q / kv, r = q % kv;
  const uint32_t kw = r % K, kh = dims >= 2 ? (r / K) % K : 0, kd = dims == 3 ? r / (K * K) : 0;
  const uint32_t pw = p % Wo, ph = (p / Wo) % Ho, pd = p / (Wo * Ho);
  int64_t d = pd, h = ph, w = pw;
  if (transposed) {
    d -= kd, h -= kh, w -= kw;
    if (d < 0 || h < 0 || w < 0 || d >= Di || h >= Hi || w >= Wi) return -1;
  } else {
    d += kd, h += kh, w += kw;
  }
  return ((int64_t(c) * Di + d) * Hi + h) * Wi + w;
}

uint32_t layer_input_size(const Layer& l) {
  if (is_conv(l.type) && l.type != LayerType::Conv1D && l.type != LayerType::Conv2D) {
    const ConvShape s = conv_shape(l);
    return s.C * s.Di * s.Hi * s.Wi;
  }
  switch (l.type) {
    case LayerType::Dense: return l.in;
    case LayerType::Embedding: return l.seq;
    case LayerType::Conv1D: return l.channels * l.seq;
    case LayerType::Conv2D: return l.channels * l.height * l.width;
    case LayerType::Sequential:
    case LayerType::Parallel:
    case LayerType::Residual: return l.children.empty() ? 0 : layer_input_size(l.children.front());
    default: return l.seq * l.in;  // norms, softmax, SwiGLU, MHA, RNN/GRU/LSTM
  }
}

uint32_t layer_output_size(const Layer& l) {
  if (is_conv(l.type) && l.type != LayerType::Conv1D && l.type != LayerType::Conv2D) {
    const ConvShape s = conv_shape(l);
    return s.F * s.positions();
  }
  switch (l.type) {
    case LayerType::Dense: return l.out;
    case LayerType::Embedding:
    case LayerType::KMeans:
    case LayerType::RNN:
    case LayerType::GRU:
    case LayerType::LSTM: return l.seq * l.out;
    case LayerType::Conv1D: return l.seq >= l.kernel ? l.filters * (l.seq - l.kernel + 1) : 0;
    case LayerType::Conv2D:
      return l.height >= l.kernel && l.width >= l.kernel ? l.filters * (l.height - l.kernel + 1) * (l.width - l.kernel + 1) : 0;
    case LayerType::Sequential: return l.children.empty() ? 0 : layer_output_size(l.children.back());
    case LayerType::Residual: return layer_input_size(l);
    case LayerType::Parallel: {
      if (l.children.empty()) return 0;
      if (l.combine == Combine::Add) return layer_output_size(l.children.front());
      uint32_t s = 0;
      for (const Layer& c : l.children) s += layer_output_size(c);
      return s;
    }
    default: return l.seq * l.in;
  }
}

void init_layer(Layer& l, uint32_t seed, const std::string& where) {
  std::mt19937 rng(seed * 2654435761u + 12345u);
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) fail(ErrorCode::BadInput, where + " (" + layer_type_name(l.type) + "): " + what);
  };
  auto mat = [&](uint32_t rows, uint32_t cols) {
    // Xavier-like: keeps activations O(1) through the layer.
    std::normal_distribution<float> d(0.0f, 1.0f / std::sqrt(float(cols)));
    std::vector<float> v(uint64_t(rows) * cols);
    for (float& x : v) x = d(rng);
    l.mats.emplace_back(rows, cols, std::move(v));
  };
  auto vec = [&](uint32_t n, float base, float spread) {
    std::uniform_real_distribution<float> d(-spread, spread);
    std::vector<float> v(n);
    for (float& x : v) x = base + d(rng);
    l.vecs.push_back(std::move(v));
  };
  // Sizes stay far from uint32 overflow and from allocations a model file should not ask for.
  constexpr uint64_t kMaxValues = uint64_t(1) << 26;
  const uint64_t dims[] = {l.in, l.out, l.seq, l.channels, l.filters, l.kernel, l.height, l.width, l.depth, l.heads, l.vocab};
  for (uint64_t d : dims) need(d <= kMaxValues, "a shape field is above 2^26");
  const uint64_t in64 = uint64_t(l.seq) * std::max<uint64_t>({l.in, l.channels, 1}) * std::max<uint64_t>(1, l.height) *
                        std::max<uint64_t>(1, l.width) * std::max<uint64_t>(1, l.depth);
  const uint64_t w64 = std::max({uint64_t(l.out) * std::max<uint64_t>(l.in, 1) * 4, uint64_t(l.vocab) * l.out,
                                 uint64_t(l.filters) * l.channels * l.kernel * l.kernel * l.kernel, uint64_t(l.in) * l.in * 4});
  need(in64 <= kMaxValues && w64 <= kMaxValues && uint64_t(l.seq) * l.out * 4 <= kMaxValues,
       "the layer's activations or weights would exceed 2^26 values");
  l.mats.clear();
  l.vecs.clear();
  switch (l.type) {
    case LayerType::Dense:
      need(l.in > 0 && l.out > 0, "in and out must be positive");
      mat(l.out, l.in);
      vec(l.out, 0.0f, 0.1f);
      break;
    case LayerType::RMSNorm:
    case LayerType::LayerNorm:
      need(l.in > 0 && l.seq > 0, "in and seq must be positive");
      need(l.eps > 0, "eps must be positive");
      vec(l.in, 1.0f, 0.2f);
      if (l.type == LayerType::LayerNorm) vec(l.in, 0.0f, 0.1f);
      break;
    case LayerType::Softmax: need(l.in > 0 && l.seq > 0, "in and seq must be positive"); break;
    case LayerType::Embedding:
      need(l.vocab > 0 && l.out > 0 && l.seq > 0, "vocab, out and seq must be positive");
      mat(l.vocab, l.out);
      break;
    case LayerType::Conv1D:
      need(l.channels > 0 && l.filters > 0 && l.kernel > 0 && l.seq >= l.kernel,
           "channels, filters, kernel must be positive and seq >= kernel");
      mat(l.filters, l.channels * l.kernel);
      vec(l.filters, 0.0f, 0.1f);
      break;
    case LayerType::Conv2D:
      need(l.channels > 0 && l.filters > 0 && l.kernel > 0 && l.height >= l.kernel && l.width >= l.kernel,
           "channels, filters, kernel must be positive and height, width >= kernel");
      mat(l.filters, l.channels * l.kernel * l.kernel);
      vec(l.filters, 0.0f, 0.1f);
      break;
    case LayerType::Conv3D:
    case LayerType::ConvT1D:
    case LayerType::ConvT2D:
    case LayerType::ConvT3D: {
      const ConvShape cs = conv_shape(l);
      need(l.channels > 0 && l.filters > 0 && l.kernel > 0, "channels, filters and kernel must be positive");
      need(cs.Wi > 0 && cs.Hi > 0 && cs.Di > 0, cs.dims == 1 ? "seq must be positive" : cs.dims == 2 ? "height and width must be positive"
                                                                                             : "depth, height and width must be positive");
      need(cs.positions() > 0, "the input is smaller than the kernel");
      mat(l.filters, cs.taps());
      vec(l.filters, 0.0f, 0.1f);
      break;
    }
    case LayerType::KMeans: {
      need(l.in > 0 && l.out > 0 && l.seq > 0, "in, out (clusters) and seq must be positive");
      std::normal_distribution<float> d(0.0f, 1.0f);
      std::vector<float> c(uint64_t(l.out) * l.in);
      for (float& v : c) v = d(rng);
      l.mats.emplace_back(l.out, l.in, std::move(c));
      break;
    }
    case LayerType::SwiGLU:
      need(l.in > 0 && l.out > 0 && l.seq > 0, "in, out (hidden) and seq must be positive");
      mat(l.out, l.in);
      mat(l.out, l.in);
      mat(l.in, l.out);
      break;
    case LayerType::MHA:
      need(l.in > 0 && l.seq > 0 && l.heads > 0 && l.in % l.heads == 0, "in, seq, heads positive and in divisible by heads");
      for (int i = 0; i < 4; ++i) mat(l.in, l.in);
      break;
    case LayerType::RNN:
    case LayerType::GRU:
    case LayerType::LSTM: {
      need(l.in > 0 && l.out > 0 && l.seq > 0, "in, out (hidden) and seq must be positive");
      const uint32_t g = l.type == LayerType::RNN ? 1 : l.type == LayerType::GRU ? 3 : 4;
      mat(g * l.out, l.in);
      mat(g * l.out, l.out);
      vec(g * l.out, 0.0f, 0.1f);
      if (l.type == LayerType::GRU) vec(g * l.out, 0.0f, 0.1f);
      break;
    }
    case LayerType::Sequential:
    case LayerType::Parallel:
    case LayerType::Residual: {
      need(!l.children.empty(), "a container needs children");
      for (size_t i = 0; i < l.children.size(); ++i)
        init_layer(l.children[i], seed * 31u + uint32_t(i) + 1u, where + ".children[" + u(i) + "]");
      for (size_t i = 1; i < l.children.size(); ++i) {
        const uint32_t want = l.type == LayerType::Parallel ? layer_input_size(l.children[0]) : layer_output_size(l.children[i - 1]);
        need(layer_input_size(l.children[i]) == want, "children[" + u(i) + "] takes " + u(layer_input_size(l.children[i])) +
                                                          " values, " + u(want) + " are given");
        if (l.type == LayerType::Parallel && l.combine == Combine::Add)
          need(layer_output_size(l.children[i]) == layer_output_size(l.children[0]), "Add-combined branches must have equal outputs");
      }
      if (l.type == LayerType::Residual)
        need(layer_output_size(l.children.back()) == layer_input_size(l), "a residual's children must end at its input size");
      break;
    }
  }
  if (!is_container(l.type)) need(l.children.empty(), "only sequential, parallel and residual take children");
}

void set_dtype(Layer& l, DType t) {
  l.dtype = t;
  for (Layer& c : l.children) set_dtype(c, t);
}

Network::Network(uint32_t depth, uint32_t rows, uint32_t cols, uint32_t lpc, uint32_t input)
    : depth_(depth), rows_(rows), cols_(cols), lpc_(lpc), input_(input) {
  if (!depth || !rows || !cols || !lpc || !input)
    fail(ErrorCode::BadInput, "volumetric: grid depth, rows, cols, layers_per_cell and input must be positive");
  const uint64_t n = uint64_t(depth) * rows * cols * lpc;
  if (n > (1u << 16)) fail(ErrorCode::BadInput, "volumetric: grid of " + u(n) + " cells is over the 2^16 limit");
  cells_.resize(n);
}

uint32_t Network::index(Coord c) const {
  if (c.z >= depth_ || c.y >= rows_ || c.x >= cols_ || c.l >= lpc_)
    fail(ErrorCode::BadInput, "volumetric: coordinate (" + u(c.z) + ", " + u(c.y) + ", " + u(c.x) + ", " + u(c.l) +
                                  ") is outside the grid " + u(depth_) + " x " + u(rows_) + " x " + u(cols_) + " x " + u(lpc_));
  return ((c.z * rows_ + c.y) * cols_ + c.x) * lpc_ + c.l;
}

Coord Network::coord(uint32_t idx) const {
  Coord c;
  c.l = idx % lpc_;
  idx /= lpc_;
  c.x = idx % cols_;
  idx /= cols_;
  c.y = idx % rows_;
  c.z = idx / rows_;
  return c;
}

std::optional<uint32_t> Network::source(uint32_t idx) const {
  if (cells_.at(idx).remote) return cells_[idx].remote;
  if (idx == 0) return std::nullopt;
  return idx - 1;
}

std::string Network::where(uint32_t idx) const {
  const Coord c = coord(idx);
  return "cell (" + u(c.z) + ", " + u(c.y) + ", " + u(c.x) + ", " + u(c.l) + ")";
}

void Network::validate() const {
  for (uint32_t i = 0; i < size(); ++i) {
    const Layer& l = cells_[i];
    if (l.remote && *l.remote >= size())
      fail(ErrorCode::BadInput, "volumetric: " + where(i) + " links to flat index " + u(*l.remote) + " outside the grid");
    const auto src = source(i);
    const uint32_t given = src ? layer_output_size(cells_[*src]) : input_;
    const uint32_t want = layer_input_size(l);
    if (want != given)
      fail(ErrorCode::BadInput, "volumetric: " + where(i) + " (" + layer_type_name(l.type) + ") takes " + u(want) + " values but " +
                                    (src ? where(*src) + " gives " : std::string("the network input is ")) + u(given));
    if (l.mats.empty() && l.vecs.empty() && l.type != LayerType::Softmax && !is_container(l.type))
      fail(ErrorCode::BadInput, "volumetric: " + where(i) + " has no weights (init_layer not called)");
  }
}

void Network::set_dtype(DType t) {
  for (Layer& l : cells_) volumetric::set_dtype(l, t);
}

}  // namespace weft::volumetric
