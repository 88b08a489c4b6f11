// Cross-entropy, mini-batches and data sets on the CPU: the loss gradient and the trainer's
// batch gradient against central finite differences of the loss, refusals of bad targets, and
// the CSV / .npy loaders (errors name the file and the line / field), split and epochs.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>

#include <weft/error.h>
#include <weft/npy.h>

#include "dataset.h"
#include "model.h"
#include "reference.h"
#include "train.h"

using namespace weft::volumetric;

namespace {

const char* kNet = R"({
  "grid": {"depth": 1, "rows": 1, "cols": 3, "layers_per_cell": 1, "input": 5, "seed": 4},
  "layers": [
    {"at": [0, 0, 0, 0], "type": "dense", "in": 5, "out": 6, "activation": "tanh"},
    {"at": [0, 0, 1, 0], "type": "residual", "children": [{"type": "layernorm", "in": 6}, {"type": "dense", "in": 6, "out": 6}]},
    {"at": [0, 0, 2, 0], "type": "dense", "in": 6, "out": 4}
  ]
})";

struct Batch {
  std::vector<std::vector<float>> xs, ts;
};

Batch batch_of(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0, 1);
  Batch b;
  for (int k = 0; k < n; ++k) {
    std::vector<float> x(5);
    for (float& v : x) v = d(rng);
    b.xs.push_back(x);
    b.ts.push_back(one_hot(uint32_t(rng() % 4), 4));
  }
  return b;
}

// The batch's mean loss, computed in double from the CPU reference's outputs.
double batch_loss(Network& net, const Batch& b, Loss loss) {
  double s = 0;
  for (size_t k = 0; k < b.xs.size(); ++k) {
    MeshState st = initial_state(net);
    const std::vector<float> y = forward(net, b.xs[k], st);
    if (loss == Loss::MSE) {
      s += mse(y, b.ts[k]);
      continue;
    }
    double mx = y[0], z = 0;
    for (float v : y) mx = std::max(mx, double(v));
    for (float v : y) z += std::exp(double(v) - mx);
    for (size_t i = 0; i < y.size(); ++i) s -= b.ts[k][i] * (double(y[i]) - mx - std::log(z));
  }
  return s / double(b.xs.size());
}

