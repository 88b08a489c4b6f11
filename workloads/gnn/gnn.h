// GNN workload: a graph neural network as a chain on Weft's fixed bindings.
//
// Layout. Heap (immutable): per edge type a CSR adjacency (row offsets, column indices, edge
// weights), the input node features X (nodes x F), and per layer the dense weights W (F x F,
// row-major, in -> out) and bias b (F). Globals (mutable): the embeddings h_0 .. h_L of every
// layer (nodes x F each, so any layer can be read back) plus scratch for aggregates and the
// pre-activation. One instance per layer (registers F words wide: R30 carries the layer's
// mean-pooled readout, R31 is the previous layer's) and one instance per (layer, edge type)
// for that type's aggregation, whose results sum into the layer.
//
// Layer l:  a_i  = sum over edge types t of AGG_t{ w_e * h_l[j] : e = (i -> j) of type t }
//           z_i  = (h_l[i] + a_i) W_l + b_l                       (transform)
//           h_{l+1}[i] = ReLU(z_i) + r_l * h_l[i]               (activation + residual)
//           m_{l+1} = mean_i h_{l+1}[i]                           (readout, into R30)
// AGG is sum, mean (divided by the number of edges of that type) or max (0 with no edges).
// r_l is a control word (the model's residual, or what a rule set it to).
//
// Metrics of layer l's instance: norm = over-smoothing metric S = mean_i cos(h_{l+1}[i], m_{l+1})
// (1 when every node points the same way; 0 for a zero row), max_abs = max |h_{l+1}|,
// counters[0] = l + 1 (the iteration, an integer), counters[1] = f32 bits of the relative
// change ||h_{l+1} - h_l|| / ||h_l||, counters[2] = f32 bits of ||m_{l+1}||.
//
// Rules (data, evaluated by the engine's regulator after each layer but the last):
//   S > stop_above     -> zero the indirect slots of the remaining layers (early exit);
//   S > residual_above -> set r_{l+1} to residual_boost (the next layer keeps more of itself).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <weft/weft.h>

