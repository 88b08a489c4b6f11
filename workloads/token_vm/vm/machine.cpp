#include "machine.h"

#include <weft/error.h>

namespace weft::token_vm {

std::vector<std::string> vocab_bytes(const Tokenizer& t) {
  std::vector<std::string> v(t.vocab_size());
  for (uint32_t i = 0; i < v.size(); ++i) v[i] = t.token_bytes(i);
  return v;
}

Machine::Machine(const Workflow& workflow, const Tokenizer& tokenizer, std::unique_ptr<Backend> backend)
    : w_(workflow), tok_(tokenizer), backend_(std::move(backend)) {
  if (!backend_) fail(ErrorCode::BadInput, "token_vm: Machine needs a backend");
  batch_ = backend_->layout().batch;
  tools_.resize(w_.tools.size());
  feeds_.resize(batch_);
  raw_.resize(batch_);
  tags_.resize(batch_);
  status_.resize(batch_);
  decisions_.assign(batch_, {0});
  entered_.assign(batch_, 0);
  scalars_.resize(size_t(TVM_S_COUNT) * batch_);
  backend_->read_state(0, scalars_);
}

void Machine::set_tool(const std::string& name, ToolFn fn) {
  for (size_t i = 0; i < w_.tools.size(); ++i)
    if (w_.tools[i] == name) {
      tools_[i] = std::move(fn);
      return;
    }
  fail(ErrorCode::BadInput, "token_vm: the workflow declares no tool '" + name + "'");
}

void Machine::check_tokens(std::span<const Token> sampled, uint32_t steps) const {
  if (sampled.size() != size_t(steps) * batch_)
    fail(ErrorCode::BadInput, "token_vm: " + std::to_string(sampled.size()) + " sampled tokens, expected " +
                                  std::to_string(steps) + " steps x " + std::to_string(batch_) + " streams");
  const uint32_t vocab = tok_.vocab_size();
  for (size_t i = 0; i < sampled.size(); ++i)
    if (sampled[i] >= vocab)
      fail(ErrorCode::BadInput, "token_vm: sampled token " + std::to_string(sampled[i]) + " of stream " +
                                    std::to_string(i % batch_) + " at step " + std::to_string(i / batch_) +
                                    " is not below the vocabulary size " + std::to_string(vocab));
}

// Loads the next queued feed message of every stream whose VM slot is free.
void Machine::before_submit() {
  const StateLayout& l = backend_->layout();
  for (uint32_t b = 0; b < batch_; ++b) {
    uint32_t& len = scalars_[l.scalar(TVM_S_FEED_LEN, b)];
    if (len != kNone || feeds_[b].empty()) continue;
    const std::vector<Token>& msg = feeds_[b].front();
    backend_->write_state(l.feed(b), msg);
    len = uint32_t(msg.size());
    backend_->write_state(l.scalar(TVM_S_FEED_LEN, b), std::span<const uint32_t>(&len, 1));
    feeds_[b].pop_front();
  }
}

// Records the trace, then collects every ready tool call (freeing the stream's capture).
void Machine::after_submit(const std::vector<uint32_t>& trace, uint32_t steps) {
  const uint32_t n = uint32_t(w_.zones.size());
  for (uint32_t s = 0; s < steps; ++s)
    for (uint32_t b = 0; b < batch_; ++b) {
      const TraceRecord r = trace_record(trace, batch_, s, b);
      if (entered_[b] && r.pc < n) decisions_[b].push_back(r.pc);
      entered_[b] = r.transition() != TVM_TR_NONE;
      raw_[b].push_back(r.token);
      tags_[b].push_back(r.tags);
      status_[b].push_back(r);
    }
  steps_ += steps;
  backend_->read_state(0, scalars_);
  const StateLayout& l = backend_->layout();
  for (uint32_t b = 0; b < batch_; ++b) {
    if (entered_[b] && scalars_[l.scalar(TVM_S_PC, b)] < n) {
      decisions_[b].push_back(scalars_[l.scalar(TVM_S_PC, b)]);
      entered_[b] = 0;
    }
    const uint32_t tool = scalars_[l.scalar(TVM_S_READY_TOOL, b)];
    if (tool == kNone) continue;
    ToolCall call;
    call.stream = b;
    call.tool = tool;
    call.tool_name = tool < w_.tools.size() ? w_.tools[tool] : "?";
    call.captured.resize(scalars_[l.scalar(TVM_S_READY_LEN, b)]);
    backend_->read_state(l.capture(b), call.captured);
    call.text = tok_.decode(call.captured);
    pending_.push_back(std::move(call));
    const uint32_t cleared[3] = {0, kNone, 0};  // CAPTURE_LEN, READY_TOOL, READY_LEN
    static_assert(TVM_S_READY_TOOL == TVM_S_CAPTURE_LEN + 1 && TVM_S_READY_LEN == TVM_S_CAPTURE_LEN + 2);
    for (uint32_t k = 0; k < 3; ++k) {
      scalars_[l.scalar(TVM_S_CAPTURE_LEN + k, b)] = cleared[k];
      backend_->write_state(l.scalar(TVM_S_CAPTURE_LEN + k, b), std::span<const uint32_t>(&cleared[k], 1));
    }
  }
}

std::vector<Token> Machine::step(std::span<const Token> sampled, std::vector<uint32_t>* tags) {
  check_tokens(sampled, 1);
  before_submit();
  std::vector<uint32_t> trace;
  backend_->run(sampled, 1, trace);
  after_submit(trace, 1);
  std::vector<Token> out(batch_);
  if (tags) tags->resize(batch_);
  for (uint32_t b = 0; b < batch_; ++b) {
    const TraceRecord r = trace_record(trace, batch_, 0, b);
    out[b] = r.token;
    if (tags) (*tags)[b] = r.tags;
  }
  return out;
}

void Machine::run(std::span<const Token> sampled, uint32_t steps) {
  check_tokens(sampled, steps);
  in_submissions(steps, [&](uint32_t s, uint32_t k, std::vector<uint32_t>& trace) {
    backend_->run(sampled.subspan(size_t(s) * batch_, size_t(k) * batch_), k, trace);
  });
}

void Machine::run_sampler(std::span<const float> logits, uint32_t vocab, const SamplerConfig& sampler, uint32_t steps) {
  if (vocab > tok_.vocab_size())
    fail(ErrorCode::BadInput, "token_vm: logits over " + std::to_string(vocab) + " tokens, the tokenizer has " +
                                  std::to_string(tok_.vocab_size()));
  if (!w_.zone_allowed.empty())
    fail(ErrorCode::BadInput, "token_vm: the workflow has logit masks (allow), which the VM's samplers do not apply; sample on the host "
                              "with Machine::allowed, or steer a model (compose::SteeredModel)");
  backend_->set_logits(logits, vocab);
  in_submissions(steps, [&](uint32_t, uint32_t k, std::vector<uint32_t>& trace) {
    backend_->run_sampler(sampler, uint32_t(steps_), k, trace);
  });
}

void Machine::run_source(uint32_t steps) {
  in_submissions(steps, [&](uint32_t, uint32_t k, std::vector<uint32_t>& trace) { backend_->run_source(k, trace); });
}

// Steps in submissions of up to max_steps(): `submit(first, k, trace)` runs steps first..first+k-1.
void Machine::in_submissions(uint32_t steps, const std::function<void(uint32_t, uint32_t, std::vector<uint32_t>&)>& submit) {
  const uint32_t chunk = std::max<uint32_t>(1, backend_->max_steps());
  for (uint32_t s = 0; s < steps; s += chunk) {
    const uint32_t k = std::min(chunk, steps - s);
    before_submit();
    std::vector<uint32_t> trace;
    submit(s, k, trace);
    after_submit(trace, k);
  }
}

const std::vector<Token>* Machine::allowed(uint32_t stream) const {
  if (stream >= batch_) fail(ErrorCode::BadInput, "token_vm: stream " + std::to_string(stream) + " is out of range (batch " + std::to_string(batch_) + ")");
  const uint32_t zone = scalars_[backend_->layout().scalar(TVM_S_PC, stream)];
  if (zone >= w_.zone_allowed.size() || w_.zone_allowed[zone] == kNone) return nullptr;
  return &w_.allowed_sets[w_.zone_allowed[zone]];
}

bool Machine::done() const {
  const StateLayout& l = backend_->layout();
  for (uint32_t b = 0; b < batch_; ++b)
    if (scalars_[l.scalar(TVM_S_PC, b)] < w_.zones.size()) return false;
  return true;
}

bool Machine::callbacks_ready() const { return !pending_.empty(); }

void Machine::resolve(uint32_t stream, const std::string& answer) {
  for (auto it = pending_.begin(); it != pending_.end(); ++it)
    if (it->stream == stream) {
      pending_.erase(it);
      feed(stream, answer);
      return;
    }
  fail(ErrorCode::BadInput, "token_vm: stream " + std::to_string(stream) + " has no pending tool call");
}

size_t Machine::resolve_callbacks() {
  std::vector<ToolCall> calls;
  calls.swap(pending_);
  for (size_t i = 0; i < calls.size(); ++i) {
    const ToolCall& c = calls[i];
    if (c.tool >= tools_.size() || !tools_[c.tool]) {
      pending_.assign(calls.begin() + long(i), calls.end());
      fail(ErrorCode::BadInput, "token_vm: no callable registered for tool '" + c.tool_name + "' (stream " +
                                    std::to_string(c.stream) + ")");
    }
    feed(c.stream, tools_[c.tool](c.text));
  }
  return calls.size();
}

void Machine::feed(uint32_t stream, const std::string& text) {
  if (stream >= batch_) fail(ErrorCode::BadInput, "token_vm: stream " + std::to_string(stream) + " of " + std::to_string(batch_));
  std::vector<Token> tokens = tok_.encode(text);
  if (tokens.size() > backend_->layout().feed_capacity)
    fail(ErrorCode::BadInput, "token_vm: feed for stream " + std::to_string(stream) + " is " + std::to_string(tokens.size()) +
                                  " tokens, over the feed capacity " + std::to_string(backend_->layout().feed_capacity));
  feeds_[stream].push_back(std::move(tokens));
}

std::vector<std::map<std::string, std::string>> Machine::extract() const {
  std::vector<std::map<std::string, std::string>> out(batch_);
  for (uint32_t b = 0; b < batch_; ++b)
    for (const Extraction& e : w_.extractions) {
      std::vector<Token> picked;
      for (size_t i = 0; i < raw_[b].size(); ++i)
        if (!status_[b][i].pad() && (tags_[b][i] & e.tags)) picked.push_back(raw_[b][i]);
      out[b][e.name] = tok_.decode(picked);
    }
  return out;
}

std::vector<std::string> Machine::generative_sequence() const {
  std::vector<std::string> out(batch_);
  for (uint32_t b = 0; b < batch_; ++b) {
    std::vector<Token> seen;
    for (size_t i = 0; i < raw_[b].size(); ++i)
      if (!status_[b][i].pad()) seen.push_back(raw_[b][i]);
    out[b] = tok_.decode(seen);
  }
  return out;
}

std::vector<std::vector<uint32_t>> Machine::decisions() const { return decisions_; }

std::vector<uint32_t> Machine::stream_status() const {
  std::vector<uint32_t> s(batch_);
  for (uint32_t b = 0; b < batch_; ++b) s[b] = scalars_[backend_->layout().scalar(TVM_S_STATUS, b)];
  return s;
}

}  // namespace weft::token_vm
