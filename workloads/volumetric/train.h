// Training on the CPU reference: a mini-batch per step (gradients averaged over its samples),
// mean squared error or softmax cross-entropy on the last cell,
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
// The loss on the last cell's output y against the target t (n values):
//   MSE:          mean((y - t)^2), dL/dy = 2 (y - t) / n
//   CrossEntropy: -sum t_i log softmax(y)_i with the max of y subtracted first,
//                 dL/dy = softmax(y) - t; t is a one-hot vector (or a distribution: values in
//                 [0, 1] summing to 1, see check_target).
enum class Loss { MSE, CrossEntropy };
const char* loss_name(Loss l);
// "mse" or "ce" (also "cross_entropy"); BadInput naming what was given otherwise.
Loss parse_loss(const std::string& name);

struct TrainOptions {
  Optimizer optimizer = Optimizer::Adam;
  Loss loss = Loss::MSE;
  float lr = 1e-2f;
  float beta1 = 0.9f, beta2 = 0.999f, eps = 1e-8f;
};

// BadInput naming the field when training could not proceed: lr and eps positive and finite,
// beta1 and beta2 in [0, 1) (a bad factor would turn the weights into NaN or stop learning).
void check_train_options(const TrainOptions& options);
// BadInput when a sample is not input_size -> output_size values, or holds a value that is not
// finite (it would poison the weights, and a checkpoint then refuses them).
void check_training_sample(const std::vector<float>& x, const std::vector<float>& target, uint32_t input_size, uint32_t output_size);

// A mini-batch: at least one sample, as many targets as samples, each sample checked
// (check_training_sample, check_target) and named by its index in the batch.
void check_batch(const std::vector<std::vector<float>>& xs, const std::vector<std::vector<float>>& targets, uint32_t input_size,
                 uint32_t output_size, Loss loss);

// Adam's per-step factors: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t), eps_t = eps * sqrt(1 - beta2^t)
// (the bias-corrected update lr * mhat / (sqrt(vhat) + eps) written without dividing m and v).
struct AdamFactors {
  float lr_t, eps_t;
};
AdamFactors adam_factors(const TrainOptions& o, uint64_t t);

float mse(const std::vector<float>& y, const std::vector<float>& target);
// Softmax cross-entropy of logits y against target t (f32, the device kernel's order).
float cross_entropy(const std::vector<float>& y, const std::vector<float>& target);
// The loss and dL/dy of one sample, in f32 as the device's loss kernels compute them.
float loss_and_grad(Loss loss, const std::vector<float>& y, const std::vector<float>& target, std::vector<float>& dy);
// Cross-entropy targets must be a distribution: every value in [0, 1], the sum 1 within 1e-4
// (BadInput naming the value or the sum). MSE takes any finite target.
void check_target(Loss loss, const std::vector<float>& target);
// The one-hot target of class `label` among n; BadInput when label >= n.
std::vector<float> one_hot(uint32_t label, uint32_t n);

class Trainer {
 public:
  // BadInput naming the first cell without a backward (see layer_trainable).
  Trainer(Network& net, TrainOptions options);
  // Forward from a zero state, backward, one optimiser step; returns the loss before the step.
  float step(const std::vector<float>& x, const std::vector<float>& target);
  // One optimiser step on a mini-batch: each sample forward and backward from a zero state, the
  // gradients summed in sample order and scaled by 1 / batch; returns the batch's mean loss.
  // Every sample is checked before any weight changes.
  float step_batch(const std::vector<std::vector<float>>& xs, const std::vector<std::vector<float>>& targets);
  uint64_t steps() const { return t_; }

 private:
  void update(Layer& l, Grads& g, Grads& m, Grads& v, float scale);
  // Forward and backward of one sample, its gradients added into acc (one Grads per cell).
  float accumulate(const std::vector<float>& x, const std::vector<float>& target, std::vector<Grads>& acc);
  Network& net_;
  TrainOptions o_;
  uint64_t t_ = 0;
  std::vector<Grads> m_, v_;
};

}  // namespace weft::volumetric
