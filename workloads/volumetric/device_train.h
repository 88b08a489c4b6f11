// Training on the device: one replay of a recorded program per sample (forward, MSE or
// cross-entropy gradient, backward, SGD/Adam), the same arithmetic as the CPU Trainer so the two
// agree. A mini-batch replays once per sample: the optimiser adds the gradients to per-parameter
// accumulators and steps (with their sum / batch) on the batch's last sample.
// The trained parameters live in Globals as f32 masters (the optimiser writes them; Heap is
// read-only): the device trains the f32 master of every layer whatever its numeric type, and
// download() hands it back to the WeightStore, which re-packs on the next morph. (The CPU
// Trainer instead trains straight-through in the layer's type; the two agree for f32 layers.)
// Cells: every layer kind (RNN/GRU/LSTM backpropagate through time on the device) and
// Sequential / Parallel (concat, add; every branch keeps its own activations for backward) /
// Residual containers of them, nested, with remote links: a link to an earlier cell carries the gradient back to it (summed over all of a
// cell's readers), a link to a later cell reads zeros (the previous pass, as the CPU Trainer).
#pragma once

#include <memory>

#include <weft/weft.h>

#include "model.h"
#include "train.h"

namespace weft::volumetric {

class DeviceTrainer {
 public:
  DeviceTrainer(Device& device, Network& net, TrainOptions options);
  ~DeviceTrainer();
  // Uploads the sample and this step's Adam factors, runs one step; returns the loss before it.
  float step(const std::vector<float>& x, const std::vector<float>& target);
  // One optimiser step on a mini-batch (see Trainer::step_batch); returns its mean loss.
  float step_batch(const std::vector<std::vector<float>>& xs, const std::vector<std::vector<float>>& targets);
  // Copies the trained parameters into net (WeightStore::set_master drops packed versions).
  void download(Network& net);
  double gpu_ns();

 private:
  class Builder;
  TrainOptions o_;
  uint64_t t_ = 0;
  uint32_t input_ = 0, output_ = 0;
  struct Leaf {
    std::string tag;  // path: cell "." child "." ...
    std::vector<uint32_t> sizes;  // parameter tensors: [matrix,] vectors
  };
  std::vector<Leaf> leaves_;  // in the order of Network traversal, children depth-first
  std::unique_ptr<Executable> exe_;
};

}  // namespace weft::volumetric
