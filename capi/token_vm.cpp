// The token VM (workloads/token_vm) through the C ABI: compile or load a workflow, run a batch of
// streams on the device or the CPU reference, resolve tools through C callbacks, read results.
#include <cstring>

#include "token_vm_handles.h"

using namespace weft;
using namespace weft::token_vm;
using weft::capi::guard;
using weft::capi::require;

namespace {

std::shared_ptr<const Tokenizer> tokenizer_from(const char* path) {
  if (!path || !*path) return std::make_shared<ByteTokenizer>();
  return std::make_shared<ModelTokenizer>(ModelTokenizer::load(path));
}

void check_stream(const weft_token_vm_machine* m, uint32_t stream, const char* function) {
  if (stream >= m->machine->batch())
    fail(ErrorCode::BadInput, std::string(function) + ": stream " + std::to_string(stream) + " is out of range (batch " +
                                  std::to_string(m->machine->batch()) + ")");
}


template <class T>
void copy_array(const std::vector<T>& v, uint32_t* out, uint64_t capacity, uint64_t* count) {
  *count = v.size();
  for (size_t i = 0; i < v.size() && i < capacity; ++i) out[i] = uint32_t(v[i]);
}

}  // namespace

namespace weft::capi {

weft_status compile_workflow(const char* function, const char* prompts, const weft_token_vm_compile_options* options,
                             std::shared_ptr<const Tokenizer> tokenizer, std::shared_ptr<const void> owner,
                             weft_token_vm_workflow** workflow) {
  return guard([&] {
    require(prompts, function, "prompts");
    require(workflow, function, "workflow");
    *workflow = nullptr;
    const weft_token_vm_compile_options o = options_or_default(options, weft_token_vm_compile_options_default, function);
    if (o.resource_count) {
      require(o.resource_names, function, "options->resource_names");
      require(o.resource_values, function, "options->resource_values");
    }
    if (tokenizer && o.tokenizer && *o.tokenizer)
      fail(ErrorCode::BadInput, std::string(function) + ": options->tokenizer " + o.tokenizer + ": the workflow is compiled with the model's own tokenizer");
    auto h = std::make_unique<weft_token_vm_workflow>();
    h->tokenizer = tokenizer ? std::move(tokenizer) : tokenizer_from(o.tokenizer);
    h->owner = std::move(owner);
    auto parsed = std::make_shared<const Prompts>(load_udpl(prompts));
    const token_vm::Program program = o.flow && *o.flow ? load_flow(o.flow, parsed) : default_program(parsed);
    Resources resources;
    for (uint32_t i = 0; i < o.resource_count; ++i) {
      if (!o.resource_names[i] || !o.resource_values[i])
        fail(ErrorCode::BadInput, std::string(function) + ": resource " + std::to_string(i) + " has a NULL name or value");
      resources.standard[o.resource_names[i]] = resources.arguments[o.resource_names[i]] = o.resource_values[i];
    }
    token_vm::CompileOptions c;
    c.match_mode = o.byte_matching ? MatchMode::Byte : MatchMode::Token;
    h->workflow = program.compile(*h->tokenizer, resources, c);
    *workflow = h.release();
  });
}

}  // namespace weft::capi

