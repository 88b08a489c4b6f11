// A volumetric network: a 4-D grid (depth z, rows y, cols x, layers per cell l) of layers,
// flattened idx = ((z * rows + y) * cols + x) * layers_per_cell + l and traversed in that order.
//
// Every layer maps a flat f32 vector to a flat f32 vector; layers with structure read it with a
// fixed shape (row-major): Conv1D channels x length, Conv2D channels x height x width,
// multi-head attention / RNN / GRU / LSTM seq x features, Embedding seq token ids (integral
// values, < vocab). A layer's input is the previous layer's output (layer 0: the network input)
// unless it has a remote link, then it is the linked coordinate's output (see reference.h for
// when "previous tick" applies).
//
// Shapes (input -> output sizes, all row-major):
//   Dense        in -> out                       mats W[out x in]; vecs b[out]; activation
//   RMSNorm      seq*in -> seq*in (per row)      vecs g[in]
//   LayerNorm    seq*in -> seq*in (per row)      vecs g[in], beta[in]
//   Softmax      seq*in -> seq*in (per row)
//   Embedding    seq ids -> seq*out              mats table[vocab x out]
//   Conv1D       channels*seq -> filters*(seq-kernel+1)               mats W[filters x channels*kernel]; b
//   Conv2D       channels*height*width -> filters*(h-k+1)*(w-k+1)    mats W[filters x channels*k*k]; b
//   Conv3D       channels*depth*height*width -> filters*(d-k+1)*(h-k+1)*(w-k+1)   W[filters x channels*k^3]
//   ConvT1D/2D/3D  transposed (stride 1): like Conv1D (seq) / 2D / 3D, each output axis in+k-1,
//                y[f][p] = b[f] + sum_{c,k} W[f][c,k] x[c][p - k] (terms with p - k outside dropped)
//   KMeans       seq*in -> seq*out: soft assignment of each row to `out` centroids,
//                y[t][j] = softmax_j(-|x_t - c_j|^2)          mats C[out x in] (centroids)
//   SwiGLU       seq*in -> seq*in, hidden out    mats W1[out x in], W3[out x in], W2[in x out]
//   MHA          seq*in -> seq*in, heads         mats Wq, Wk, Wv, Wo [in x in] (no mask)
//   RNN          seq*in -> seq*out               mats Wx[out x in], Wh[out x out]; vecs b[out]  (tanh)
//   GRU          seq*in -> seq*out               mats Wx[3out x in], Wh[3out x out]; bx, bh [3out] (z, r, n)
//   LSTM         seq*in -> seq*out               mats Wx[4out x in], Wh[4out x out]; b[4out] (i, f, g, o)
//   Sequential   children in order; Residual: children in order, plus the input (out == in);
//   Parallel     every child on the same input, joined by Concat or Add.
//
// Weight matrices are WeightStores (f32 master + packed versions) and compute in the layer's
// numeric type (the unpacked values of its packed version). Biases, norm gains and offsets stay
// f32 (they are a vector per layer, not worth packing).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dtype.h"
#include "weights.h"

