#include "train.h"

#include <algorithm>
#include <cmath>

#include <weft/error.h>

namespace weft::volumetric {

AdamFactors adam_factors(const TrainOptions& o, uint64_t t) {
  const double b1 = 1 - std::pow(double(o.beta1), double(t)), b2 = std::sqrt(1 - std::pow(double(o.beta2), double(t)));
  return {float(o.lr * b2 / b1), float(o.eps * b2)};
}

float mse(const std::vector<float>& y, const std::vector<float>& target) {
  if (y.size() != target.size())
    fail(ErrorCode::BadInput, "volumetric: target of " + std::to_string(target.size()) + " values for an output of " +
                                  std::to_string(y.size()));
  double s = 0;
  for (size_t i = 0; i < y.size(); ++i) s += double(y[i] - target[i]) * (y[i] - target[i]);
  return float(s / double(y.size()));
}

const char* loss_name(Loss l) { return l == Loss::MSE ? "mse" : "ce"; }

Loss parse_loss(const std::string& name) {
  if (name == "mse") return Loss::MSE;
  if (name == "ce" || name == "cross_entropy") return Loss::CrossEntropy;
  fail(ErrorCode::BadInput, "loss must be mse or ce (cross-entropy), got '" + name + "'");
}

float cross_entropy(const std::vector<float>& y, const std::vector<float>& target) {
  std::vector<float> dy;
  return loss_and_grad(Loss::CrossEntropy, y, target, dy);
}

// Softmax cross-entropy in f32 in the order of cross_entropy_grad.comp: max, sum of exp(y - max),
// loss = sum t_i (log s - (y_i - max)), dy_i = exp(y_i - max) / s - t_i.
static float softmax_ce(const std::vector<float>& y, const std::vector<float>& t, std::vector<float>& dy) {
  float mx = y[0];
  for (float v : y) mx = std::max(mx, v);
  float s = 0.0f;
  for (float v : y) s += std::exp(v - mx);
  const float log_s = std::log(s);
  float loss = 0.0f;
  dy.resize(y.size());
  for (size_t i = 0; i < y.size(); ++i) {
    loss += t[i] * (log_s - (y[i] - mx));
    dy[i] = std::exp(y[i] - mx) / s - t[i];
  }
  return loss;
}

float loss_and_grad(Loss loss, const std::vector<float>& y, const std::vector<float>& target, std::vector<float>& dy) {
  if (y.size() != target.size() || y.empty())
    fail(ErrorCode::BadInput, "volumetric: target of " + std::to_string(target.size()) + " values for an output of " +
                                  std::to_string(y.size()));
  if (loss == Loss::CrossEntropy) return softmax_ce(y, target, dy);
  dy.resize(y.size());
  for (size_t k = 0; k < y.size(); ++k) dy[k] = 2.0f * (y[k] - target[k]) / float(y.size());
  return mse(y, target);
}

void check_target(Loss loss, const std::vector<float>& target) {
  if (loss != Loss::CrossEntropy) return;
  double sum = 0;
  for (size_t i = 0; i < target.size(); ++i) {
    if (!(target[i] >= 0.0f && target[i] <= 1.0f))
      fail(ErrorCode::BadInput, "volumetric: cross-entropy target value " + std::to_string(i) + " is " + std::to_string(target[i]) +
                                    " (a class distribution: values in [0, 1] summing to 1, e.g. one-hot)");
    sum += target[i];
  }
  if (std::fabs(sum - 1.0) > 1e-4)
    fail(ErrorCode::BadInput, "volumetric: cross-entropy target sums to " + std::to_string(sum) + ", not 1 (a class distribution, e.g. one-hot)");
}

std::vector<float> one_hot(uint32_t label, uint32_t n) {
  if (label >= n) fail(ErrorCode::BadInput, "volumetric: class " + std::to_string(label) + " is not below the " + std::to_string(n) + " outputs");
  std::vector<float> t(n, 0.0f);
  t[label] = 1.0f;
  return t;
}

void check_batch(const std::vector<std::vector<float>>& xs, const std::vector<std::vector<float>>& targets, uint32_t input_size,
                 uint32_t output_size, Loss loss) {
  if (xs.empty() || xs.size() != targets.size())
    fail(ErrorCode::BadInput, "volumetric: a batch of " + std::to_string(xs.size()) + " samples and " + std::to_string(targets.size()) +
                                  " targets (at least one sample, one target each)");
  for (size_t b = 0; b < xs.size(); ++b) try {
      check_training_sample(xs[b], targets[b], input_size, output_size);
      check_target(loss, targets[b]);
    } catch (const Error& e) {
      fail(ErrorCode::BadInput, "batch sample " + std::to_string(b) + ": " + e.what());
    }
}

void check_train_options(const TrainOptions& o) {
  if (!(o.lr > 0) || !std::isfinite(o.lr)) fail(ErrorCode::BadInput, "lr must be a positive finite number, got " + std::to_string(o.lr));
  if (!(o.beta1 >= 0 && o.beta1 < 1) || !(o.beta2 >= 0 && o.beta2 < 1)) fail(ErrorCode::BadInput, "beta1 and beta2 must be in [0, 1)");
  if (!(o.eps > 0) || !std::isfinite(o.eps)) fail(ErrorCode::BadInput, "eps must be a positive finite number, got " + std::to_string(o.eps));
}

void check_training_sample(const std::vector<float>& x, const std::vector<float>& target, uint32_t input_size, uint32_t output_size) {
  if (x.size() != input_size || target.size() != output_size)
    fail(ErrorCode::BadInput, "volumetric: training sample of " + std::to_string(x.size()) + " -> " + std::to_string(target.size()) +
                                  " values, the network is " + std::to_string(input_size) + " -> " + std::to_string(output_size));
  for (const auto* v : {&x, &target})
    for (size_t i = 0; i < v->size(); ++i)
      if (!std::isfinite((*v)[i]))
        fail(ErrorCode::BadInput, std::string("volumetric: training sample ") + (v == &x ? "x" : "target") + " value " + std::to_string(i) +
                                      " is " + std::to_string((*v)[i]) + " (training takes finite values)");
}

Trainer::Trainer(Network& net, TrainOptions options) : net_(net), o_(options) {
  check_train_options(options);
  net.validate();
  for (uint32_t i = 0; i < net.size(); ++i) {
    if (!layer_trainable(net.at(i)))
      fail(ErrorCode::BadInput, "volumetric: " + net.where(i) + " (" + layer_type_name(net.at(i).type) +
                                    ") has no backward (trainable: dense, conv1d, conv2d, embedding, swiglu, rmsnorm, layernorm, softmax and containers of them)");
    m_.push_back(zero_grads(net.at(i)));
    v_.push_back(zero_grads(net.at(i)));
  }
}

void Trainer::update(Layer& l, Grads& g, Grads& m, Grads& v, float scale) {
  const AdamFactors f = adam_factors(o_, t_);
  // The same arithmetic as the device's optimizer kernel (f32, this order).
  auto delta = [&](float gsum, float& mi, float& vi) {
    const float gi = gsum * scale;  // the batch mean (the device optimiser's arithmetic)
    if (o_.optimizer == Optimizer::SGD) return o_.lr * gi;
    mi = o_.beta1 * mi + (1 - o_.beta1) * gi;
    vi = o_.beta2 * vi + (1 - o_.beta2) * gi * gi;
    return f.lr_t * mi / (std::sqrt(vi) + f.eps_t);
  };
  for (size_t k = 0; k < l.mats.size(); ++k) {
    std::vector<float> st(g.mats[k].size());
    for (size_t i = 0; i < st.size(); ++i) st[i] = delta(g.mats[k][i], m.mats[k][i], v.mats[k][i]);
    l.mats[k].apply_step(st);
  }
  for (size_t k = 0; k < l.vecs.size(); ++k)
    for (size_t i = 0; i < l.vecs[k].size(); ++i) l.vecs[k][i] -= delta(g.vecs[k][i], m.vecs[k][i], v.vecs[k][i]);
  for (size_t c = 0; c < l.children.size(); ++c) update(l.children[c], g.children[c], m.children[c], v.children[c], scale);
}

// Element-wise acc += g over every tensor (recursively through containers).
static void add_grads(Grads& acc, const Grads& g) {
  for (size_t k = 0; k < g.mats.size(); ++k)
    for (size_t i = 0; i < g.mats[k].size(); ++i) acc.mats[k][i] += g.mats[k][i];
  for (size_t k = 0; k < g.vecs.size(); ++k)
    for (size_t i = 0; i < g.vecs[k].size(); ++i) acc.vecs[k][i] += g.vecs[k][i];
  for (size_t c = 0; c < g.children.size(); ++c) add_grads(acc.children[c], g.children[c]);
}

float Trainer::accumulate(const std::vector<float>& x, const std::vector<float>& target, std::vector<Grads>& acc) {
  MeshState s = initial_state(net_);
  std::vector<Tape> tapes;
  const std::vector<float> y = forward(net_, x, s, &tapes);
  const uint32_t n = net_.size();
  std::vector<std::vector<float>> dout(n);
  for (uint32_t i = 0; i < n; ++i) dout[i].assign(s.out[i].size(), 0.0f);
  const float loss = loss_and_grad(o_.loss, y, target, dout[n - 1]);
  for (uint32_t i = n; i-- > 0;) {
    Grads g = zero_grads(net_.at(i));
    const std::vector<float> dx = layer_backward(net_.at(i), tapes[i], dout[i], g);
    const auto src = net_.source(i);
    if (src && *src < i)
      for (size_t k = 0; k < dx.size(); ++k) dout[*src][k] += dx[k];
    add_grads(acc[i], g);
  }
  return loss;
}

float Trainer::step(const std::vector<float>& x, const std::vector<float>& target) { return step_batch({x}, {target}); }

float Trainer::step_batch(const std::vector<std::vector<float>>& xs, const std::vector<std::vector<float>>& targets) {
  check_batch(xs, targets, net_.input_size(), net_.output_size(), o_.loss);
  std::vector<Grads> acc;
  for (uint32_t i = 0; i < net_.size(); ++i) acc.push_back(zero_grads(net_.at(i)));
  double loss = 0;
  for (size_t b = 0; b < xs.size(); ++b) loss += accumulate(xs[b], targets[b], acc);
  ++t_;
  const float scale = 1.0f / float(xs.size());
  for (uint32_t i = 0; i < net_.size(); ++i) update(net_.at(i), acc[i], m_[i], v_[i], scale);
  return float(loss / double(xs.size()));
}

}  // namespace weft::volumetric