namespace weft::gnn {

enum class Aggregation : uint32_t { Sum = 0, Mean = 1, Max = 2 };
const char* aggregation_name(Aggregation a);

// Largest feature width: the layer's readout travels in one register (R30) of F words, and the
// kernels keep per-thread loops over F; 1024 words bounds the Registers buffer at a few MiB.
inline constexpr uint32_t kMaxFeatures = 1024;

struct Csr {
  std::vector<uint32_t> row_offsets;  // nodes + 1, non-decreasing, first 0, last = edges
  std::vector<uint32_t> cols;         // source node of each edge, < nodes
  std::vector<float> weights;         // one per edge, finite
  uint32_t edges() const { return uint32_t(cols.size()); }
};

struct Graph {
  uint32_t nodes = 0;
  uint32_t features = 0;
  std::vector<Csr> edge_types;  // at least one
  std::vector<float> x;         // nodes x features, row-major, finite
};

struct Layer {
  std::vector<float> w;  // features x features, row-major (in -> out)
  std::vector<float> b;  // features
};

struct Model {
  Aggregation aggregation = Aggregation::Mean;
  std::vector<Layer> layers;
  float residual = 0.0f;  // initial residual scale r_l of every layer
};

struct Rules {
  std::optional<float> stop_above;      // over-smoothing early exit
  std::optional<float> residual_above;  // over-smoothing residual boost
  float residual_boost = 0.5f;
};

// Throws weft::Error BadInput naming what and where (edge type, node, edge, feature, layer).
void validate(const Graph& graph, const Model& model);

// Seeded random inputs (no downloads): `edges` edges per edge type with random sources and
// positive weights; features in [0, 1); weights scaled so activations stay O(1). In-degrees are
// uniform, or with `power_law` follow a power law (Chung-Lu: node i draws targets with weight
// rank^-1/(gamma-1), gamma = 2.5, ranks shuffled over the ids), like real graphs' hubs.
Graph random_graph(uint32_t nodes, uint32_t edges, uint32_t features, uint32_t edge_types, uint32_t seed,
                   bool power_law = false);
Model random_model(uint32_t features, uint32_t layers, Aggregation aggregation, uint32_t seed);

// ---- CPU reference (double precision) ------------------------------------------------------
struct LayerMetrics {
  double smoothness = 0;       // S
  double max_abs = 0;
  double relative_change = 0;
  double readout_norm = 0;
  uint32_t iteration = 0;      // l + 1
};

struct ReferenceResult {
  uint32_t layers_run = 0;
  std::vector<std::vector<double>> h;        // h_0 .. h_{layers_run}
  std::vector<std::vector<double>> readout;  // m_1 .. m_{layers_run}
  std::vector<LayerMetrics> metrics;         // one per layer run
  std::vector<double> residuals;             // r_l used by each layer run
};
// Applies the same rules to its own (double) metrics, in the same order as the device.
ReferenceResult reference_forward(const Graph& graph, const Model& model, const Rules& rules);

// ---- device --------------------------------------------------------------------------------
// The program for a graph shape and a model; inputs are written by Forward.
struct GnnProgram {
  Program program;
  std::vector<InstanceId> layers;               // one per layer
  std::vector<std::vector<InstanceId>> types;   // [layer][edge type]
  std::vector<uint32_t> residual_words;         // control word of r_l
  Loop loop;
  std::vector<StageId> regulators;              // after each layer but the last (if rules)
  Ports ports;  // segment "embeddings": the last layer's f32[nodes][features]
};
GnnProgram build_program(const Graph& graph, const Model& model, const Rules& rules);

// For compositions (docs/compose.md): the chain appended to a caller's program. With
// `node_mask` (a Globals segment of `nodes` u32 words the caller adds and writes), aggregation
// keeps only edges whose both ends have a nonzero mask word (the mean divides by the kept edges),
// so every selected node's embeddings are those of the GNN on the induced subgraph; unselected
// nodes aggregate nothing (the readout and metrics still average over all nodes).
struct AppendOptions {
  std::string node_mask;  // empty: no mask (build_program's behaviour)
};
GnnProgram append_program(Program program, const Graph& graph, const Model& model, const Rules& rules,
                          const AppendOptions& options = {});
// The uploads Forward's constructor does (CSR, features, weights) into an executable of it.
void upload(Executable& exe, const Graph& graph, const Model& model);

struct DeviceLayerMetrics {
  float smoothness = 0, max_abs = 0, relative_change = 0, readout_norm = 0;
  uint32_t iteration = 0, sequence = 0;
};

// Kinds: embed, aggregate, transform, activate, readout, metric, regulator.
using StageTime = KindTime;

class Forward {
 public:
  // Validates, checks the device's storage-buffer window, builds, records once and uploads.
  Forward(Device& device, const Graph& graph, const Model& model, const Rules& rules = {});
  void run();  // one forward pass (replays the recorded command buffer)
  // Read back after run():
  uint32_t layers_run();                          // layers whose metric stage ran (Metrics.sequence)
  std::vector<DeviceLayerMetrics> metrics();      // one per layer (zeros for layers not run)
  std::vector<float> embeddings(uint32_t layer);  // h_layer, 0 .. layers
  std::vector<float> final_embeddings() { return embeddings(layers_run()); }
  std::vector<float> readout();                   // R30 of the last layer run
  double gpu_ns();                                // GPU-timestamp time of the last run
  std::vector<StageTime> stage_times();           // summed per stage kind
  Executable& executable() { return *exe_; }
  const GnnProgram& program_info() const { return info_; }

 private:
  uint32_t nodes_, features_, layers_;
  GnnProgram info_;
  std::unique_ptr<Executable> exe_;
};

}  // namespace weft::gnn
