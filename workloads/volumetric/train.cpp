#include "train.h"

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

void Trainer::update(Layer& l, Grads& g, Grads& m, Grads& v) {
  const AdamFactors f = adam_factors(o_, t_);
  // The same arithmetic as the device's optimizer kernel (f32, this order).
  auto delta = [&](float gi, float& mi, float& vi) {
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
  for (size_t c = 0; c < l.children.size(); ++c) update(l.children[c], g.children[c], m.children[c], v.children[c]);
}

float Trainer::step(const std::vector<float>& x, const std::vector<float>& target) {
  check_training_sample(x, target, net_.input_size(), net_.output_size());
  MeshState s = initial_state(net_);
  std::vector<Tape> tapes;
  const std::vector<float> y = forward(net_, x, s, &tapes);
  const float loss = mse(y, target);
  const uint32_t n = net_.size();
  std::vector<std::vector<float>> dout(n);
  for (uint32_t i = 0; i < n; ++i) dout[i].assign(s.out[i].size(), 0.0f);
  for (size_t k = 0; k < y.size(); ++k) dout[n - 1][k] = 2.0f * (y[k] - target[k]) / float(y.size());
  ++t_;
  for (uint32_t i = n; i-- > 0;) {
    Grads g = zero_grads(net_.at(i));
    const std::vector<float> dx = layer_backward(net_.at(i), tapes[i], dout[i], g);
    const auto src = net_.source(i);
    if (src && *src < i)
      for (size_t k = 0; k < dx.size(); ++k) dout[*src][k] += dx[k];
    update(net_.at(i), g, m_[i], v_[i]);
  }
  return loss;
}

}  // namespace weft::volumetric
