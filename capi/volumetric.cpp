// Volumetric networks (workloads/volumetric) through the C ABI: a model from its JSON file, text
// or a checkpoint; the CPU reference's passes and ticks; the device step mesh; CPU and device
// training; DNA comparison. Arrays are caller-owned floats of the model's input/output size.
#include <cstring>
#include <functional>

#include "handles.h"
#include "volumetric.h"

using namespace weft;
using namespace weft::volumetric;
using weft::capi::guard;
using weft::capi::require;

// A model is shared by the meshes and trainers made from it (the CPU trainer steps its weights in
// place, the device trainer downloads into it); calls on one model must not run concurrently.
struct weft_volumetric_model {
  std::atomic<int> refs{1};
  std::shared_ptr<Network> net;
};

struct weft_volumetric_mesh {
  std::atomic<int> refs{1};
  std::shared_ptr<Device> device;  // outlives mesh
  std::shared_ptr<Network> net;
  std::unique_ptr<DeviceMesh> mesh;
};

struct weft_volumetric_trainer {
  std::atomic<int> refs{1};
  std::shared_ptr<Device> device;  // null: the CPU trainer
  std::shared_ptr<Network> net;
  std::unique_ptr<Trainer> cpu;
  std::unique_ptr<DeviceTrainer> gpu;
};

namespace {

weft_status make_model(const char* function, const char* argument, const char* given, weft_volumetric_model** model,
                       const std::function<Network()>& build) {
  return guard([&] {
    require(given, function, argument);
    require(model, function, "model");
    *model = nullptr;
    auto h = std::make_unique<weft_volumetric_model>();
    h->net = std::make_shared<Network>(build());
    *model = h.release();
  });
}

std::vector<float> values(const float* p, uint32_t n) { return std::vector<float>(p, p + n); }

Schedule schedule_of(int tick_schedule) { return tick_schedule ? Schedule::Tick : Schedule::Pass; }

}  // namespace

