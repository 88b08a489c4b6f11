// CPU training (loss goes down with SGD and Adam, packed versions are dropped by a step) and
// checkpoints (save -> load is bit-exact in the packed data and in the outputs).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <cmath>
#include <random>

#include <weft/error.h>

#include "checkpoint.h"
#include "model.h"
#include "reference.h"
#include "train.h"

using namespace weft::volumetric;

namespace {

const char* kModel = R"({
  "grid": {"depth": 1, "rows": 1, "cols": 3, "layers_per_cell": 1, "input": 4, "seed": 11},
  "layers": [
    {"at": [0, 0, 0, 0], "type": "dense", "in": 4, "out": 8, "activation": "tanh"},
    {"at": [0, 0, 1, 0], "type": "residual", "children": [{"type": "layernorm", "in": 8}, {"type": "dense", "in": 8, "out": 8}]},
    {"at": [0, 0, 2, 0], "type": "dense", "in": 8, "out": 2}
  ]
})";

struct Task {
  std::vector<std::vector<float>> x, y;
};

// A fixed random teacher: y = tanh(A x), 8 samples.
Task teacher() {
  std::mt19937 rng(3);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> A(8);
  for (float& a : A) a = d(rng);
  Task t;
  for (int s = 0; s < 8; ++s) {
    std::vector<float> x(4);
    for (float& v : x) v = d(rng);
    t.x.push_back(x);
    t.y.push_back({std::tanh(A[0] * x[0] + A[1] * x[1] + A[2] * x[2] + A[3] * x[3]),
                   std::tanh(A[4] * x[0] + A[5] * x[1] + A[6] * x[2] + A[7] * x[3])});
  }
  return t;
}

// Mean loss of each epoch.
std::vector<double> train(Network& net, TrainOptions o, int epochs) {
  const Task t = teacher();
  Trainer tr(net, o);
  std::vector<double> out;
  for (int e = 0; e < epochs; ++e) {
    double s = 0;
    for (size_t k = 0; k < t.x.size(); ++k) s += tr.step(t.x[k], t.y[k]);
    out.push_back(s / t.x.size());
  }
  return out;
}

}  // namespace

TEST_CASE("volumetric training: SGD and Adam lower the loss on the CPU, in f32 and int8") {
  for (Optimizer opt : {Optimizer::SGD, Optimizer::Adam})
    for (DType t : {DType::F32, DType::I8}) {
      Network net = parse_model(std::string(kModel), "m.json");
      net.set_dtype(t);
      TrainOptions o;
      o.optimizer = opt;
      o.lr = opt == Optimizer::SGD ? 0.05f : 0.01f;
      const auto losses = train(net, o, 40);
      INFO("optimizer " << int(opt) << " dtype " << dtype_name(t) << " first " << losses.front() << " last " << losses.back());
      CHECK(losses.back() < 0.3 * losses.front());
    }
}

TEST_CASE("volumetric training: a step drops the packed versions") {
  Network net = parse_model(std::string(kModel), "m.json");
  net.set_dtype(DType::I4);
  Trainer tr(net, {});
  const Task t = teacher();
  tr.step(t.x[0], t.y[0]);
  CHECK(!net.at(0).mats[0].has_version(DType::I4));
  MeshState s = initial_state(net);
  forward(net, t.x[0], s);
  CHECK(net.at(0).mats[0].has_version(DType::I4));

}

TEST_CASE("volumetric training: a grid of every layer kind trains on the CPU (lower loss)") {
  Network net = parse_model(std::string(R"({
    "grid": {"depth": 1, "rows": 1, "cols": 6, "layers_per_cell": 1, "input": 4, "seed": 9, "dtype": "int8"},
    "layers": [
      {"at": [0, 0, 0, 0], "type": "dense", "in": 4, "out": 12, "activation": "tanh"},
      {"at": [0, 0, 1, 0], "type": "mha", "in": 4, "seq": 3, "heads": 2},
      {"at": [0, 0, 2, 0], "type": "swiglu", "in": 4, "out": 8, "seq": 3},
      {"at": [0, 0, 3, 0], "type": "lstm", "in": 4, "out": 4, "seq": 3},
      {"at": [0, 0, 4, 0], "type": "gru", "in": 4, "out": 4, "seq": 3},
      {"at": [0, 0, 5, 0], "type": "conv1d", "channels": 3, "seq": 4, "filters": 1, "kernel": 3}
    ]})"), "m.json");
  TrainOptions o;
  o.lr = 0.01f;
  const auto losses = train(net, o, 40);
  INFO("first " << losses.front() << " last " << losses.back());
  CHECK(losses.back() < 0.5 * losses.front());
}

