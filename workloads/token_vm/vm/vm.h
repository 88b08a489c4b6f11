// The token VM: the state every backend keeps per stream, the per-step trace it returns, and
// the Backend interface that the CPU reference and the device implement identically.
//
// The step semantics are workflow.h's (normative). Choices made here, where workflow.h is
// silent, and followed by both backends:
//  - Matching is per unit: a unit is a token (MatchMode::Token) or one byte of the token's
//    bytes (MatchMode::Byte). For each unit in order: append it to the zone's history; the
//    escape open pattern matching there adds 1 to the depth, then the escape close pattern
//    subtracts 1 (never below 0); a close/control pattern matching there triggers only when
//    the depth was 0 before and after that unit. In Token mode this is exactly workflow.h's
//    "depth 0 both before and after this token". (An escape whose open and close patterns
//    are equal therefore never opens: use distinct patterns for nestable escapes.)
//  - The feed slot: each stream holds at most one queued feed message on the VM (the host
//    keeps the rest). An Input zone takes the slot's message when its forced prompt is used
//    up (with no message the stream waits); leaving a zone that took it empties the slot.
//  - A tool call is ready from when its Output zone is left until the host collects it. A
//    stream in an Output zone whose previous call is still uncollected waits (pad, nothing
//    advances), so a capture never overwrites a call. The host collects after every
//    submission, so with one step per submission this never shows.
//  - Loop decision: the exit taken (advance/timeout = body, jump = exit) is overridden by
//    the bounds: counter < min -> body, counter >= max -> exit; body increments the counter,
//    exit resets it.
//  - Waiting and DONE steps emit pad_token with tags 0; nothing else changes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "token_vm_layout.h"
#include "workflow.h"

namespace weft::token_vm {

struct VmConfig {
  uint32_t batch = 1;
  uint32_t feed_capacity = 256;    // tokens of one feed message on the VM
  uint32_t capture_capacity = 0;   // 0: the largest Output zone timeout (a capture never exceeds it)
  // MatchMode::Byte: the bytes of every token id (from Tokenizer::token_bytes); its size is
  // the vocabulary size. Tokens at or beyond it contribute no bytes.
  std::vector<std::string> vocab_bytes;
};

// Checks a workflow and a configuration together (validate() first) and returns the
// configuration with capture_capacity filled in. BadInput naming the problem.
VmConfig resolve_config(const Workflow& workflow, VmConfig config);

// Word offsets, relative to the start of the state, of every per-stream field.
struct StateLayout {
  uint32_t batch = 0, loops = 0, feed_capacity = 0, capture_capacity = 0;
  StateLayout() = default;
  StateLayout(const Workflow& w, const VmConfig& c)
      : batch(c.batch), loops(uint32_t(w.loops.size())), feed_capacity(c.feed_capacity), capture_capacity(c.capture_capacity) {}
  uint64_t scalar(uint32_t field, uint32_t stream) const { return uint64_t(field) * batch + stream; }
  uint64_t history(uint32_t k, uint32_t stream) const { return uint64_t(TVM_S_COUNT + k) * batch + stream; }
  uint64_t counter(uint32_t loop, uint32_t stream) const { return uint64_t(TVM_S_COUNT + TVM_HISTORY + loop) * batch + stream; }
  uint64_t feed(uint32_t stream) const { return uint64_t(TVM_S_COUNT + TVM_HISTORY + loops) * batch + uint64_t(stream) * feed_capacity; }
  uint64_t capture(uint32_t stream) const { return feed(0) + uint64_t(batch) * feed_capacity + uint64_t(stream) * capture_capacity; }
  uint64_t words() const { return capture(0) + uint64_t(batch) * capture_capacity; }
};

// The state a run starts from: every stream at zone 0, nothing queued, nothing ready.
std::vector<uint32_t> initial_state(const StateLayout& layout);

// One step of one stream, decoded from its TVM_TRACE_WORDS words.
struct TraceRecord {
  Token token = 0;
  uint32_t tags = 0, pc = 0, token_num = 0, bits = 0;
  uint32_t source() const { return bits & TVM_SRC_MASK; }
  uint32_t transition() const { return (bits >> TVM_TRANSITION_SHIFT) & 3u; }
  uint32_t depth() const { return bits >> TVM_DEPTH_SHIFT; }
  bool pad() const { return source() == TVM_SRC_WAIT || source() == TVM_SRC_DONE; }
  bool operator==(const TraceRecord&) const = default;
};
TraceRecord trace_record(std::span<const uint32_t> trace, uint32_t batch, uint32_t step, uint32_t stream);
std::string describe(const TraceRecord& r);  // "pc 3 tn 2 tok 65 tags 0x1 sampled close advance"
const char* source_name(uint32_t source);

// How a sampler turns [B x V] logits into one token per stream and step.
struct SamplerConfig {
  uint32_t mode = TVM_SAMPLE_ARGMAX;  // argmax (ties: lowest id) or quantized sampling
  uint32_t seed = 0;
  // quantized: q = floor((logit - max) * scale), weight 2^(q/16): scale = 16 / (T ln 2) for
  // temperature T (23.08 is T = 1); logits more than 16 octaves below the maximum get weight 0.
  float scale = 23.0831f;
};

// A VM over B streams. Both implementations run the same step on the same state layout, so
// their states and traces compare word for word.
class Backend {
 public:
  virtual ~Backend() = default;
  virtual const StateLayout& layout() const = 0;
  virtual const char* name() const = 0;
  // Most steps one run() may take (the device's unrolled steps; unbounded on the CPU).
  virtual uint32_t max_steps() const = 0;
  // `steps` steps with sampled tokens [steps][B]; appends [steps][B][TVM_TRACE_WORDS] to trace.
  virtual void run(std::span<const Token> sampled, uint32_t steps, std::vector<uint32_t>& trace) = 0;
  // `steps` steps whose sampled tokens are drawn from logits [B][V] (set_logits) by the
  // sampler; step i of the run uses step index first_step + i for its random draw.
  virtual void set_logits(std::span<const float> logits, uint32_t vocab) = 0;
  virtual void run_sampler(const SamplerConfig& sampler, uint32_t first_step, uint32_t steps, std::vector<uint32_t>& trace) = 0;
  // `steps` steps whose sampled tokens come from the backend's own token source (a model
  // recorded in the same program as the VM). Backends without one refuse (BadInput).
  virtual void run_source(uint32_t steps, std::vector<uint32_t>& trace);
  // Words of the state (offsets as StateLayout gives them).
  virtual void read_state(uint64_t word, std::span<uint32_t> out) = 0;
  virtual void write_state(uint64_t word, std::span<const uint32_t> in) = 0;
  std::vector<uint32_t> state() {
    std::vector<uint32_t> s(layout().words());
    read_state(0, s);
    return s;
  }
};

}  // namespace weft::token_vm