extern "C" {

weft_status weft_volumetric_model_load(const char* path, weft_volumetric_model** model) {
  return make_model("weft_volumetric_model_load", "path", path, model, [&] { return load_model(path); });
}

weft_status weft_volumetric_model_from_json(const char* text, weft_volumetric_model** model) {
  return make_model("weft_volumetric_model_from_json", "text", text, model, [&] { return parse_model(std::string(text), "<json text>"); });
}

weft_status weft_volumetric_model_load_checkpoint(const char* path, weft_volumetric_model** model) {
  return make_model("weft_volumetric_model_load_checkpoint", "path", path, model, [&] { return load_checkpoint(path); });
}

weft_status weft_volumetric_model_save_checkpoint(weft_volumetric_model* model, const char* path) {
  return guard([&] {
    require(model, "weft_volumetric_model_save_checkpoint", "model");
    require(path, "weft_volumetric_model_save_checkpoint", "path");
    save_checkpoint(*model->net, path);
  });
}

weft_status weft_volumetric_model_sizes(const weft_volumetric_model* model, uint32_t* input_size, uint32_t* output_size, uint32_t* cells) {
  return guard([&] {
    require(model, "weft_volumetric_model_sizes", "model");
    if (input_size) *input_size = model->net->input_size();
    if (output_size) *output_size = model->net->output_size();
    if (cells) *cells = model->net->size();
  });
}

weft_status weft_volumetric_model_set_dtype(weft_volumetric_model* model, const char* dtype) {
  return guard([&] {
    require(model, "weft_volumetric_model_set_dtype", "model");
    require(dtype, "weft_volumetric_model_set_dtype", "dtype");
    model->net->set_dtype(parse_dtype(dtype));
  });
}

weft_status weft_volumetric_forward(weft_volumetric_model* model, const float* x, uint32_t steps, int tick_schedule, float* y) {
  return guard([&] {
    require(model, "weft_volumetric_forward", "model");
    require(x, "weft_volumetric_forward", "x");
    require(y, "weft_volumetric_forward", "y");
    const MeshState s = run_reference(*model->net, values(x, model->net->input_size()), MeshOptions{schedule_of(tick_schedule), steps});
    std::memcpy(y, s.out.back().data(), s.out.back().size() * sizeof(float));
  });
}

void weft_volumetric_model_release(weft_volumetric_model* model) { capi::release(model); }

weft_status weft_volumetric_mesh_create(weft_device* device, weft_volumetric_model* model, int tick_schedule, uint32_t steps,
                                        weft_volumetric_mesh** mesh) {
  return guard([&] {
    require(device, "weft_volumetric_mesh_create", "device");
    require(model, "weft_volumetric_mesh_create", "model");
    require(mesh, "weft_volumetric_mesh_create", "mesh");
    *mesh = nullptr;
    auto h = std::make_unique<weft_volumetric_mesh>();
    h->device = device->device;
    h->net = model->net;
    h->mesh = std::make_unique<DeviceMesh>(*h->device, *h->net, MeshOptions{schedule_of(tick_schedule), steps});
    *mesh = h.release();
  });
}

weft_status weft_volumetric_mesh_forward(weft_volumetric_mesh* mesh, const float* x, float* y) {
  return guard([&] {
    require(mesh, "weft_volumetric_mesh_forward", "mesh");
    require(x, "weft_volumetric_mesh_forward", "x");
    require(y, "weft_volumetric_mesh_forward", "y");
    mesh->mesh->set_input(values(x, mesh->net->input_size()));
    mesh->mesh->run();
    const std::vector<float> out = mesh->mesh->output();
    std::memcpy(y, out.data(), out.size() * sizeof(float));
  });
}

void weft_volumetric_mesh_release(weft_volumetric_mesh* mesh) { capi::release(mesh); }

void weft_volumetric_train_options_default(weft_volumetric_train_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  const TrainOptions d;
  options->sgd = d.optimizer == Optimizer::SGD;
  options->lr = d.lr, options->beta1 = d.beta1, options->beta2 = d.beta2, options->eps = d.eps;
  options->cross_entropy = d.loss == Loss::CrossEntropy;
}

weft_status weft_volumetric_trainer_create(weft_device* device, weft_volumetric_model* model, const weft_volumetric_train_options* options,
                                           weft_volumetric_trainer** trainer) {
  return guard([&] {
    const char* fn = "weft_volumetric_trainer_create";
    require(model, fn, "model");
    require(trainer, fn, "trainer");
    *trainer = nullptr;
    const weft_volumetric_train_options o = capi::options_or_default(options, weft_volumetric_train_options_default, fn);
    TrainOptions t;
    t.optimizer = o.sgd ? Optimizer::SGD : Optimizer::Adam;
    t.lr = o.lr, t.beta1 = o.beta1, t.beta2 = o.beta2, t.eps = o.eps;
    t.loss = o.cross_entropy ? Loss::CrossEntropy : Loss::MSE;
    auto h = std::make_unique<weft_volumetric_trainer>();
    h->net = model->net;
    if (device) {
      h->device = device->device;
      h->gpu = std::make_unique<DeviceTrainer>(*h->device, *h->net, t);
    } else {
      h->cpu = std::make_unique<Trainer>(*h->net, t);
    }
    *trainer = h.release();
  });
}

weft_status weft_volumetric_trainer_step(weft_volumetric_trainer* trainer, const float* x, const float* target, float* loss) {
  return guard([&] {
    require(trainer, "weft_volumetric_trainer_step", "trainer");
    require(x, "weft_volumetric_trainer_step", "x");
    require(target, "weft_volumetric_trainer_step", "target");
    const auto in = values(x, trainer->net->input_size()), want = values(target, trainer->net->output_size());
    const float l = trainer->gpu ? trainer->gpu->step(in, want) : trainer->cpu->step(in, want);
    if (loss) *loss = l;
  });
}

weft_status weft_volumetric_trainer_download(weft_volumetric_trainer* trainer) {
  return guard([&] {
    require(trainer, "weft_volumetric_trainer_download", "trainer");
    if (trainer->gpu) trainer->gpu->download(*trainer->net);
  });
}

void weft_volumetric_trainer_release(weft_volumetric_trainer* trainer) { capi::release(trainer); }

weft_status weft_volumetric_dna_compare(const weft_volumetric_model* a, const weft_volumetric_model* b, double* overall) {
  return guard([&] {
    require(a, "weft_volumetric_dna_compare", "a");
    require(b, "weft_volumetric_dna_compare", "b");
    require(overall, "weft_volumetric_dna_compare", "overall");
    *overall = compare_dna(extract_dna(*a->net), extract_dna(*b->net)).overall;
  });
}

}  // extern "C"