// Every parameter tensor of a network as (getter, setter) pairs, through containers.
struct Param {
  std::function<std::vector<float>()> get;
  std::function<void(const std::vector<float>&)> set;
  std::string name;
};
void params_of(Layer& l, const std::string& where, std::vector<Param>& out) {
  for (size_t m = 0; m < l.mats.size(); ++m)
    out.push_back({[&l, m] { return l.mats[m].master(); }, [&l, m](const std::vector<float>& v) { l.mats[m].set_master(v); },
                   where + " matrix " + std::to_string(m)});
  for (size_t v = 0; v < l.vecs.size(); ++v)
    out.push_back({[&l, v] { return l.vecs[v]; }, [&l, v](const std::vector<float>& x) { l.vecs[v] = x; }, where + " vector " + std::to_string(v)});
  for (size_t c = 0; c < l.children.size(); ++c) params_of(l.children[c], where + "." + std::to_string(c), out);
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = "/tmp/weft_volumetric_" + name;
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const weft::Error& e) {
    CHECK(e.code() == weft::ErrorCode::BadInput);
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("volumetric cross-entropy: loss and dL/dy against finite differences, stable for large logits") {
  const std::vector<float> y = {0.3f, -1.2f, 2.0f, 0.7f}, t = {0.0f, 0.0f, 1.0f, 0.0f};
  std::vector<float> dy;
  const float l = loss_and_grad(Loss::CrossEntropy, y, t, dy);
  double z = 0;
  for (float v : y) z += std::exp(double(v));
  CHECK(l == doctest::Approx(std::log(z) - 2.0).epsilon(1e-6));
  for (size_t i = 0; i < y.size(); ++i) {
    std::vector<float> up = y, dn = y;
    const float h = 1e-2f;
    up[i] += h;
    dn[i] -= h;
    const double fd = (double(cross_entropy(up, t)) - cross_entropy(dn, t)) / (2 * h);
    CHECK(dy[i] == doctest::Approx(fd).epsilon(1e-3).scale(1.0));
  }
  // Large logits: max subtracted first, finite and exact.
  const std::vector<float> big = {1000.0f, 0.0f, -1000.0f, 999.0f};
  const float lb = loss_and_grad(Loss::CrossEntropy, big, t, dy);
  CHECK(std::isfinite(lb));
  CHECK(lb == doctest::Approx(2000.0 + std::log1p(std::exp(-1.0))).epsilon(1e-6));
  for (float d : dy) CHECK(std::isfinite(d));
}

TEST_CASE("volumetric training: the batch gradient of CE and MSE (SGD, lr 1) matches finite differences of the mean loss") {
  for (Loss loss : {Loss::CrossEntropy, Loss::MSE}) {
    Network net = parse_model(std::string(kNet), "m.json");
    const Batch b = batch_of(3, 9);
    std::vector<Param> ps;
    for (uint32_t i = 0; i < net.size(); ++i) params_of(net.at(i), "cell " + std::to_string(i), ps);
    std::vector<std::vector<float>> before;
    for (auto& p : ps) before.push_back(p.get());
    // SGD with lr 1: the step is the averaged gradient itself.
    Network stepped = net;
    std::vector<Param> qs;
    for (uint32_t i = 0; i < stepped.size(); ++i) params_of(stepped.at(i), "cell " + std::to_string(i), qs);
    Trainer tr(stepped, TrainOptions{.optimizer = Optimizer::SGD, .loss = loss, .lr = 1.0f});
    const float reported = tr.step_batch(b.xs, b.ts);
    CHECK(reported == doctest::Approx(batch_loss(net, b, loss)).epsilon(1e-5));
    double worst = 0;
    for (size_t k = 0; k < ps.size(); ++k) {
      const std::vector<float> after = qs[k].get();
      for (size_t i = 0; i < before[k].size(); i += 3) {  // every third entry keeps the test short
        const double g = double(before[k][i]) - after[i];
        const float h = 1e-2f;
        std::vector<float> v = before[k];
        v[i] = before[k][i] + h;
        ps[k].set(v);
        const double up = batch_loss(net, b, loss);
        v[i] = before[k][i] - h;
        ps[k].set(v);
        const double dn = batch_loss(net, b, loss);
        ps[k].set(before[k]);
        const double fd = (up - dn) / (2.0 * h);
        worst = std::max(worst, std::fabs(g - fd));
        INFO(loss_name(loss) << " " << ps[k].name << " entry " << i << ": step " << g << " fd " << fd);
        CHECK(std::fabs(g - fd) <= 2e-3 + 1e-2 * std::fabs(fd));
      }
    }
    MESSAGE(std::string(loss_name(loss)) << ": worst |gradient - finite difference| " << worst);
  }
}

TEST_CASE("volumetric training: a batch of one equals step(); CE learns a 4-class task with batches") {
  Network a = parse_model(std::string(kNet), "m.json"), b = a;
  const Batch d = batch_of(1, 2);
  Trainer ta(a, TrainOptions{.loss = Loss::CrossEntropy}), tb(b, TrainOptions{.loss = Loss::CrossEntropy});
  CHECK(ta.step(d.xs[0], d.ts[0]) == tb.step_batch(d.xs, d.ts));
  CHECK(a.at(0).mats[0].master() == b.at(0).mats[0].master());
  // 16 samples, batches of 4, 60 epochs: the mean loss falls below a quarter of its start.
  const Batch all = batch_of(16, 5);
  Trainer tr(a, TrainOptions{.loss = Loss::CrossEntropy, .lr = 0.02f});
  double first = 0, last = 0;
  for (int e = 0; e < 60; ++e) {
    double s = 0;
    for (size_t k = 0; k < 16; k += 4) {
      const Batch part{{all.xs.begin() + k, all.xs.begin() + k + 4}, {all.ts.begin() + k, all.ts.begin() + k + 4}};
      s += tr.step_batch(part.xs, part.ts) / 4.0;
    }
    (e == 0 ? first : last) = s;
  }
  INFO("first " << first << " last " << last);
  CHECK(last < 0.25 * first);
}

TEST_CASE("volumetric training: bad losses, targets and batches are refused by name") {
  CHECK(error_of([] { parse_loss("hinge"); }).find("'hinge'") != std::string::npos);
  CHECK(parse_loss("ce") == Loss::CrossEntropy);
  CHECK(error_of([] { one_hot(4, 4); }).find("class 4") != std::string::npos);
  Network net = parse_model(std::string(kNet), "m.json");
  Trainer tr(net, TrainOptions{.loss = Loss::CrossEntropy});
  const std::vector<float> x(5, 0.1f);
  CHECK(error_of([&] { tr.step(x, {0.5f, 0.2f, 0.0f, 0.0f}); }).find("sums to") != std::string::npos);
  CHECK(error_of([&] { tr.step(x, {2.0f, -1.0f, 0.0f, 0.0f}); }).find("target value 0") != std::string::npos);
  CHECK(error_of([&] { tr.step_batch({x, x}, {one_hot(1, 4)}); }).find("2 samples and 1 targets") != std::string::npos);
  CHECK(error_of([&] { tr.step_batch({x, {1.0f}}, {one_hot(1, 4), one_hot(1, 4)}); }).find("batch sample 1") != std::string::npos);
  CHECK(tr.steps() == 0);  // nothing stepped
}

TEST_CASE("volumetric data sets: CSV with comments, split and epochs; errors name file, line and field") {
  const std::string ok = write_file("ok.csv", "# two features then the label\n0.5, 1.5, 2\n\n-1,2,0\n3,4,1\n1e-3,7,2\n");
  const Dataset d = load_dataset(ok);
  CHECK(d.size() == 4);
  CHECK(d.features == 2);
  CHECK(d.row(1) == std::vector<float>{-1.0f, 2.0f});
  CHECK(d.labels == std::vector<uint32_t>{2, 0, 1, 2});
  CHECK(error_of([] { load_dataset(write_file("bad1.csv", "1,2,0\n1,x,1\n")); }).find("bad1.csv:2: field 2: 'x' is not a finite number") != std::string::npos);
  CHECK(error_of([] { load_dataset(write_file("bad2.csv", "1,2,0\n1,1\n")); }).find("bad2.csv:2: 2 fields, earlier rows have 3") != std::string::npos);
  CHECK(error_of([] { load_dataset(write_file("bad3.csv", "1,2,0.5\n")); }).find("bad3.csv:1: field 3 (the label): label '0.5'") != std::string::npos);
  CHECK(error_of([] { load_dataset(write_file("bad4.csv", "# nothing\n")); }).find("no samples") != std::string::npos);
  CHECK(error_of([] { load_dataset("/tmp/weft_volumetric_missing.csv"); }).find("weft_volumetric_missing.csv") != std::string::npos);
  CHECK(error_of([] { load_dataset("/tmp/data.txt"); }).find("unknown data format") != std::string::npos);
  Network net = parse_model(std::string(kNet), "m.json");
  CHECK(error_of([&] { check_dataset(d, net); }).find("2 features per sample, the network takes 5") != std::string::npos);
  CHECK(d.lines == std::vector<uint32_t>{2, 4, 5, 6});
  Network two = parse_model(std::string(R"({"grid": {"depth": 1, "rows": 1, "cols": 1, "layers_per_cell": 1, "input": 2},
      "layers": [{"at": [0, 0, 0, 0], "type": "dense", "in": 2, "out": 2}]})"), "two.json");
  CHECK(error_of([&] { check_dataset(d, two); }).find("ok.csv:2: sample 0 has label 2, not below the network's 2 outputs") != std::string::npos);
  // Split and shuffles: seeded, a permutation, the same for the same seed.
  const Split s1 = split_dataset(d, 0.25, 3), s2 = split_dataset(d, 0.25, 3);
  CHECK(s1.test.size() == 1);
  CHECK(s1.train.size() == 3);
  CHECK(s1.train.x == s2.train.x);
  std::vector<size_t> o = shuffled_order(100, 7);
  CHECK(o == shuffled_order(100, 7));
  CHECK(o != shuffled_order(100, 8));
  std::sort(o.begin(), o.end());
  for (size_t i = 0; i < o.size(); ++i) CHECK(o[i] == i);
  // An epoch visits every sample once, in batches of at most 3.
  std::vector<size_t> sizes;
  size_t seen = 0;
  run_epoch(d, 3, 3, 1, [&](const auto& xs, const auto& ts) {
    sizes.push_back(xs.size());
    for (const auto& t : ts) seen += size_t(t[0] + 2 * t[1] + 4 * t[2]);
    return 1.0f;
  });
  CHECK(sizes == std::vector<size_t>{3, 1});
  CHECK(seen == 4 + 1 + 2 + 4);  // labels 2, 0, 1, 2 as one-hot bits
}

TEST_CASE("volumetric data sets: .npy features and labels; other dtypes refused by name") {
  using weft::NpyArray;
  const std::string fx = "/tmp/weft_volumetric_x.npy", fy = "/tmp/weft_volumetric_y.npy", fbad = "/tmp/weft_volumetric_bad.npy";
  weft::write_npy(fx, NpyArray::from(weft::DType::F32, std::vector<float>{1, 2, 3, 4, 5, 6}, {3, 2}));
  weft::write_npy(fy, NpyArray::from(weft::DType::I64, std::vector<int64_t>{1, 0, 1}));
  const Dataset d = load_dataset(fx, fy);
  CHECK(d.size() == 3);
  CHECK(d.row(2) == std::vector<float>{5, 6});
  CHECK(d.labels == std::vector<uint32_t>{1, 0, 1});
  weft::write_npy(fbad, NpyArray::from(weft::DType::F64, std::vector<double>{1, 2}, {1, 2}));
  CHECK(error_of([&] { load_dataset(fbad, fy); }).find("'<f8'") != std::string::npos);
  CHECK(error_of([&] { load_dataset(fx, fbad); }).find("labels must be a 1-D int32 or int64") != std::string::npos);
  weft::write_npy(fbad, NpyArray::from(weft::DType::I32, std::vector<int32_t>{1, -1, 0}));
  CHECK(error_of([&] { load_dataset(fx, fbad); }).find("sample 1 label -1") != std::string::npos);
  CHECK(error_of([&] { load_dataset(fx); }).find("labels .npy") != std::string::npos);
  std::ofstream(fbad) << "not numpy";
  CHECK(error_of([&] { load_dataset(fbad, fy); }).find("weft_volumetric_bad.npy") != std::string::npos);
}