TEST_CASE("volumetric checkpoint: save -> load is bit-exact for every numeric type and layer kind") {
  const std::string path = "/tmp/weft_volumetric_ckpt_test.bin";
  for (DType t : all_dtypes()) {
    Network net = parse_model(std::string(R"({
      "grid": {"depth": 1, "rows": 2, "cols": 2, "layers_per_cell": 1, "input": 12, "seed": 5},
      "layers": [
        {"at": [0, 0, 0, 0], "type": "dense", "in": 12, "out": 40, "activation": "silu", "remote": [0, 1, 1, 0]},
        {"at": [0, 0, 1, 0], "type": "parallel", "combine": "concat", "children": [
           {"type": "swiglu", "in": 40, "out": 8}, {"type": "sequential", "children": [{"type": "rmsnorm", "in": 40}]}]},
        {"at": [0, 1, 0, 0], "type": "gru", "in": 20, "out": 6, "seq": 4},
        {"at": [0, 1, 1, 0], "type": "conv1d", "channels": 3, "seq": 8, "filters": 2, "kernel": 3}
      ]})"), "m.json");
    net.set_dtype(t);
    save_checkpoint(net, path);
    Network back = load_checkpoint(path);
    CHECK(model_to_json(back) == model_to_json(net));
    for (uint32_t i = 0; i < net.size(); ++i) {
      std::function<void(Layer&, Layer&)> same = [&](Layer& a, Layer& b) {
        REQUIRE(a.mats.size() == b.mats.size());
        for (size_t k = 0; k < a.mats.size(); ++k) CHECK(a.mats[k].morph(t) == b.mats[k].morph(t));
        CHECK(a.vecs == b.vecs);
        for (size_t c = 0; c < a.children.size(); ++c) same(a.children[c], b.children[c]);
      };
      same(net.at(i), back.at(i));
    }
    const std::vector<float> x = {0.1f, -0.4f, 0.7f, 0.2f, -0.9f, 0.5f, 0.3f, 0.3f, -0.1f, 0.8f, -0.6f, 0.0f};
    MeshState s1 = initial_state(net), s2 = initial_state(back);
    for (int pass = 0; pass < 2; ++pass) CHECK(forward(net, x, s1) == forward(back, x, s2));
  }
  // Every single-byte corruption either loads or is refused with weft::Error, never crashes.
  {
    std::ifstream f(path, std::ios::binary);
    const std::string good((std::istreambuf_iterator<char>(f)), {});
    for (size_t i = 0; i < good.size(); i += 7) {
      std::string bad = good;
      bad[i] = char(bad[i] ^ 0x5A);
      {
        std::ofstream o(path, std::ios::binary | std::ios::trunc);
        o.write(bad.data(), std::streamsize(bad.size()));
      }
      try {
        load_checkpoint(path);
      } catch (const weft::Error&) {
      }
    }
    std::ofstream o(path, std::ios::binary | std::ios::trunc);
    o.write(good.data(), std::streamsize(good.size()));
  }
  // Truncated and foreign files are refused.
  std::string data;
  {
    std::ifstream f(path, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(f), {});
  }
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(data.data(), std::streamsize(data.size() - 3));
  }
  try {
    load_checkpoint(path);
    FAIL("truncated checkpoint accepted");
  } catch (const weft::Error& e) {
    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
  }
  {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << "not a checkpoint at all";
  }
  CHECK_THROWS_AS(load_checkpoint(path), weft::Error);
  std::remove(path.c_str());
}

// Regression (fuzzing): a NaN or infinite weight or vector value loaded, so the network failed
// only later, in pack() naming no file, when it changed type. Now refused at the value's byte.
TEST_CASE("volumetric checkpoint: a weight or vector value that is not finite is refused naming the cell and the byte") {
  Network net = parse_model(std::string(R"({"grid": {"depth": 1, "rows": 1, "cols": 1, "layers_per_cell": 1, "input": 2},
    "layers": [{"at": [0, 0, 0, 0], "type": "dense", "in": 2, "out": 2}]})"), "m.json");
  const std::string good = checkpoint_bytes(net);
  uint64_t model_length = 0;
  std::memcpy(&model_length, good.data() + 8, 8);
  // f32 2 x 2: a 32-byte matrix header, 4 words, no scales; then the bias: its length, 2 floats.
  const size_t words_at = 16 + model_length + 32, bias_at = words_at + 16 + 8;
  const auto refusal = [&](size_t at, float value) {
    std::string bad = good;
    std::memcpy(bad.data() + at, &value, 4);
    try {
      parse_checkpoint(bad, "bad.ckpt");
    } catch (const weft::Error& e) {
      CHECK(e.code() == weft::ErrorCode::BadInput);
      return std::string(e.what());
    }
    FAIL("a value that is not finite was accepted");
    return std::string();
  };
  const std::string nan_weight = refusal(words_at + 12, std::nanf(""));
  CHECK(nan_weight.find("bad.ckpt: byte " + std::to_string(words_at) + ": cell (0, 0, 0, 0): matrix 0 weight (row 1, column 1) is not finite") !=
        std::string::npos);
  const std::string inf_bias = refusal(bias_at + 4, INFINITY);
  CHECK(inf_bias.find("bad.ckpt: byte " + std::to_string(bias_at + 4) + ": cell (0, 0, 0, 0): vector 0 value 1 is not finite") !=
        std::string::npos);
  CHECK_NOTHROW(parse_checkpoint(good, "good.ckpt"));
}

// Every input the checkpoint fuzzing found mishandled: refused-* are bad input, loads-* load (they
// showed undefined behaviour under the sanitizers, which the fuzz target's long runs check).
TEST_CASE("volumetric checkpoint: the fuzz regressions load or are refused as bad input, as named") {
  size_t replayed = 0;
  for (const auto& e : std::filesystem::directory_iterator(WEFT_VOLUMETRIC_CHECKPOINT_REGRESSIONS)) {
    const std::string name = e.path().filename().string();
    CAPTURE(name);
    REQUIRE((name.starts_with("refused-") || name.starts_with("loads-")));
    std::ifstream f(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), {});
    if (name.starts_with("loads-")) {
      Network net = parse_checkpoint(bytes, name);
      CHECK(checkpoint_bytes(net) == bytes);
    } else {
      try {
        parse_checkpoint(bytes, name);
        FAIL("accepted");
      } catch (const weft::Error& err) {
        CHECK(err.code() == weft::ErrorCode::BadInput);
      }
    }
    ++replayed;
  }
  CHECK(replayed > 0);
}
