// What the token VM's C handles hold (token_vm.cpp, steered.cpp). Internal.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compose.h"
#include "handles.h"
#include "token_vm.h"
#include "token_vm_frontend.h"

struct weft_token_vm_workflow {
  std::atomic<int> refs{1};
  weft::token_vm::Workflow workflow;
  std::shared_ptr<const weft::token_vm::Tokenizer> tokenizer;
  std::shared_ptr<const void> owner;  // what the tokenizer borrows from (a model's vocabulary), or null
};

struct weft_token_vm_machine {
  std::atomic<int> refs{1};
  std::shared_ptr<weft::Device> device;  // null: the CPU reference
  weft_token_vm_workflow* workflow = nullptr;  // one reference held: the machine reads its tokenizer
  std::shared_ptr<const weft::attention::Model> model;  // a steered machine's model, else null
  weft::compose::SteeredModel* steered = nullptr;       // its backend (owned by machine), else null
  weft::compose::SteeredOptions steered_options;
  weft::token_vm::VmConfig vm;
  std::unique_ptr<weft::token_vm::Machine> machine;
  std::map<std::string, weft::token_vm::ToolFn> tools;  // as set on the machine (a steered check replays them)
  // weft_token_vm_pending_call's strings (tool, text per call), rebuilt when the pending list changes.
  std::vector<std::string> pending_text;
  uint64_t pending_steps = ~0ull;
  ~weft_token_vm_machine() {
    machine.reset();  // before the workflow whose tokenizer it reads
    weft::capi::release(workflow);
  }
};

// Where a tool callback puts its answer: the library owns the string, the callback only copies in.
struct weft_token_vm_answer {
  std::string text;
  bool set = false;
};

namespace weft::capi {

// snprintf-style: copies what fits (NUL-terminated when capacity > 0), reports the full length.
inline void copy_out(const std::string& s, char* text, uint64_t capacity, uint64_t* length) {
  *length = s.size();
  if (capacity == 0) return;
  const size_t n = size_t(std::min<uint64_t>(capacity - 1, s.size()));
  std::memcpy(text, s.data(), n);
  text[n] = '\0';
}

// weft_token_vm_compile's body: with `tokenizer` (a model's own; `owner` keeps what it borrows
// from alive), options->tokenizer must be unset.
weft_status compile_workflow(const char* function, const char* prompts, const weft_token_vm_compile_options* options,
                             std::shared_ptr<const weft::token_vm::Tokenizer> tokenizer, std::shared_ptr<const void> owner,
                             weft_token_vm_workflow** workflow);

}  // namespace weft::capi