namespace weft::volumetric {

enum class LayerType : uint32_t {
  Dense, RMSNorm, LayerNorm, Softmax, Embedding, Conv1D, Conv2D, SwiGLU, MHA, RNN, GRU, LSTM,
  Sequential, Parallel, Residual,
  Conv3D, ConvT1D, ConvT2D, ConvT3D, KMeans,
};
const char* layer_type_name(LayerType t);
LayerType parse_layer_type(const std::string& s);  // BadInput on unknown names

enum class Activation : uint32_t { Linear = 0, ReLU = 1, Tanh = 2, Sigmoid = 3, SiLU = 4 };
const char* activation_name(Activation a);
Activation parse_activation(const std::string& s);

enum class Combine : uint32_t { Concat = 0, Add = 1 };  // how Parallel joins its branches

struct Coord {
  uint32_t z = 0, y = 0, x = 0, l = 0;
  bool operator==(const Coord&) const = default;
};

struct Layer {
  LayerType type = LayerType::Dense;
  DType dtype = DType::F32;
  Activation act = Activation::Linear;
  // Shapes (which fields a type uses is in layer_input_size / layer_output_size):
  uint32_t in = 0, out = 0;  // Dense in -> out; norms/softmax width = in; SwiGLU in, hidden = out
  uint32_t seq = 1;          // tokens (Embedding, MHA, RNN/GRU/LSTM), length (Conv1D)
  uint32_t channels = 0, filters = 0, kernel = 0, height = 0, width = 0;  // convolutions
  uint32_t depth = 0;        // Conv3D / ConvT3D input depth
  uint32_t heads = 1;        // MHA (in = d_model)
  uint32_t vocab = 0;        // Embedding (out = dim)
  float eps = 1e-5f;         // norms
  Combine combine = Combine::Concat;
  std::vector<WeightStore> mats;  // packed-capable weight matrices, per type (see model.cpp)
  std::vector<std::vector<float>> vecs;  // f32 biases / gains
  std::vector<Layer> children;    // Sequential, Parallel, Residual
  std::optional<uint32_t> remote;  // flat index of the linked cell (grid cells only)
};

// The geometry every convolution kind shares (stride 1, no padding): C channels of
// (Di, Hi, Wi) in, F filters of (Do, Ho, Wo) out, kernel K along each of `dims` axes.
struct ConvShape {
  uint32_t C = 0, F = 0, K = 0, dims = 1;
  bool transposed = false;
  uint32_t Di = 1, Hi = 1, Wi = 1, Do = 1, Ho = 1, Wo = 1;
  uint32_t taps() const { return C * (dims == 1 ? K : dims == 2 ? K * K : K * K * K); }
  uint32_t positions() const { return Do * Ho * Wo; }
  // Input index read by tap q at output position p, or -1 where a transposed conv runs off the input.
  int64_t input_index(uint32_t q, uint32_t p) const;
};
bool is_conv(LayerType t);
ConvShape conv_shape(const Layer& l);  // for is_conv types

uint32_t layer_input_size(const Layer& l);
uint32_t layer_output_size(const Layer& l);
// Fills mats/vecs with seeded random weights of the right shapes (Xavier-like scale), children
// included. BadInput naming `where` when a shape is zero or inconsistent.
void init_layer(Layer& l, uint32_t seed, const std::string& where);
// Sets the numeric type of a layer and of all its children.
void set_dtype(Layer& l, DType t);

class Network {
 public:
  Network(uint32_t depth, uint32_t rows, uint32_t cols, uint32_t layers_per_cell, uint32_t input_size);
  uint32_t depth() const { return depth_; }
  uint32_t rows() const { return rows_; }
  uint32_t cols() const { return cols_; }
  uint32_t layers_per_cell() const { return lpc_; }
  uint32_t input_size() const { return input_; }
  uint32_t size() const { return uint32_t(cells_.size()); }
  uint32_t index(Coord c) const;  // BadInput when outside the grid
  Coord coord(uint32_t idx) const;
  Layer& at(uint32_t idx) { return cells_.at(idx); }
  const Layer& at(uint32_t idx) const { return cells_.at(idx); }
  Layer& at(Coord c) { return cells_.at(index(c)); }
  std::vector<Layer>& cells() { return cells_; }
  const std::vector<Layer>& cells() const { return cells_; }
  void link(Coord from, Coord to) { at(from).remote = index(to); }
  // The flat index a cell reads from: its remote target, else idx - 1 (none for cell 0).
  std::optional<uint32_t> source(uint32_t idx) const;
  uint32_t output_size() const { return layer_output_size(cells_.back()); }
  // Every cell's input size equals its source's output size (cell 0: the network input),
  // remote targets inside the grid. BadInput naming the cell (z, y, x, l) otherwise.
  void validate() const;
  void set_dtype(DType t);
  std::string where(uint32_t idx) const;  // "cell (z, y, x, l)"

 private:
  uint32_t depth_, rows_, cols_, lpc_, input_;
  std::vector<Layer> cells_;
};

// ---- model files (JSON) ----
// { "grid": {"depth", "rows", "cols", "layers_per_cell", "input", ["seed"], ["dtype"]},
//   "layers": [ {"at": [z, y, x, l], "type", shape keys (in out seq channels filters kernel
//                height width heads vocab eps combine), ["dtype"], ["activation"],
//                ["remote": [z, y, x, l]], ["children": [ ...same keys, no "at"... ]]} ] }
// Every cell must be given exactly once; unknown keys are refused. Malformed files: BadInput
// "file: <json path>: ..." naming the key (syntax errors: "file:line:col: ...").
Network load_model(const std::string& path);
Network parse_model(const nlohmann::json& j, const std::string& source_name);
Network parse_model(const std::string& text, const std::string& source_name);

}  // namespace weft::volumetric
