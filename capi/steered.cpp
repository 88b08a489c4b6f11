// Steered generation through the C ABI: a GGUF model (weft_attention_model), a workflow compiled
// with its own tokenizer, and a token VM machine whose token source is the model on the device
// (compose::SteeredModel) — read with the weft_token_vm_* functions like any machine.
#include <cstring>

#include "token_vm_handles.h"

using namespace weft;
using weft::capi::guard;
using weft::capi::require;

struct weft_attention_model {
  std::atomic<int> refs{1};
  std::shared_ptr<const attention::Model> model;
};

extern "C" {

weft_status weft_attention_model_load(const char* path, weft_attention_model** model) {
  return guard([&] {
    require(path, "weft_attention_model_load", "path");
    require(model, "weft_attention_model_load", "model");
    *model = nullptr;
    auto h = std::make_unique<weft_attention_model>();
    h->model = std::make_shared<const attention::Model>(attention::Model::load(path));
    *model = h.release();
  });
}

void weft_attention_model_release(weft_attention_model* model) { capi::release(model); }

weft_status weft_token_vm_compile_for_model(const char* prompts, const weft_token_vm_compile_options* options, weft_attention_model* model,
                                            weft_token_vm_workflow** workflow) {
  if (workflow) *workflow = nullptr;
  std::shared_ptr<const token_vm::Tokenizer> tokenizer;
  const weft_status s = guard([&] {
    require(model, "weft_token_vm_compile_for_model", "model");
    tokenizer = std::make_shared<const token_vm::ModelTokenizer>(compose::steered_tokenizer(*model->model));
  });
  if (s != WEFT_OK) return s;
  return capi::compile_workflow("weft_token_vm_compile_for_model", prompts, options, std::move(tokenizer), model->model, workflow);
}

void weft_steered_options_default(weft_steered_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
  options->steps_per_submit = compose::SteeredOptions{}.steps_per_submit;
}

weft_status weft_steered_machine_create(weft_device* device, weft_attention_model* model, weft_token_vm_workflow* workflow,
                                        const weft_steered_options* options, weft_token_vm_machine** machine) {
  return guard([&] {
    const char* fn = "weft_steered_machine_create";
    require(device, fn, "device");
    require(model, fn, "model");
    require(workflow, fn, "workflow");
    require(machine, fn, "machine");
    *machine = nullptr;
    const weft_steered_options o = capi::options_or_default(options, weft_steered_options_default, fn);
    // The workflow's forced ids mean this model's text only when compiled with its tokenizer.
    token_vm::check_runs_with(workflow->workflow, compose::steered_tokenizer(*model->model), fn);
    auto h = std::make_unique<weft_token_vm_machine>();
    h->device = device->device;
    h->model = model->model;
    h->steered_options.steps_per_submit = o.steps_per_submit;
    h->steered_options.sampling = {o.temperature, o.top_k, o.seed};
    h->steered_options.context = o.context;
    h->vm = compose::steered_vm_config(workflow->workflow, *workflow->tokenizer);
    auto backend = std::make_unique<compose::SteeredModel>(*h->device, *h->model, workflow->workflow, h->vm, h->steered_options);
    h->steered = backend.get();
    h->machine = std::make_unique<token_vm::Machine>(workflow->workflow, *workflow->tokenizer, std::move(backend));
    weft_token_vm_workflow_retain(workflow);
    h->workflow = workflow;
    *machine = h.release();
  });
}

weft_status weft_token_vm_run_source(weft_token_vm_machine* machine, uint32_t steps) {
  return guard([&] {
    require(machine, "weft_token_vm_run_source", "machine");
    machine->machine->run_source(steps);
  });
}

weft_status weft_steered_position(weft_token_vm_machine* machine, uint32_t* position, uint32_t* context) {
  return guard([&] {
    require(machine, "weft_steered_position", "machine");
    if (!machine->steered) fail(ErrorCode::BadInput, "weft_steered_position: the machine is not a steered model");
    if (position) *position = machine->steered->position();
    if (context) *context = machine->steered->context();
  });
}

weft_status weft_steered_check(weft_token_vm_machine* machine, int* ok, char* difference, uint64_t capacity, uint64_t* length) {
  return guard([&] {
    require(machine, "weft_steered_check", "machine");
    require(ok, "weft_steered_check", "ok");
    require(length, "weft_steered_check", "length");
    if (capacity) require(difference, "weft_steered_check", "difference");
    if (!machine->steered) fail(ErrorCode::BadInput, "weft_steered_check: the machine is not a steered model");
    const compose::SteeredCheck c = compose::check_steered(*machine->model, machine->workflow->workflow, *machine->workflow->tokenizer, machine->vm,
                                                           machine->steered_options, machine->steered->sampled(),
                                                           machine->machine->status()[0], machine->tools);
    *ok = c.ok() ? 1 : 0;
    capi::copy_out(c.first_difference, difference, capacity, length);
  });
}

}  // extern "C"
