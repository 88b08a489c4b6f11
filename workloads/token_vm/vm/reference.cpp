#include "reference.h"

#include <algorithm>

#include <weft/error.h>

#include "sampler.h"

namespace weft::token_vm {

Reference::Reference(const Workflow& workflow, const VmConfig& config)
    : w_(workflow), config_(resolve_config(workflow, config)), layout_(w_, config_), state_(initial_state(layout_)) {}

bool Reference::matches(uint32_t p, uint32_t b) const {
  const Pattern& pat = w_.patterns[p];
  const bool bytes = w_.match_mode == MatchMode::Byte;
  const uint32_t start = bytes ? pat.byte_start : pat.token_start;
  const uint32_t length = bytes ? pat.byte_end - pat.byte_start : pat.token_end - pat.token_start;
  const uint32_t count = state_[layout_.scalar(TVM_S_HIST_COUNT, b)];
  if (count < length) return false;
  for (uint32_t k = 0; k < length; ++k) {
    const uint32_t want = bytes ? w_.pattern_bytes[start + length - 1 - k] : w_.pattern_tokens[start + length - 1 - k];
    if (state_[layout_.history((count - 1 - k) % TVM_HISTORY, b)] != want) return false;
  }
  return true;
}

// The ring keeps its count in [0, 64): past 63 it drops by 32, which keeps count % 32 and
// keeps it above every pattern length.
void Reference::push_unit(uint32_t unit, uint32_t b) {
  uint32_t& count = field(TVM_S_HIST_COUNT, b);
  state_[layout_.history(count % TVM_HISTORY, b)] = unit;
  count = count + 1 >= 2 * TVM_HISTORY ? count + 1 - TVM_HISTORY : count + 1;
}

void Reference::step_stream(uint32_t b, Token sampled, uint32_t* rec) {
  const uint32_t n = uint32_t(w_.zones.size());
  uint32_t& pc = field(TVM_S_PC, b);
  uint32_t& token_num = field(TVM_S_TOKEN_NUM, b);
  uint32_t& depth = field(TVM_S_DEPTH, b);
  uint32_t& status = field(TVM_S_STATUS, b);
  rec[TVM_T_TOKEN] = w_.pad_token;
  rec[TVM_T_TAGS] = 0;
  rec[TVM_T_PC] = pc;
  rec[TVM_T_TOKEN_NUM] = token_num;
  const uint32_t depth_bits = std::min(depth, 0xFFFFu) << TVM_DEPTH_SHIFT;
  if (pc >= n) {
    rec[TVM_T_BITS] = TVM_SRC_DONE | depth_bits;
    status = TVM_DONE;
    return;
  }
  const Zone& z = w_.zones[pc];
  auto wait = [&] {
    rec[TVM_T_BITS] = TVM_SRC_WAIT | depth_bits;
    status = TVM_WAIT_TOOL;
  };
  // An Output zone does not start while the stream's previous tool call is uncollected.
  if ((z.flags & kOutput) && field(TVM_S_READY_TOOL, b) != kNone) return wait();

  // ---- token choice ----
  const uint32_t forced = z.token_end - z.token_start;
  Token token = 0;
  uint32_t source = TVM_SRC_SAMPLED;
  bool chosen = false;
  if (token_num < forced) {
    token = w_.token_data[z.token_start + token_num];
    source = TVM_SRC_FORCED;
    chosen = true;
  } else if (z.flags & kInput) {
    uint32_t& feeding = field(TVM_S_FEEDING, b);
    if (!feeding) {
      if (field(TVM_S_FEED_LEN, b) == kNone) return wait();
      feeding = 1;
    }
    uint32_t& pos = field(TVM_S_FEED_POS, b);
    if (pos < field(TVM_S_FEED_LEN, b)) {
      token = state_[layout_.feed(b) + pos];
      pos += 1;
      source = TVM_SRC_FEED;
      chosen = true;
    }
  }
  bool timed_out = false;
  if (!chosen) {
    uint32_t& generated = field(TVM_S_GENERATED, b);
    generated += 1;
    token = sampled;
    timed_out = generated >= z.timeout;
    source = timed_out ? TVM_SRC_TIMEOUT : TVM_SRC_SAMPLED;
    if (z.flags & kOutput) {
      uint32_t& len = field(TVM_S_CAPTURE_LEN, b);
      if (len < layout_.capture_capacity) state_[layout_.capture(b) + len++] = token;
    }
  }

  // ---- matching, one unit (token or byte) at a time ----
  uint32_t bits = source;
  bool advance = false, jump = false;
  auto unit = [&](uint32_t u) {
    push_unit(u, b);
    const uint32_t before = depth;
    if (w_.escape_open != kNone && matches(w_.escape_open, b)) {
      bits |= TVM_HIT_ESC_OPEN;
      if (depth != 0xFFFFFFFFu) depth += 1;
    }
    if (w_.escape_close != kNone && matches(w_.escape_close, b)) {
      bits |= TVM_HIT_ESC_CLOSE;
      if (depth > 0) depth -= 1;
    }
    const bool control = w_.control_pattern != kNone && matches(w_.control_pattern, b);
    const bool close = z.close_pattern != kNone && matches(z.close_pattern, b);
    if (control) bits |= TVM_HIT_CONTROL;
    if (close) bits |= TVM_HIT_CLOSE;
    if (before == 0 && depth == 0) {
      jump = jump || control;
      advance = advance || close;
    }
  };
  if (w_.match_mode == MatchMode::Token) {
    unit(token);
  } else if (token < config_.vocab_bytes.size()) {
    for (unsigned char c : config_.vocab_bytes[token]) unit(c);
  }

  // ---- transition: timeout > jump > advance, then loop bounds ----
  uint32_t transition = TVM_TR_NONE;
  if (timed_out)
    transition = TVM_TR_TIMEOUT;
  else if (jump && (z.flags & kJumpActive))
    transition = TVM_TR_JUMP;
  else if (advance && (z.flags & kAdvanceActive))
    transition = TVM_TR_ADVANCE;
  rec[TVM_T_TOKEN] = token;
  rec[TVM_T_TAGS] = z.tags;
  if (transition == TVM_TR_NONE) {
    token_num += 1;
    rec[TVM_T_BITS] = bits | (std::min(depth, 0xFFFFu) << TVM_DEPTH_SHIFT);
    status = TVM_RUNNING;
    return;
  }
  bool body = transition != TVM_TR_JUMP;
  if (z.flags & kLoopDecision) {
    uint32_t& counter = state_[layout_.counter(z.loop, b)];
    const Loop& loop = w_.loops[z.loop];
    const bool bounded = counter < loop.min ? true : counter >= loop.max ? false : body;
    if (bounded != body) bits |= TVM_LOOP_FORCED;
    body = bounded;
    counter = body ? counter + 1 : 0;
  }
  if (z.flags & kOutput) {
    field(TVM_S_READY_TOOL, b) = z.tool_id;
    field(TVM_S_READY_LEN, b) = field(TVM_S_CAPTURE_LEN, b);
    bits |= TVM_CALL_READY;
  }
  if (field(TVM_S_FEEDING, b)) {
    field(TVM_S_FEED_LEN, b) = kNone;
    bits |= TVM_FEED_DONE;
  }
  rec[TVM_T_BITS] = bits | (transition << TVM_TRANSITION_SHIFT) | (std::min(depth, 0xFFFFu) << TVM_DEPTH_SHIFT);
  pc = body ? z.next_addr : z.jump_addr;
  token_num = 0;
  field(TVM_S_GENERATED, b) = 0;
  field(TVM_S_FEED_POS, b) = 0;
  field(TVM_S_FEEDING, b) = 0;
  field(TVM_S_HIST_COUNT, b) = 0;
  depth = 0;
  status = pc >= n ? TVM_DONE : TVM_RUNNING;
}

void Reference::run(std::span<const Token> sampled, uint32_t steps, std::vector<uint32_t>& trace) {
  const uint32_t B = layout_.batch;
  if (sampled.size() < uint64_t(steps) * B)
    fail(ErrorCode::BadInput, "token_vm: " + std::to_string(sampled.size()) + " sampled tokens for " + std::to_string(steps) +
                                  " steps of " + std::to_string(B) + " streams");
  const size_t base = trace.size();
  trace.resize(base + size_t(steps) * B * TVM_TRACE_WORDS);
  for (uint32_t s = 0; s < steps; ++s)
    for (uint32_t b = 0; b < B; ++b)
      step_stream(b, sampled[size_t(s) * B + b], &trace[base + (size_t(s) * B + b) * TVM_TRACE_WORDS]);
}

void Reference::set_logits(std::span<const float> logits, uint32_t vocab) {
  if (vocab == 0 || vocab > kMaxSamplerVocab || logits.size() != size_t(vocab) * layout_.batch)
    fail(ErrorCode::BadInput, "token_vm: logits need batch x vocab floats with 1 <= vocab <= " + std::to_string(kMaxSamplerVocab) +
                                  ", got " + std::to_string(logits.size()) + " for vocab " + std::to_string(vocab));
  logits_.assign(logits.begin(), logits.end());
  logits_vocab_ = vocab;
}

void Reference::run_sampler(const SamplerConfig& sampler, uint32_t first_step, uint32_t steps, std::vector<uint32_t>& trace) {
  if (logits_.empty()) fail(ErrorCode::BadInput, "token_vm: run_sampler before set_logits");
  const uint32_t B = layout_.batch, V = logits_vocab_;
  std::vector<Token> tokens(size_t(steps) * B);
  for (uint32_t s = 0; s < steps; ++s)
    for (uint32_t b = 0; b < B; ++b)
      tokens[size_t(s) * B + b] = sample_row(std::span<const float>(logits_).subspan(size_t(b) * V, V), sampler, b, first_step + s);
  run(tokens, steps, trace);
}

void Reference::read_state(uint64_t word, std::span<uint32_t> out) {
  if (word + out.size() > state_.size()) fail(ErrorCode::SegmentOutOfRange, "token_vm: state read past its end");
  std::copy_n(state_.begin() + word, out.size(), out.begin());
}

void Reference::write_state(uint64_t word, std::span<const uint32_t> in) {
  if (word + in.size() > state_.size()) fail(ErrorCode::SegmentOutOfRange, "token_vm: state write past its end");
  std::copy(in.begin(), in.end(), state_.begin() + word);
}

}  // namespace weft::token_vm
