// weft volumetric run|dna|bench: grid-of-layers networks (workloads/volumetric).
//
//   weft volumetric run MODEL.json [--passes N] [--ticks T] [--train STEPS] [--optimizer sgd|adam]
//                                  [--lr X] [--seed S] [--save FILE] [--device SEL] [--validation]
//     loads a model file; N forward passes on the device (weights computed from their packed
//     types) and on the CPU reference, compared pass by pass (remote links to later cells give
//     recurrence across passes); T step-mesh ticks in one submission against the reference and
//     a replay (determinism); optionally trains on a seeded teacher task on the CPU and on the
//     device and compares; optionally saves a packed checkpoint and checks the reload.
//   weft volumetric train MODEL.json --data FILE [--labels Y.npy] [--epochs N] [--batch B]
//                         [--loss ce|mse] [--optimizer sgd|adam] [--lr X] [--cpu] [--dtype T]
//                         [--scale F] [--test-fraction F] [--seed S] [--min-accuracy A]
//     trains a classifier on a CSV or .npy data set (a seeded train / test split, seeded
//     shuffles per epoch, mini-batches) on the device (default) or the CPU; prints each
//     epoch's mean training loss and the held-out accuracy (CPU reference, the model's types).
//   weft volumetric dna MODEL.json   DNA overlap of the model against itself in every type.
//   weft volumetric dna A B          two models (.json files or checkpoints), position by position.
//   weft volumetric bench [--size N] [--seq S] [--runs R] [--all-types] [--table] [--device SEL]
//     JSON lines per layer type x numeric type: CPU reference time vs device time to completion
//     (GPU timestamps, and wall time including reading the output back), packed weight memory;
//     --table prints the same figures as a table.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "checkpoint.h"
#include "cli.h"
#include "dataset.h"
#include "conformance.h"
#include "device_train.h"
#include "dna.h"
#include "mesh.h"
#include "model.h"
#include "reference.h"
#include "train.h"