extern "C" {

void weft_token_vm_compile_options_default(weft_token_vm_compile_options* options) {
  if (!options) return;
  std::memset(options, 0, sizeof *options);
  options->struct_size = sizeof *options;
}

weft_status weft_token_vm_compile(const char* prompts, const weft_token_vm_compile_options* options, weft_token_vm_workflow** workflow) {
  return capi::compile_workflow("weft_token_vm_compile", prompts, options, nullptr, nullptr, workflow);
}

weft_status weft_token_vm_load(const char* workflow_json, const char* tokenizer, weft_token_vm_workflow** workflow) {
  return guard([&] {
    require(workflow_json, "weft_token_vm_load", "workflow_json");
    require(workflow, "weft_token_vm_load", "workflow");
    *workflow = nullptr;
    auto h = std::make_unique<weft_token_vm_workflow>();
    h->tokenizer = tokenizer_from(tokenizer);
    h->workflow = load_workflow(workflow_json);
    check_runs_with(h->workflow, *h->tokenizer, workflow_json);
    *workflow = h.release();
  });
}

weft_status weft_token_vm_save(const weft_token_vm_workflow* workflow, const char* path) {
  return guard([&] {
    require(workflow, "weft_token_vm_save", "workflow");
    require(path, "weft_token_vm_save", "path");
    save_workflow(workflow->workflow, path);
  });
}

weft_status weft_token_vm_vocab_size(const weft_token_vm_workflow* workflow, uint32_t* size) {
  return guard([&] {
    require(workflow, "weft_token_vm_vocab_size", "workflow");
    require(size, "weft_token_vm_vocab_size", "size");
    *size = workflow->tokenizer->vocab_size();
  });
}

weft_status weft_token_vm_encode(const weft_token_vm_workflow* workflow, const char* text, uint32_t* tokens, uint64_t capacity,
                            uint64_t* count) {
  return guard([&] {
    require(workflow, "weft_token_vm_encode", "workflow");
    require(text, "weft_token_vm_encode", "text");
    require(count, "weft_token_vm_encode", "count");
    if (capacity) require(tokens, "weft_token_vm_encode", "tokens");
    copy_array(workflow->tokenizer->encode(text), tokens, capacity, count);
  });
}

weft_status weft_token_vm_decode(const weft_token_vm_workflow* workflow, const uint32_t* tokens, uint64_t count, char* text,
                            uint64_t capacity, uint64_t* length) {
  return guard([&] {
    require(workflow, "weft_token_vm_decode", "workflow");
    if (count) require(tokens, "weft_token_vm_decode", "tokens");
    require(length, "weft_token_vm_decode", "length");
    if (capacity) require(text, "weft_token_vm_decode", "text");
    const std::span<const Token> ids(tokens, size_t(count));
    check_token_ids(*workflow->tokenizer, ids, "weft_token_vm_decode");
    capi::copy_out(workflow->tokenizer->decode(ids), text, capacity, length);
  });
}

void weft_token_vm_workflow_retain(weft_token_vm_workflow* workflow) {
  if (workflow) workflow->refs.fetch_add(1, std::memory_order_relaxed);
}
void weft_token_vm_workflow_release(weft_token_vm_workflow* workflow) { capi::release(workflow); }

weft_status weft_token_vm_machine_create(weft_device* device, weft_token_vm_workflow* workflow, uint32_t batch, uint32_t steps_per_submit,
                                    weft_token_vm_machine** machine) {
  return guard([&] {
    require(workflow, "weft_token_vm_machine_create", "workflow");
    require(machine, "weft_token_vm_machine_create", "machine");
    *machine = nullptr;
    if (batch == 0) fail(ErrorCode::BadInput, "weft_token_vm_machine_create: batch must be at least 1");
    VmConfig c;
    c.batch = batch;
    if (workflow->workflow.match_mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(*workflow->tokenizer);
    auto h = std::make_unique<weft_token_vm_machine>();
    std::unique_ptr<Backend> backend;
    if (device) {
      h->device = device->device;
      backend = std::make_unique<DeviceVm>(*h->device, workflow->workflow, c, DeviceVmOptions{std::max(1u, steps_per_submit), 0});
    } else {
      backend = std::make_unique<Reference>(workflow->workflow, c);
    }
    h->machine = std::make_unique<Machine>(workflow->workflow, *workflow->tokenizer, std::move(backend));
    weft_token_vm_workflow_retain(workflow);
    h->workflow = workflow;
    *machine = h.release();
  });
}

weft_status weft_token_vm_answer_set(weft_token_vm_answer* answer, const char* text, uint64_t length) {
  return guard([&] {
    require(answer, "weft_token_vm_answer_set", "answer");
    if (length) require(text, "weft_token_vm_answer_set", "text");
    answer->text.assign(text ? text : "", size_t(length));
    answer->set = true;
  });
}

weft_status weft_token_vm_set_tool(weft_token_vm_machine* machine, const char* name, weft_token_vm_tool tool, void* user) {
  return guard([&] {
    require(machine, "weft_token_vm_set_tool", "machine");
    require(name, "weft_token_vm_set_tool", "name");
    require(reinterpret_cast<const void*>(tool), "weft_token_vm_set_tool", "tool");
    const std::string tool_name = name;
    ToolFn fn = [tool, user, tool_name](const std::string& captured) {
      weft_token_vm_answer answer;
      const weft_status s = tool(user, captured.c_str(), captured.size(), &answer);
      if (s != WEFT_OK) fail(ErrorCode::BadInput, "tool '" + tool_name + "' returned " + weft_status_name(s));
      if (!answer.set) fail(ErrorCode::BadInput, "tool '" + tool_name + "' returned no answer (call weft_token_vm_answer_set)");
      return answer.text;
    };
    machine->machine->set_tool(tool_name, fn);
    machine->tools[tool_name] = std::move(fn);
  });
}

weft_status weft_token_vm_step(weft_token_vm_machine* machine, const uint32_t* sampled, uint32_t* tokens, uint32_t* tags) {
  return guard([&] {
    require(machine, "weft_token_vm_step", "machine");
    require(sampled, "weft_token_vm_step", "sampled");
    const uint32_t B = machine->machine->batch();
    std::vector<uint32_t> tag_out;
    const std::vector<Token> out = machine->machine->step(std::span<const Token>(sampled, B), tags ? &tag_out : nullptr);
    if (tokens) std::copy(out.begin(), out.end(), tokens);
    if (tags) std::copy(tag_out.begin(), tag_out.end(), tags);
  });
}

weft_status weft_token_vm_run(weft_token_vm_machine* machine, const uint32_t* sampled, uint32_t steps) {
  return guard([&] {
    require(machine, "weft_token_vm_run", "machine");
    if (steps) require(sampled, "weft_token_vm_run", "sampled");
    machine->machine->run(std::span<const Token>(sampled, size_t(steps) * machine->machine->batch()), steps);
  });
}

weft_status weft_token_vm_done(const weft_token_vm_machine* machine, int* done) {
  return guard([&] {
    require(machine, "weft_token_vm_done", "machine");
    require(done, "weft_token_vm_done", "done");
    *done = machine->machine->done() ? 1 : 0;
  });
}

weft_status weft_token_vm_callbacks_ready(const weft_token_vm_machine* machine, int* ready) {
  return guard([&] {
    require(machine, "weft_token_vm_callbacks_ready", "machine");
    require(ready, "weft_token_vm_callbacks_ready", "ready");
    *ready = machine->machine->callbacks_ready() ? 1 : 0;
  });
}

weft_status weft_token_vm_pending_count(const weft_token_vm_machine* machine, uint32_t* count) {
  return guard([&] {
    require(machine, "weft_token_vm_pending_count", "machine");
    require(count, "weft_token_vm_pending_count", "count");
    *count = uint32_t(machine->machine->pending_calls().size());
  });
}

weft_status weft_token_vm_pending_call(weft_token_vm_machine* machine, uint32_t index, uint32_t* stream, const char** tool,
                                  const char** text) {
  return guard([&] {
    require(machine, "weft_token_vm_pending_call", "machine");
    const std::vector<ToolCall>& calls = machine->machine->pending_calls();
    if (index >= calls.size())
      fail(ErrorCode::BadInput, "weft_token_vm_pending_call: index " + std::to_string(index) + " is out of range (" +
                                    std::to_string(calls.size()) + " pending)");
    const ToolCall& c = calls[index];
    if (stream) *stream = c.stream;
    // Kept in the handle so the pointers stay valid until the machine next changes.
    if (machine->pending_steps != machine->machine->steps_taken() || machine->pending_text.size() != 2 * calls.size()) {
      machine->pending_text.clear();
      for (const ToolCall& p : calls) {
        machine->pending_text.push_back(p.tool_name);
        machine->pending_text.push_back(p.text);
      }
      machine->pending_steps = machine->machine->steps_taken();
    }
    if (tool) *tool = machine->pending_text[2 * index].c_str();
    if (text) *text = machine->pending_text[2 * index + 1].c_str();
  });
}

weft_status weft_token_vm_resolve_callbacks(weft_token_vm_machine* machine, uint64_t* resolved) {
  return guard([&] {
    require(machine, "weft_token_vm_resolve_callbacks", "machine");
    const size_t n = machine->machine->resolve_callbacks();
    if (resolved) *resolved = n;
  });
}

weft_status weft_token_vm_resolve(weft_token_vm_machine* machine, uint32_t stream, const char* answer) {
  return guard([&] {
    require(machine, "weft_token_vm_resolve", "machine");
    require(answer, "weft_token_vm_resolve", "answer");
    check_stream(machine, stream, "weft_token_vm_resolve");
    machine->machine->resolve(stream, answer);
  });
}

weft_status weft_token_vm_feed(weft_token_vm_machine* machine, uint32_t stream, const char* text) {
  return guard([&] {
    require(machine, "weft_token_vm_feed", "machine");
    require(text, "weft_token_vm_feed", "text");
    check_stream(machine, stream, "weft_token_vm_feed");
    machine->machine->feed(stream, text);
  });
}

weft_status weft_token_vm_extract(const weft_token_vm_machine* machine, uint32_t stream, const char* name, char* text, uint64_t capacity,
                             uint64_t* length) {
  return guard([&] {
    require(machine, "weft_token_vm_extract", "machine");
    require(name, "weft_token_vm_extract", "name");
    require(length, "weft_token_vm_extract", "length");
    if (capacity) require(text, "weft_token_vm_extract", "text");
    check_stream(machine, stream, "weft_token_vm_extract");
    bool declared = false;
    for (const Extraction& e : machine->workflow->workflow.extractions) declared |= e.name == name;
    if (!declared) fail(ErrorCode::BadInput, std::string("weft_token_vm_extract: the workflow declares no extraction '") + name + "'");
    const auto all = machine->machine->extract();
    const auto it = all[stream].find(name);
    capi::copy_out(it == all[stream].end() ? std::string() : it->second, text, capacity, length);
  });
}

weft_status weft_token_vm_generative_sequence(const weft_token_vm_machine* machine, uint32_t stream, char* text, uint64_t capacity,
                                         uint64_t* length) {
  return guard([&] {
    require(machine, "weft_token_vm_generative_sequence", "machine");
    require(length, "weft_token_vm_generative_sequence", "length");
    if (capacity) require(text, "weft_token_vm_generative_sequence", "text");
    check_stream(machine, stream, "weft_token_vm_generative_sequence");
    capi::copy_out(machine->machine->generative_sequence()[stream], text, capacity, length);
  });
}

weft_status weft_token_vm_decisions(const weft_token_vm_machine* machine, uint32_t stream, uint32_t* zones, uint64_t capacity,
                               uint64_t* count) {
  return guard([&] {
    require(machine, "weft_token_vm_decisions", "machine");
    require(count, "weft_token_vm_decisions", "count");
    if (capacity) require(zones, "weft_token_vm_decisions", "zones");
    check_stream(machine, stream, "weft_token_vm_decisions");
    copy_array(machine->machine->decisions()[stream], zones, capacity, count);
  });
}

weft_status weft_token_vm_raw_stream(const weft_token_vm_machine* machine, uint32_t stream, uint32_t* tokens, uint64_t capacity,
                                uint64_t* count) {
  return guard([&] {
    require(machine, "weft_token_vm_raw_stream", "machine");
    require(count, "weft_token_vm_raw_stream", "count");
    if (capacity) require(tokens, "weft_token_vm_raw_stream", "tokens");
    check_stream(machine, stream, "weft_token_vm_raw_stream");
    copy_array(machine->machine->raw_stream()[stream], tokens, capacity, count);
  });
}

weft_status weft_token_vm_records(const weft_token_vm_machine* machine, uint32_t stream, weft_token_vm_record* records, uint64_t capacity,
                             uint64_t* count) {
  return guard([&] {
    require(machine, "weft_token_vm_records", "machine");
    require(count, "weft_token_vm_records", "count");
    if (capacity) require(records, "weft_token_vm_records", "records");
    check_stream(machine, stream, "weft_token_vm_records");
    const std::vector<TraceRecord>& all = machine->machine->status()[stream];
    *count = all.size();
    for (size_t i = 0; i < all.size() && i < capacity; ++i)
      records[i] = {all[i].token, all[i].tags, all[i].pc, all[i].token_num, all[i].source()};
  });
}

weft_status weft_token_vm_allowed(const weft_token_vm_machine* machine, uint32_t stream, int* any, uint32_t* tokens, uint64_t capacity,
                                  uint64_t* count) {
  return guard([&] {
    require(machine, "weft_token_vm_allowed", "machine");
    require(any, "weft_token_vm_allowed", "any");
    require(count, "weft_token_vm_allowed", "count");
    if (capacity) require(tokens, "weft_token_vm_allowed", "tokens");
    check_stream(machine, stream, "weft_token_vm_allowed");
    const std::vector<Token>* set = machine->machine->allowed(stream);
    *any = set ? 0 : 1;
    copy_array(set ? *set : std::vector<Token>{}, tokens, capacity, count);
  });
}

weft_status weft_token_vm_stream_status(const weft_token_vm_machine* machine, uint32_t* status) {
  return guard([&] {
    require(machine, "weft_token_vm_stream_status", "machine");
    require(status, "weft_token_vm_stream_status", "status");
    const std::vector<uint32_t> s = machine->machine->stream_status();
    std::copy(s.begin(), s.end(), status);
  });
}

weft_status weft_token_vm_steps_taken(const weft_token_vm_machine* machine, uint64_t* steps) {
  return guard([&] {
    require(machine, "weft_token_vm_steps_taken", "machine");
    require(steps, "weft_token_vm_steps_taken", "steps");
    *steps = machine->machine->steps_taken();
  });
}

weft_status weft_token_vm_batch(const weft_token_vm_machine* machine, uint32_t* batch) {
  return guard([&] {
    require(machine, "weft_token_vm_batch", "machine");
    require(batch, "weft_token_vm_batch", "batch");
    *batch = machine->machine->batch();
  });
}

void weft_token_vm_machine_release(weft_token_vm_machine* machine) { capi::release(machine); }

}  // extern "C"
