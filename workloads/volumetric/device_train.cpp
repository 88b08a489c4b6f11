#include "device_train.h"

#include <algorithm>
#include <array>

#include "weft_volumetric_kernels.h"

namespace weft::volumetric {

namespace {

std::string u(uint64_t v) { return std::to_string(v); }
KernelRef kernel(const std::string& name) { return find_kernel(weft_volumetric_kernels, weft_volumetric_kernels_count, name); }
uint32_t groups_for(uint64_t n) { return uint32_t(std::clamp<uint64_t>((n + 63) / 64, 1, 65535)); }
std::string pname(const char* kind, uint32_t i, uint32_t j) { return kind + u(i) + "." + u(j); }

}  // namespace

DeviceTrainer::DeviceTrainer(Device& device, Network& net, TrainOptions options) : o_(options) {
  net.validate();
  const uint32_t n = net.size();
  input_ = net.input_size();
  output_ = net.output_size();
  for (uint32_t i = 0; i < n; ++i) {
    const Layer& l = net.at(i);
    const bool ok = l.type == LayerType::Dense || l.type == LayerType::Conv1D || l.type == LayerType::Conv2D ||
                    l.type == LayerType::RMSNorm || l.type == LayerType::LayerNorm || l.type == LayerType::Softmax;
    if (!ok)
      fail(ErrorCode::BadInput, "volumetric: device training: " + net.where(i) + " is " + layer_type_name(l.type) +
                                    " (device training takes dense, conv1d, conv2d, rmsnorm, layernorm, softmax cells)");
  }
  // Where each cell reads from, and who reads each cell (the gradient flows back along these).
  std::vector<std::string> input(n);
  std::vector<std::vector<uint32_t>> consumers(n);
  for (uint32_t i = 0; i < n; ++i) {
    const auto src = net.source(i);
    if (!src)
      input[i] = "x";
    else if (*src < i) {
      input[i] = "y" + u(*src);
      consumers[*src].push_back(i);
    } else {
      input[i] = "zero" + u(i);  // a link to a later cell reads the previous pass: zeros, as the CPU Trainer
    }
  }

  Program p("volumetric.train");
  auto& G = p.globals();
  G.add("x", uint64_t(input_) * 4);
  G.add("t", uint64_t(output_) * 4);
  G.add("hyper", 16);
  G.add("loss", 4);
  for (uint32_t i = 0; i < n; ++i) {
    const Layer& l = net.at(i);
    const uint64_t out = layer_output_size(l);
    G.add("y" + u(i), out * 4);
    G.add("dy" + u(i), out * 4);
    if (input[i] != "x") G.add((input[i][0] == 'z' ? "zero" : "dx") + u(i), uint64_t(layer_input_size(l)) * 4);
    if (!l.mats.empty()) {
      G.add("z" + u(i), out * 4);
      G.add("dz" + u(i), out * 4);
    }
    std::vector<uint32_t> sizes;
    if (!l.mats.empty()) sizes.push_back(uint32_t(l.mats[0].master().size()));
    for (const auto& v : l.vecs) sizes.push_back(uint32_t(v.size()));
    for (uint32_t j = 0; j < sizes.size(); ++j)
      for (const char* k : {"p", "g", "m", "v"}) G.add(pname(k, i, j), uint64_t(sizes[j]) * 4);
    param_sizes_.push_back(sizes);
  }
  auto w = [&](const std::string& s) { return G.at(s).word_offset(); };
  auto seg = [&](const std::string& s) { return p.segment(Binding::Globals, s); };
  const InstanceId inst = p.add_instance("train", 1);
  auto stage = [&](std::string name, const char* k, uint32_t groups, std::vector<uint32_t> push, std::vector<std::string> reads,
                   std::vector<std::string> writes) {
    StageSpec s;
    s.name = std::move(name);
    s.kernel = kernel(k);
    s.instance = inst;
    s.groups = {groups, 1, 1};
    s.push = std::move(push);
    for (auto& r : reads) s.reads.push_back(seg(r));
    for (auto& wr : writes) s.writes.push_back(seg(wr));
    p.add_stage(s);
  };

  // dense.glsl / dense_backward.comp geometry of a Dense or Conv cell: rows, cols, then
  // mode, P, L (or H), Win, K, output width.
  auto geometry = [](const Layer& l) {
    const bool c1 = l.type == LayerType::Conv1D, c2 = l.type == LayerType::Conv2D;
    const uint32_t rows = c1 || c2 ? l.filters : l.out, cols = uint32_t(l.mats[0].cols());
    const uint32_t P = c1 ? l.seq - l.kernel + 1 : c2 ? (l.height - l.kernel + 1) * (l.width - l.kernel + 1) : 1;
    return std::array<uint32_t, 8>{rows, cols, c1 ? 1u : c2 ? 2u : 0u, P, c1 ? l.seq : l.height, l.width, l.kernel,
                                   c2 ? l.width - l.kernel + 1 : 0u};
  };

  // Forward.
  for (uint32_t i = 0; i < n; ++i) {
    const Layer& l = net.at(i);
    const std::string in = input[i], y = "y" + u(i);
    if (!l.mats.empty()) {
      const auto g = geometry(l);
      stage("forward." + std::string(layer_type_name(l.type)) + u(i), "dense_train", groups_for(uint64_t(g[0]) * g[3]),
            {w(pname("p", i, 0)), w(pname("p", i, 0)), w(pname("p", i, 1)), w(in), w(y), g[0], g[1], g[1], uint32_t(l.act),
             w("z" + u(i)), g[2], g[3], g[4], g[5], g[6], g[7]},
            {in, pname("p", i, 0), pname("p", i, 1)}, {y, "z" + u(i)});
    }
    else if (l.type == LayerType::Softmax)
      stage("forward.softmax" + u(i), "softmax", groups_for(l.seq), {w(in), w(y), l.seq, l.in}, {in}, {y});
    else {
      const bool ln = l.type == LayerType::LayerNorm;
      const std::string g = pname("p", i, 0), beta = ln ? pname("p", i, 1) : g;
      stage("forward.norm" + u(i), "norm_train", groups_for(l.seq), {w(in), w(y), w(g), w(beta), l.seq, l.in, f32_bits(l.eps), ln},
            {in, g, beta}, {y});
    }
  }
  const std::string last = "y" + u(n - 1);
  stage("loss", "loss_grad", 1, {w(last), w("t"), w("dy" + u(n - 1)), w("loss"), output_}, {last, "t"}, {"dy" + u(n - 1), "loss"});
  // Backward, last cell first: a cell's output gradient is the sum of its consumers' input
  // gradients (the last cell's comes from the loss), then its own backward.
  for (uint32_t i = n; i-- > 0;) {
    const Layer& l = net.at(i);
    const std::string in = input[i], y = "y" + u(i), dy = "dy" + u(i);
    for (size_t c = 0; c < consumers[i].size(); ++c) {
      const std::string from = "dx" + u(consumers[i][c]);
      const uint32_t acc = i + 1 == n || c > 0 ? 1u : 0u;
      stage("backward.gather" + u(i) + "." + u(c), "copy", groups_for(layer_output_size(l)),
            {w(from), w(dy), layer_output_size(l), acc}, acc ? std::vector<std::string>{from, dy} : std::vector<std::string>{from}, {dy});
    }
    const bool has_dx = in[0] == 'y';  // the source is an earlier cell
    const std::string dx = has_dx ? "dx" + u(i) : "";
    if (!l.mats.empty()) {
      const std::string W = pname("p", i, 0), z = "z" + u(i), dz = "dz" + u(i), gW = pname("g", i, 0), gb = pname("g", i, 1);
      const auto g = geometry(l);
      auto push = [&](uint32_t phase) {
        return std::vector<uint32_t>{phase, w(W), w(z), w(dy), w(dz), w(in), has_dx ? w(dx) : 0u, w(gW), w(gb), g[0], g[1],
                                     uint32_t(l.act), g[2], g[3], g[4], g[5], g[6], g[7]};
      };
      const std::string kind = layer_type_name(l.type);
      stage("backward." + kind + "_dz" + u(i), "dense_backward", groups_for(g[0]), push(0), {dy, z}, {dz, gb});
      if (has_dx)
        stage("backward." + kind + "_dx" + u(i), "dense_backward", groups_for(layer_input_size(l)), push(1), {W, dz}, {dx});
      stage("backward." + kind + "_dw" + u(i), "dense_backward", groups_for(uint64_t(g[0]) * g[1]), push(2), {dz, in}, {gW});
    } else if (l.type == LayerType::Softmax) {
      if (has_dx) stage("backward.softmax" + u(i), "softmax_backward", groups_for(l.seq), {w(y), w(dy), w(dx), l.seq, l.in}, {y, dy}, {dx});
    } else {
      const bool ln = l.type == LayerType::LayerNorm;
      const std::string g = pname("p", i, 0), gg = pname("g", i, 0), gbeta = ln ? pname("g", i, 1) : gg;
      auto push = [&](uint32_t phase) {
        return std::vector<uint32_t>{phase, w(in), w(dy), has_dx ? w(dx) : 0u, w(g), w(gg), w(gbeta), l.seq, l.in, f32_bits(l.eps), ln};
      };
      if (has_dx) stage("backward.norm_dx" + u(i), "norm_backward", groups_for(l.seq), push(0), {in, dy, g}, {dx});
      std::vector<std::string> gw = {gg};
      if (ln) gw.push_back(gbeta);
      stage("backward.norm_dg" + u(i), "norm_backward", groups_for(l.in), push(1), {in, dy}, gw);
    }
  }
  // Optimiser, after every backward read of the parameters.
  for (uint32_t i = 0; i < n; ++i)
    for (uint32_t j = 0; j < param_sizes_[i].size(); ++j)
      stage("optimizer" + u(i) + "." + u(j), "optimizer", groups_for(param_sizes_[i][j]),
            {w(pname("p", i, j)), w(pname("g", i, j)), w(pname("m", i, j)), w(pname("v", i, j)), param_sizes_[i][j],
             o_.optimizer == Optimizer::Adam ? 1u : 0u, w("hyper"), f32_bits(o_.beta1), f32_bits(o_.beta2)},
            {pname("g", i, j), "hyper"}, {pname("p", i, j), pname("m", i, j), pname("v", i, j)});

  exe_ = std::make_unique<Executable>(device, std::move(p));
  for (uint32_t i = 0; i < n; ++i) {
    Layer& l = net.at(i);
    // Zero inputs of links to later cells; zero output gradients of cells nobody reads.
    if (input[i][0] == 'z') {
      const std::vector<float> zeros(layer_input_size(l), 0.0f);
      exe_->write_segment(Binding::Globals, input[i], zeros.data(), zeros.size() * 4);
    }
    if (consumers[i].empty() && i + 1 < n) {
      const std::vector<float> zeros(layer_output_size(l), 0.0f);
      exe_->write_segment(Binding::Globals, "dy" + u(i), zeros.data(), zeros.size() * 4);
    }
    uint32_t j = 0;
    if (!l.mats.empty()) {
      const auto& m = l.mats[0].master();
      exe_->write_segment(Binding::Globals, pname("p", i, j++), m.data(), m.size() * 4);
    }
    for (const auto& v : l.vecs) exe_->write_segment(Binding::Globals, pname("p", i, j++), v.data(), v.size() * 4);
    for (j = 0; j < param_sizes_[i].size(); ++j) {
      const std::vector<float> zeros(param_sizes_[i][j], 0.0f);
      exe_->write_segment(Binding::Globals, pname("m", i, j), zeros.data(), zeros.size() * 4);
      exe_->write_segment(Binding::Globals, pname("v", i, j), zeros.data(), zeros.size() * 4);
    }
  }
}

DeviceTrainer::~DeviceTrainer() = default;

float DeviceTrainer::step(const std::vector<float>& x, const std::vector<float>& target) {
  if (x.size() != input_ || target.size() != output_)
    fail(ErrorCode::BadInput, "volumetric: training sample of " + u(x.size()) + " -> " + u(target.size()) + " values, the network is " +
                                  u(input_) + " -> " + u(output_));
  ++t_;
  const AdamFactors f = adam_factors(o_, t_);
  const float hyper[4] = {o_.lr, f.lr_t, f.eps_t, 0.0f};
  exe_->write_segment(Binding::Globals, "x", x.data(), x.size() * 4);
  exe_->write_segment(Binding::Globals, "t", target.data(), target.size() * 4);
  exe_->write_segment(Binding::Globals, "hyper", hyper, sizeof hyper);
  exe_->run();
  float loss = 0;
  exe_->read_segment(Binding::Globals, "loss", &loss, 4);
  return loss;
}

void DeviceTrainer::download(Network& net) {
  for (uint32_t i = 0; i < net.size(); ++i) {
    Layer& l = net.at(i);
    uint32_t j = 0;
    if (!l.mats.empty()) l.mats[0].set_master(exe_->read_segment<float>(Binding::Globals, pname("p", i, j++)));
    for (auto& v : l.vecs) v = exe_->read_segment<float>(Binding::Globals, pname("p", i, j++));
  }
}

double DeviceTrainer::gpu_ns() { return exe_->timings().total_ns; }

}  // namespace weft::volumetric
