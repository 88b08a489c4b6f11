// Training on the CPU reference: one sample per step, mean squared error on the last cell,
// backward through the grid (a cell's input gradient flows to its source when the source comes
// earlier in the traversal; links to later cells read the previous pass, a constant here), then
// SGD or Adam. Weight matrices step through WeightStore::apply_step, which drops their packed
// versions, so the next forward re-quantises (low-bit types train straight-through).
#pragma once

#include <vector>

#include "model.h"
#include "reference.h"

namespace weft::volumetric {

enum class Optimizer { SGD, Adam };

struct TrainOptions {
  Optimizer optimizer = Optimizer::Adam;
  float lr = 1e-2f;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
};

// BadInput naming the field when training could not proceed: lr and eps positive and finite,
// beta1 and beta2 in [0, 1) (a bad factor would turn the weights into NaN or stop learning).
void check_train_options(const TrainOptions& options);
// BadInput when a sample is not input_size -> output_size values, or holds a value that is not
// finite (it would poison the weights, and a checkpoint then refuses them).
void check_training_sample(const std::vector<float>& x, const std::vector<float>& target, uint32_t input_size, uint32_t output_size);

// Adam's per-step factors: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), eps_t = eps * sqrt(1 - beta2^t)
// (the bias-corrected update lr * mhat / (sqrt(vhat) + eps) written without dividing m and v).
struct AdamFactors {
  float lr_t, eps_t;
};
AdamFactors adam_factors(const TrainOptions& o, uint64_t t);

float mse(const std::vector<float>& y, const std::vector<float>& target);

class Trainer {
 public:
  // BadInput naming the first cell without a backward (see layer_trainable).
  Trainer(Network& net, TrainOptions options);
  // Forward from a zero state, backward, one optimiser step; returns the loss before the step.
  float step(const std::vector<float>& x, const std::vector<float>& target);
  uint64_t steps() const { return t_; }

 private:
  void update(Layer& l, Grads& g, Grads& m, Grads& v);
  Network& net_;
  TrainOptions o_;
  uint64_t t_ = 0;
  std::vector<Grads> m_, v_;
};

}  // namespace weft::volumetric
