// CPU reference of a volumetric network (Vulkan-free): every layer's forward in its numeric type
// (weights = unpack(morph(dtype)), activations f32, sums in double), backward for the trainable
// layers, one forward pass and one step-mesh tick over the grid.
#pragma once

#include <vector>

#include "model.h"

namespace weft::volumetric {

// What a layer's backward needs: its input (and its children's tapes for containers).
struct Tape {
  std::vector<float> x;
  std::vector<Tape> children;
};

// Gradients shaped like a layer: one per master matrix, one per f32 vector, one per child.
struct Grads {
  std::vector<std::vector<float>> mats, vecs;
  std::vector<Grads> children;
};
Grads zero_grads(const Layer& l);

float activate(Activation a, float z);
float activate_grad(Activation a, float z);  // d act / dz at z

// BadInput naming `where` when x has the wrong size or (Embedding) an id is not in [0, vocab).
std::vector<float> layer_forward(Layer& l, const std::vector<float>& x, Tape* tape = nullptr, const std::string& where = "layer");
// dL/dx from dL/dy, adding dL/dweights into g. Weights are the effective (typed) values, so low
// bit types train straight-through. Every layer type (Embedding: the table only, ids get no
// gradient; RNN/GRU/LSTM through time).
std::vector<float> layer_backward(Layer& l, const Tape& tape, const std::vector<float>& dy, Grads& g);
bool layer_trainable(const Layer& l);

// Every cell's latest output (zeros before the first pass / tick).
struct MeshState {
  std::vector<std::vector<float>> out;
};
MeshState initial_state(const Network& net);
// The input a cell reads. In a pass (`tick` false) a source earlier in the traversal gives this
// pass's output, a source at or after the cell gives the previous pass's (recurrence). In a tick
// every cell reads the previous tick's outputs (`prev`).
const std::vector<float>& cell_input(const Network& net, uint32_t idx, const std::vector<float>& x, const MeshState& cur,
                                     const MeshState& prev, bool tick);
// One pass in traversal order z, y, x, l; returns the last cell's output.
std::vector<float> forward(Network& net, const std::vector<float>& x, MeshState& s, std::vector<Tape>* tapes = nullptr);
// One step-mesh tick: every cell from the previous tick's outputs into the next state.
void step(Network& net, const std::vector<float>& x, MeshState& s);

}  // namespace weft::volumetric
