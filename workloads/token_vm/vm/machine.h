// The host API (spec §4) over either backend: step the batch with sampled tokens, run several
// steps per submission from a scripted or device-sampled token source, resolve tool calls per
// stream while the others keep running, feed input, and read back what happened: extractions,
// the generative sequence, the zones visited, the raw stream and the per-step status.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "vm.h"

namespace weft::token_vm {

using ToolFn = std::function<std::string(const std::string& captured_text)>;

// The bytes of every token of a tokenizer: VmConfig::vocab_bytes for byte-level matching.
std::vector<std::string> vocab_bytes(const Tokenizer& tokenizer);

struct ToolCall {
  uint32_t stream = 0;
  uint32_t tool = 0;             // index into Workflow::tools
  std::string tool_name;
  std::vector<Token> captured;   // the tokens generated in the Output zone
  std::string text;              // decoded
};

class Machine {
 public:
  // The tokenizer must outlive the machine. The backend was built for `workflow`.
  Machine(const Workflow& workflow, const Tokenizer& tokenizer, std::unique_ptr<Backend> backend);

  uint32_t batch() const { return batch_; }
  Backend& backend() { return *backend_; }

  // A callable per Workflow::tools name; BadInput for a name the workflow does not declare.
  void set_tool(const std::string& name, ToolFn fn);

  // One step: sampled[B] (each < the tokenizer's vocabulary) -> the tokens the model must
  // consume; `tags` (optional) receives their tag bits.
  std::vector<Token> step(std::span<const Token> sampled, std::vector<uint32_t>* tags = nullptr);
  // `steps` steps with scripted tokens [steps][B], in submissions of up to the backend's
  // max_steps(): the host only steps in between (collecting calls, loading feeds).
  void run(std::span<const Token> sampled, uint32_t steps);
  // `steps` steps whose tokens the backend's sampler draws from logits [B][V]. BadInput for a
  // workflow with logit masks (the VM's samplers do not apply them).
  void run_sampler(std::span<const float> logits, uint32_t vocab, const SamplerConfig& sampler, uint32_t steps);
  // `steps` steps whose tokens the backend's own source draws (Backend::run_source), in
  // submissions of max_steps().
  void run_source(uint32_t steps);

  // The tokens a sampler may draw for the stream's next step (its zone's logit mask, UDPL
  // `allow`), or nullptr when any token may be drawn. A host that samples must apply it.
  const std::vector<Token>* allowed(uint32_t stream) const;
  bool done() const;             // every stream is DONE
  bool callbacks_ready() const;  // a collected tool call waits for resolution
  const std::vector<ToolCall>& pending_calls() const { return pending_; }
  // Resolves every pending call with its registered tool (BadInput if one has none) and
  // queues each answer as that stream's next feed. Returns how many were resolved.
  size_t resolve_callbacks();
  // Resolves stream's oldest pending call with `answer` (as resolve_callbacks would).
  void resolve(uint32_t stream, const std::string& answer);
  // Queues `text` as the stream's next input feed message.
  void feed(uint32_t stream, const std::string& text);

  std::vector<std::map<std::string, std::string>> extract() const;  // per stream {name: text}
  std::vector<std::string> generative_sequence() const;  // decoded non-pad tokens: what the model saw
  std::vector<std::vector<uint32_t>> decisions() const;   // zones visited, in order, per stream
  const std::vector<std::vector<Token>>& raw_stream() const { return raw_; }       // every emitted token, pads included
  const std::vector<std::vector<uint32_t>>& tags() const { return tags_; }         // aligned with raw_stream
  const std::vector<std::vector<TraceRecord>>& status() const { return status_; }  // aligned with raw_stream
  std::vector<uint32_t> stream_status() const;  // TVM_RUNNING / TVM_WAIT_TOOL / TVM_DONE per stream
  uint64_t steps_taken() const { return steps_; }

 private:
  void in_submissions(uint32_t steps, const std::function<void(uint32_t, uint32_t, std::vector<uint32_t>&)>& submit);
  void before_submit();
  void after_submit(const std::vector<uint32_t>& trace, uint32_t steps);
  void check_tokens(std::span<const Token> sampled, uint32_t steps) const;

  Workflow w_;
  const Tokenizer& tok_;
  std::unique_ptr<Backend> backend_;
  uint32_t batch_ = 0;
  std::vector<ToolFn> tools_;
  std::vector<std::deque<std::vector<Token>>> feeds_;  // host-side queue per stream
  std::vector<uint32_t> scalars_;                      // the state's scalar fields after the last run
  std::vector<ToolCall> pending_;
  std::vector<std::vector<Token>> raw_;
  std::vector<std::vector<uint32_t>> tags_;
  std::vector<std::vector<TraceRecord>> status_;
  std::vector<std::vector<uint32_t>> decisions_;
  std::vector<uint8_t> entered_;  // a transition happened: the next record's pc is a new zone
  uint64_t steps_ = 0;
};

}  // namespace weft::token_vm