namespace {

using weft::conformance::compare;

using namespace weft;
using namespace weft::volumetric;
using weft::volumetric::DType;
using cli::f32;
using cli::u32;

// `weft help` lines of this command.
const char* const kHelpLines =
    "  volumetric run MODEL.json|train MODEL.json --data FILE|dna MODEL.json|bench [--passes N --ticks T --train STEPS --save FILE]\n"
    "                                          grid-of-layers networks in 21 numeric types vs the CPU reference\n";

const char* kUsage =
    "usage: weft volumetric run MODEL.json [--passes N] [--ticks T] [--train STEPS] [--optimizer sgd|adam]\n"
    "                                      [--lr X] [--seed S] [--save FILE] [--device SEL] [--validation]\n"
    "       weft volumetric train MODEL.json --data FILE.csv|X.npy [--labels Y.npy] [--epochs N] [--batch B]\n"
    "                                      [--loss ce|mse] [--optimizer sgd|adam] [--lr X] [--cpu] [--dtype T]\n"
    "                                      [--scale F] [--test-fraction F] [--seed S] [--min-accuracy A]\n"
    "       weft volumetric dna MODEL.json [OTHER.json|OTHER.ckpt]\n"
    "       weft volumetric bench [--size N] [--seq S] [--runs R] [--all-types] [--table] [--device SEL]\n"
    "  run:   forward passes and step-mesh ticks on the device vs the CPU reference, optional training\n"
    "         (CPU and device) and packed checkpoint round trip\n"
    "  train: a classifier on a data set (CSV: features then the label; .npy: float32 features and\n"
    "         int labels), seeded split and shuffles, mini-batches, on the device or --cpu; per-epoch\n"
    "         loss and held-out accuracy; exit 1 below --min-accuracy\n"
    "  dna:   overlap of the model with itself morphed to every numeric type; with a second model\n"
    "         (a .json file or a checkpoint) the two compared position by position\n"
    "  bench: JSON lines per layer type x numeric type: CPU vs device time to completion, memory\n"
    "         (Dense in all 21 types; the other layers in f32, int8, int4, or all 21 with --all-types);\n"
    "         --table prints a human-readable table instead\n";

constexpr double kPassBound = 2e-5;  // per pass, normalized (see workloads/volumetric/conformance.cpp)

// Inputs in [-1, 1]; an Embedding first cell gets token ids instead.
std::vector<float> random_input(const Network& net, std::mt19937& rng) {
  std::vector<float> x(net.input_size());
  const Layer& first = net.at(0);
  if (first.type == LayerType::Embedding && !first.remote) {
    std::uniform_int_distribution<uint32_t> d(0, first.vocab - 1);
    for (float& v : x) v = float(d(rng));
  } else {
    std::uniform_real_distribution<float> d(-1, 1);
    for (float& v : x) v = d(rng);
  }
  return x;
}

bool all_device(const Network& net, std::string& why) {
  for (uint32_t i = 0; i < net.size(); ++i)
    if (!device_supports(net.at(i))) {
      why = net.where(i) + " is " + layer_type_name(net.at(i).type);
      return false;
    }
  return true;
}

std::string describe(const Layer& l) {
  std::string s = std::string(layer_type_name(l.type)) + " " + dtype_name(l.dtype) + " " + std::to_string(layer_input_size(l)) + "->" +
                  std::to_string(layer_output_size(l));
  if (!l.children.empty()) {
    s += " [";
    for (size_t c = 0; c < l.children.size(); ++c) s += (c ? ", " : "") + describe(l.children[c]);
    s += "]";
  }
  return s;
}

uint64_t packed_bytes(Layer& l) {
  uint64_t b = 0;
  for (WeightStore& m : l.mats) b += m.morph(l.dtype).bytes();
  for (const auto& v : l.vecs) b += v.size() * 4;
  for (Layer& c : l.children) b += packed_bytes(c);
  return b;
}

uint64_t f32_bytes(const Layer& l) {
  uint64_t b = 0;
  for (const WeightStore& m : l.mats) b += m.master().size() * 4;
  for (const auto& v : l.vecs) b += v.size() * 4;
  for (const Layer& c : l.children) b += f32_bytes(c);
  return b;
}

void print_model(Network& net, const Device& dev, const std::string& path) {
  std::printf("device: %s\nmodel: %s, grid %u x %u x %u x %u (depth, rows, cols, layers per cell), input %u, output %u\n",
              dev.info().name.c_str(), path.c_str(), net.depth(), net.rows(), net.cols(), net.layers_per_cell(),
              net.input_size(), net.output_size());
  uint64_t packed = 0, full = 0;
  for (uint32_t i = 0; i < net.size(); ++i) {
    Layer& l = net.at(i);
    const auto src = net.source(i);
    std::printf("  %-20s %-60s reads %s\n", net.where(i).c_str(), describe(l).c_str(),
                !src ? "the input" : (l.remote ? (net.where(*src) + (*src >= i ? " (remote, previous pass)" : " (remote)")).c_str()
                                               : net.where(*src).c_str()));
    packed += packed_bytes(l);
    full += f32_bytes(l);
  }
  std::printf("weights: %llu bytes packed (%llu as f32)\n\n", (unsigned long long)packed, (unsigned long long)full);
}

void print_head(const char* label, const std::vector<float>& v) {
  std::printf("%s", label);
  for (size_t k = 0; k < std::min<size_t>(4, v.size()); ++k) std::printf("%.5f ", double(v[k]));
}

// `passes` forward passes on the device and the CPU reference side by side (cells fed by a link
// to a later cell carry state from pass to pass); false when an error passes its bound.
bool run_passes(Device& dev, Network& net, const std::vector<float>& x, uint32_t passes) {
  bool ok = true;
  MeshState ref = initial_state(net);
  DeviceMesh mesh(dev, net, {Schedule::Pass, 1});
  mesh.set_input(x);
  std::printf("forward passes (device computes from packed weights; bound %.0e x pass):\n", kPassBound);
  for (uint32_t p = 0; p < passes; ++p) {
    const auto y = forward(net, x, ref);
    mesh.run();
    const auto d = mesh.output();
    const double e = compare(d, y).normalized_max();
    ok = ok && e <= kPassBound * (p + 1);
    std::printf("  pass %u: output[0..%zu) ", p + 1, std::min<size_t>(4, d.size()));
    print_head("device ", d);
    print_head(" cpu ", y);
    std::printf(" err %.2e  gpu %.3f ms\n", e, mesh.gpu_ns() * 1e-6);
    for (uint32_t i = 0; i < net.size(); ++i)
      if (net.at(i).remote && *net.at(i).remote >= i) {
        const auto di = mesh.output(i);
        const double e2 = compare(di, ref.out[i]).normalized_max();
        ok = ok && e2 <= kPassBound * (p + 1);
        double n2 = 0;
        for (float v : di) n2 += double(v) * v;
        std::printf("          recurrent %s: |y| device %.5f, err %.2e\n", net.where(i).c_str(), std::sqrt(n2), e2);
      }
  }
  return ok;
}

// `ticks` steps of the step mesh in one submission against the reference, and its replay from
// the initial state bit for bit.
bool run_step_mesh(Device& dev, Network& net, const std::vector<float>& x, uint32_t ticks) {
  DeviceMesh tick(dev, net, {Schedule::Tick, ticks});
  tick.set_input(x);
  MeshState st = initial_state(net);
  for (uint32_t t = 0; t < ticks; ++t) step(net, x, st);
  tick.run();
  double worst = 0;
  for (uint32_t i = 0; i < net.size(); ++i) worst = std::max(worst, compare(tick.output(i), st.out[i]).normalized_max());
  const auto first = tick.state();
  tick.set_state(initial_state(net));
  tick.run();
  const bool same = tick.state().out == first.out;
  std::printf("\nstep mesh: %u ticks in one submission (double-buffered, every cell reads the previous tick)\n", ticks);
  std::printf("  worst cell error vs reference %.2e, replay bit-identical: %s, gpu %.3f ms\n", worst, same ? "yes" : "NO",
              tick.gpu_ns() * 1e-6);
  return same && worst <= kPassBound * ticks;
}

// Teacher: y = tanh(A x) with a fixed random A, 8 samples.
struct Samples {
  std::vector<std::vector<float>> xs, ys;
};
Samples teacher_samples(const Network& net, std::mt19937& rng) {
  const uint32_t in = net.input_size(), out = net.output_size();
  std::normal_distribution<float> nd(0, 1);
  std::vector<float> A(uint64_t(in) * out);
  for (float& v : A) v = nd(rng) / std::sqrt(float(in));
  Samples s;
  for (int k = 0; k < 8; ++k) {
    const auto xk = random_input(net, rng);
    std::vector<float> yk(out);
    for (uint32_t o = 0; o < out; ++o) {
      double sum = 0;
      for (uint32_t i = 0; i < in; ++i) sum += A[uint64_t(o) * in + i] * xk[i];
      yk[o] = float(std::tanh(sum));
    }
    s.xs.push_back(xk);
    s.ys.push_back(yk);
  }
  return s;
}

TrainOptions train_options(const cli::Args& a) {
  const std::string opt = a.get("optimizer", "adam");
  if (opt != "sgd" && opt != "adam") fail(ErrorCode::BadInput, "--optimizer must be sgd or adam");
  TrainOptions o;
  o.optimizer = opt == "sgd" ? Optimizer::SGD : Optimizer::Adam;
  o.lr = f32(a, "lr", o.optimizer == Optimizer::SGD ? 0.05f : 0.01f);
  o.loss = parse_loss(a.get("loss", "mse"));
  return o;
}

double mean_loss(Network& n, const Samples& data) {
  double s = 0;
  for (size_t k = 0; k < data.xs.size(); ++k) {
    MeshState z = initial_state(n);
    s += mse(forward(n, data.xs[k], z), data.ys[k]);
  }
  return s / double(data.xs.size());
}

void copy_masters(Layer& to, Layer& from) {
  for (size_t m = 0; m < to.mats.size(); ++m) to.mats[m].set_master(from.mats[m].master());
  to.vecs = from.vecs;
  for (size_t c = 0; c < to.children.size(); ++c) copy_masters(to.children[c], from.children[c]);
}

// CPU and device training side by side on the teacher's samples, then the trained masters into
// `net` (device's when it can train, else the CPU's); false when they disagree or do not learn.
bool run_training(Device& dev, Network& net, const cli::Args& a, uint32_t steps, std::mt19937& rng) {
  const Samples data = teacher_samples(net, rng);
  const TrainOptions o = train_options(a);
  // Both sides train the f32 masters (see device_train.h); the model keeps its types.
  Network cpu_net = net, dev_net = net;
  cpu_net.set_dtype(DType::F32);
  dev_net.set_dtype(DType::F32);
  Trainer cpu(cpu_net, o);
  std::unique_ptr<DeviceTrainer> gpu;
  try {
    gpu = std::make_unique<DeviceTrainer>(dev, dev_net, o);
  } catch (const Error& e) {
    std::printf("\ndevice training unavailable: %s\n", e.what());
  }
  std::printf("\ntraining (%s, lr %g, %u steps, teacher y = tanh(A x), 8 samples, MSE; f32 masters):\n",
              o.optimizer == Optimizer::SGD ? "sgd" : "adam", double(o.lr), steps);
  const double before = mean_loss(net, data);
  // Learning is judged on two windows that each cover every sample once, so it needs two passes
  // over the samples; fewer steps are still compared CPU against device, step by step.
  const uint32_t samples = uint32_t(data.xs.size()), window = std::max(1u, std::min(samples, steps / 2));
  const bool judge_learning = steps >= 2 * samples;
  double cpu_first = 0, cpu_last = 0, dev_first = 0, dev_last = 0, worst = 0, dev_ns = 0;
  for (uint32_t s = 0; s < steps; ++s) {
    const size_t k = s % data.xs.size();
    const double lc = cpu.step(data.xs[k], data.ys[k]);
    const double ld = gpu ? gpu->step(data.xs[k], data.ys[k]) : NAN;
    if (gpu) dev_ns += gpu->gpu_ns();
    if (s < window) cpu_first += lc / window, dev_first += ld / window;
    if (s + window >= steps) cpu_last += lc / window, dev_last += ld / window;
    if (gpu) worst = std::max(worst, std::fabs(lc - ld) / std::max(1e-3, lc));
  }
  std::printf("  first %u steps mean loss: cpu %.5f device %.5f\n  last %u steps mean loss:  cpu %.5f device %.5f\n", window,
              cpu_first, dev_first, window, cpu_last, dev_last);
  if (!judge_learning)
    std::printf("  (learning is judged from %u steps on, two passes over the %u samples; here only CPU vs device)\n",
                2 * samples, samples);
  bool ok = !judge_learning || cpu_last < cpu_first;
  if (gpu) {
    std::printf("  worst per-step loss difference (relative) %.2e; device gpu time %.3f ms per step\n", worst,
                dev_ns / steps * 1e-6);
    gpu->download(net);  // trained masters into the model; its packed versions re-make on use
    ok = ok && worst <= 1e-3 && (!judge_learning || dev_last < dev_first);
  } else {
    for (uint32_t i = 0; i < net.size(); ++i) copy_masters(net.at(i), cpu_net.at(i));
  }
  std::printf("  the model in its own numeric types (packed from the trained masters): loss %.5f -> %.5f\n", before,
              mean_loss(net, data));
  return ok;
}

// Save, reload, and compare outputs and the model description bit for bit.
bool check_checkpoint(Network& net, const std::vector<float>& x, const std::string& path) {
  save_checkpoint(net, path);
  Network back = load_checkpoint(path);
  MeshState s1 = initial_state(net), s2 = initial_state(back);
  const bool same = forward(net, x, s1) == forward(back, x, s2) && model_to_json(net) == model_to_json(back);
  std::printf("\ncheckpoint: %s (packed weights per layer type); reload gives bit-identical outputs: %s\n", path.c_str(),
              same ? "yes" : "NO");
  return same;
}

int run_model(const cli::Args& a) {
  if (a.positional.size() < 2) fail(ErrorCode::BadInput, "volumetric run needs a model file");
  Network net = load_model(a.positional[1]);
  const uint32_t passes = std::max(1u, u32(a, "passes", 3)), ticks = u32(a, "ticks", 4), train_steps = u32(a, "train", 0);
  std::mt19937 rng(u32(a, "seed", 1));
  auto dev = open_device(a);
  print_model(net, *dev, a.positional[1]);
  std::string why;
  const bool on_device = all_device(net, why);
  const std::vector<float> x = random_input(net, rng);
  bool ok = true;
  if (!on_device) {
    std::printf("no device kernel for %s: CPU reference only\n", why.c_str());
    MeshState ref = initial_state(net);
    for (uint32_t p = 0; p < passes; ++p) {
      std::printf("pass %u: output[0..%zu) = ", p + 1, std::min<size_t>(4, net.output_size()));
      print_head("", forward(net, x, ref));
      std::printf("\n");
    }
  } else {
    ok = run_passes(*dev, net, x, passes);
    if (ticks) ok = run_step_mesh(*dev, net, x, ticks) && ok;
  }
  if (train_steps) ok = run_training(*dev, net, a, train_steps, rng) && ok;
  if (const std::string path = a.get("save"); !path.empty()) ok = check_checkpoint(net, x, path) && ok;
  std::printf("\n%s\n", ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}

// The data set of `train`: loaded, scaled, checked against the network, split.
Split training_data(const cli::Args& a, const Network& net) {
  const std::string path = a.get("data");
  if (path.empty()) fail(ErrorCode::BadInput, "volumetric train needs --data FILE (.csv, or .npy with --labels)");
  Dataset d = load_dataset(path, a.get("labels"));
  scale_features(d, f32(a, "scale", 1.0f));
  check_dataset(d, net);
  return split_dataset(d, f32(a, "test-fraction", 0.2f), u32(a, "seed", 1));
}

int run_train(const cli::Args& a) {
  if (a.positional.size() < 2) fail(ErrorCode::BadInput, "volumetric train needs a model file");
  Network net = load_model(a.positional[1]);
  if (const std::string t = a.get("dtype"); !t.empty()) net.set_dtype(parse_dtype(t));
  TrainOptions o = train_options(a);
  if (a.get("loss").empty()) o.loss = Loss::CrossEntropy;  // a classifier: cross-entropy unless told
  const Split data = training_data(a, net);
  const uint32_t epochs = u32(a, "epochs", 10), batch = std::max(1u, u32(a, "batch", 32)), seed = u32(a, "seed", 1);
  const bool cpu = a.flag("cpu");
  const float min_acc = f32(a, "min-accuracy", 0.0f);  // checked before any training
  std::unique_ptr<Device> dev = cpu ? nullptr : open_device(a);
  std::unique_ptr<Trainer> cpu_trainer = cpu ? std::make_unique<Trainer>(net, o) : nullptr;
  std::unique_ptr<DeviceTrainer> dev_trainer = cpu ? nullptr : std::make_unique<DeviceTrainer>(*dev, net, o);
  std::printf("%s: %zu training / %zu test samples, %u features, %u classes; %s on the %s, %s, lr %g, batch %u, dtype %s\n",
              a.get("data").c_str(), data.train.size(), data.test.size(), data.train.features, net.output_size(), loss_name(o.loss),
              cpu ? "cpu" : dev->info().name.c_str(), o.optimizer == Optimizer::SGD ? "sgd" : "adam", double(o.lr), batch,
              a.get("dtype", "as in the model").c_str());
  const BatchStep step = [&](const auto& xs, const auto& ts) { return cpu ? cpu_trainer->step_batch(xs, ts) : dev_trainer->step_batch(xs, ts); };
  double acc = accuracy(net, data.test);
  std::printf("epoch 0: test accuracy %.4f\n", acc);
  for (uint32_t e = 1; e <= epochs; ++e) {
    const auto t0 = std::chrono::steady_clock::now();
    const double loss = run_epoch(data.train, net.output_size(), batch, uint64_t(seed) * 1000003u + e, step);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (dev_trainer) dev_trainer->download(net);  // the trained masters, re-packed in the model's types
    acc = accuracy(net, data.test);
    std::printf("epoch %u: train loss %.5f, test accuracy %.4f (%.2f s)\n", e, loss, acc, secs);
  }
  if (dev && dev->validation_enabled() && dev->validation().count() > 0) {
    std::printf("validation messages: %zu (the first: %s)\nFAIL\n", dev->validation().count(), dev->validation().messages()[0].c_str());
    return 1;
  }
  const bool ok = acc >= min_acc;
  std::printf("final test accuracy %.4f%s\n%s\n", acc, min_acc > 0 ? (ok ? " (>= --min-accuracy)" : " (below --min-accuracy)") : "",
              ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}

// A model file (.json) or a checkpoint (anything else; load_checkpoint refuses what is not one).
Network load_network(const std::string& path) {
  const bool json = path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0;
  return json ? load_model(path) : load_checkpoint(path);
}

std::string coord_text(Coord c) {
  return "(" + std::to_string(c.z) + "," + std::to_string(c.y) + "," + std::to_string(c.x) + "," + std::to_string(c.l) + ")";
}

// Two saved models, position by position: what each layer is and how much their weights overlap,
// then the patterns one model holds at another position.
int compare_two(const std::string& path_a, const std::string& path_b) {
  Network na = load_network(path_a), nb = load_network(path_b);
  const auto a = extract_dna(na), b = extract_dna(nb);
  const DnaComparison c = compare_dna(a, b);
  std::printf("DNA of %s against %s: overall overlap %.4f over %zu positions\n", path_a.c_str(), path_b.c_str(), c.overall, a.size());
  const auto layer_text = [](const Network& n, uint32_t i) {
    const Layer& l = n.at(i);
    return std::string(layer_type_name(l.type)) + " " + std::to_string(layer_input_size(l)) + "->" + std::to_string(layer_output_size(l)) +
           " " + dtype_name(l.dtype);
  };
  std::printf("  %-10s %-26s %-26s %s\n", "cell", "A", "B", "overlap");
  for (uint32_t i = 0; i < a.size(); ++i)
    std::printf("  %-10s %-26s %-26s %.4f\n", coord_text(a[i].at).c_str(), layer_text(na, i).c_str(), layer_text(nb, i).c_str(), c.overlap[i]);
  if (c.shifts.empty()) std::printf("no pattern of A found at another position of B (similarity > 0.8)\n");
  for (const LogicShift& s : c.shifts)
    std::printf("  A's %s is at B's %s (similarity %.4f)\n", coord_text(a[s.from].at).c_str(), coord_text(b[s.to].at).c_str(), s.similarity);
  return 0;
}

int run_dna(const cli::Args& a) {
  if (a.positional.size() < 2) fail(ErrorCode::BadInput, "volumetric dna needs a model file (and optionally a second one to compare with)");
  if (a.positional.size() >= 3) return compare_two(a.positional[1], a.positional[2]);
  Network net = load_model(a.positional[1]);
  Network f32 = net;
  f32.set_dtype(DType::F32);
  const auto ref = extract_dna(f32);
  std::printf("DNA overlap of %s (f32) with itself in each numeric type:\n", a.positional[1].c_str());
  for (DType t : all_dtypes()) {
    Network q = net;
    q.set_dtype(t);
    const DnaComparison c = compare_dna(ref, extract_dna(q));
    std::printf("  %-9s overall %.4f  shifts %zu\n", dtype_name(t), c.overall, c.shifts.size());
  }
  return 0;
}

// Median of `runs` device submissions (GPU timestamps and wall incl. read-back) and of CPU passes.
struct Timing {
  double gpu_ms, wall_ms, cpu_ms, err;
};

Timing time_cell(Device& dev, Network& net, uint32_t runs, bool device) {
  std::mt19937 rng(3);
  const auto x = random_input(net, rng);
  std::vector<double> cpu;
  std::vector<float> ref;
  for (uint32_t r = 0; r < runs; ++r) {
    MeshState s = initial_state(net);
    const auto t0 = std::chrono::steady_clock::now();
    ref = forward(net, x, s);
    cpu.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(cpu.begin(), cpu.end());
  Timing t{NAN, NAN, cpu[cpu.size() / 2], NAN};
  if (!device) return t;
  DeviceMesh mesh(dev, net);
  mesh.set_input(x);
  mesh.run();  // warm-up
  std::vector<double> gpu, wall;
  std::vector<float> y;
  for (uint32_t r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    mesh.run();
    y = mesh.output();
    wall.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    gpu.push_back(mesh.gpu_ns() * 1e-6);
  }
  std::sort(gpu.begin(), gpu.end());
  std::sort(wall.begin(), wall.end());
  t.gpu_ms = gpu[gpu.size() / 2];
  t.wall_ms = wall[wall.size() / 2];
  t.err = compare(y, ref).normalized_max();
  return t;
}

int run_bench(const cli::Args& a) {
  const uint32_t n = std::max(1u, u32(a, "size", 512)), seq = std::max(1u, u32(a, "seq", 8)), runs = std::max(1u, u32(a, "runs", 5));
  auto dev = open_device(a);
  const bool table = a.flag("table");
  if (table)
    std::printf("device: %s; medians of %u runs; gpu = GPU timestamps to completion, wall = + read-back\n%-17s %-9s %-28s %10s "
                "%10s %9s %9s %9s %8s %9s\n",
                dev->info().name.c_str(), runs, "layer", "type", "shape", "KiB", "f32 KiB", "cpu ms", "gpu ms", "wall ms", "cpu/gpu",
                "error");
  auto line = [&](Layer l, const std::string& shape) {
    init_layer(l, 7, "bench");
    Network net(1, 1, 1, 1, layer_input_size(l));
    net.at(0) = l;
    const bool device = device_supports(l);
    const Timing t = time_cell(*dev, net, runs, device);
    if (table) {
      std::printf("%-17s %-9s %-28s %10.1f %10.1f %9.3f %9.3f %9.3f %8.2f %9.1e\n", layer_type_name(l.type), dtype_name(l.dtype),
                  shape.c_str(), double(packed_bytes(net.at(0))) / 1024, double(f32_bytes(net.at(0))) / 1024, t.cpu_ms, t.gpu_ms, t.wall_ms,
                  t.cpu_ms / t.gpu_ms, t.err);
      return;
    }
    bench::Line("volumetric.layer", *dev)
        .str("layer", layer_type_name(l.type))
        .str("dtype", dtype_name(l.dtype))
        .str("shape", shape)
        .num("runs", runs)
        .num("weight_kib", double(packed_bytes(net.at(0))) / 1024)  // KiB: 6 significant digits stay exact here
        .num("f32_weight_kib", double(f32_bytes(net.at(0))) / 1024)
        .str("peer", "cpu_reference_1thread")
        .num("cpu_ms", t.cpu_ms)
        .boolean("device_kernel", device)
        .num("gpu_ms", t.gpu_ms)
        .num("device_wall_ms_incl_readback", t.wall_ms)
        .num("speedup_gpu_vs_cpu", t.cpu_ms / t.gpu_ms)
        .num("normalized_error", t.err)
        .print();
  };
  const std::string sq = std::to_string(n) + "x" + std::to_string(n);
  for (DType t : all_dtypes()) {
    Layer d;
    d.type = LayerType::Dense;
    d.in = d.out = n;
    d.dtype = t;
    line(d, sq);
  }
  for (LayerType k : {LayerType::RMSNorm, LayerType::LayerNorm, LayerType::Softmax}) {
    Layer l;
    l.type = k;
    l.in = n;
    l.seq = seq;
    line(l, std::to_string(seq) + "x" + std::to_string(n));
  }
  // Every other layer kind, in f32 / int8 / int4 (or all 21 types with --all-types).
  std::vector<DType> types = {DType::F32, DType::I8, DType::I4};
  if (a.flag("all-types")) types = all_dtypes();
  const uint32_t d = std::max(8u, n / 8 / 4 * 4);
  const std::string sd = std::to_string(seq) + "x" + std::to_string(d);
  for (DType t : types) {
    std::vector<std::pair<Layer, std::string>> layers;
    Layer l;
    l.dtype = t;
    l.seq = seq;
    l.type = LayerType::Embedding, l.vocab = 4 * d, l.out = d, layers.push_back({l, sd + " vocab " + std::to_string(4 * d)});
    l = Layer{}, l.dtype = t, l.seq = seq;
    l.type = LayerType::SwiGLU, l.in = d, l.out = 2 * d, layers.push_back({l, sd + " hidden " + std::to_string(2 * d)});
    l.type = LayerType::MHA, l.in = d, l.heads = 4, layers.push_back({l, sd + " heads 4"});
    for (LayerType k : {LayerType::RNN, LayerType::GRU, LayerType::LSTM}) {
      l = Layer{}, l.dtype = t, l.seq = seq, l.type = k, l.in = d, l.out = d;
      layers.push_back({l, sd});
    }
    l = Layer{}, l.dtype = t, l.type = LayerType::Conv1D, l.channels = 8, l.filters = 8, l.kernel = 3, l.seq = d;
    layers.push_back({l, "8ch x " + std::to_string(d) + " k3"});
    l = Layer{}, l.dtype = t, l.type = LayerType::Conv2D, l.channels = 4, l.filters = 8, l.kernel = 3, l.height = 16, l.width = 16;
    layers.push_back({l, "4ch x 16x16 k3"});
    l.type = LayerType::ConvT2D;
    layers.push_back({l, "4ch x 16x16 k3 (transposed)"});
    l.type = LayerType::Conv3D, l.depth = 8, l.height = 8, l.width = 8;
    layers.push_back({l, "4ch x 8x8x8 k3"});
    for (auto& [layer, shape] : layers) line(layer, shape);
  }
  return 0;
}

}  // namespace

WEFT_CLI_COMMAND(volumetric) {
  return {.name = "volumetric", .options = {"passes", "ticks", "train", "optimizer", "lr", "seed", "save", "device", "size", "seq",
              "runs", "data", "labels", "epochs", "batch", "loss", "dtype", "scale", "test-fraction", "min-accuracy"},
          .flags = {"validation", "all-types", "table", "cpu"},
          .verbs = {{"run", run_model}, {"train", run_train}, {"dna", run_dna}, {"bench", run_bench}},
          .usage = kHelpLines, .help = kUsage};
}
