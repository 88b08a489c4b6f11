#include "vm.h"

#include <algorithm>

#include <weft/error.h>

namespace weft::token_vm {

namespace {
constexpr uint32_t kMaxCapture = 1u << 16;  // tokens one Output zone may capture (its timeout)
constexpr uint32_t kMaxFeed = 1u << 16;
constexpr uint32_t kMaxBatch = 1u << 20;
}  // namespace

void Backend::run_source(uint32_t, std::vector<uint32_t>&) {
  fail(ErrorCode::BadInput, std::string("token_vm: the ") + name() + " backend has no token source of its own; give it sampled tokens or logits");
}

VmConfig resolve_config(const Workflow& w, VmConfig c) {
  validate(w);
  if (c.batch == 0 || c.batch > kMaxBatch)
    fail(ErrorCode::BadInput, "token_vm: batch " + std::to_string(c.batch) + " outside 1.." + std::to_string(kMaxBatch));
  if (c.feed_capacity == 0 || c.feed_capacity > kMaxFeed)
    fail(ErrorCode::BadInput, "token_vm: feed_capacity " + std::to_string(c.feed_capacity) + " outside 1.." + std::to_string(kMaxFeed));
  if (w.match_mode == MatchMode::Byte && c.vocab_bytes.empty())
    fail(ErrorCode::BadInput, "token_vm: a byte-level workflow needs the vocabulary's bytes (VmConfig::vocab_bytes)");
  uint32_t needed = 1;
  for (size_t i = 0; i < w.zones.size(); ++i)
    if (w.zones[i].flags & kOutput) {
      if (w.zones[i].timeout > kMaxCapture)
        fail(ErrorCode::BadInput, "token_vm: zones[" + std::to_string(i) + "].timeout " + std::to_string(w.zones[i].timeout) +
                                      ": an Output zone captures up to its timeout, at most " + std::to_string(kMaxCapture));
      needed = std::max(needed, w.zones[i].timeout);
    }
  if (c.capture_capacity == 0) c.capture_capacity = needed;
  if (c.capture_capacity < needed)
    fail(ErrorCode::BadInput, "token_vm: capture_capacity " + std::to_string(c.capture_capacity) +
                                  " is below the largest Output zone timeout " + std::to_string(needed));
  return c;
}

std::vector<uint32_t> initial_state(const StateLayout& l) {
  std::vector<uint32_t> s(l.words(), 0);
  for (uint32_t b = 0; b < l.batch; ++b) {
    s[l.scalar(TVM_S_FEED_LEN, b)] = kNone;
    s[l.scalar(TVM_S_READY_TOOL, b)] = kNone;
  }
  return s;
}

TraceRecord trace_record(std::span<const uint32_t> trace, uint32_t batch, uint32_t step, uint32_t stream) {
  const size_t at = (size_t(step) * batch + stream) * TVM_TRACE_WORDS;
  if (at + TVM_TRACE_WORDS > trace.size()) fail(ErrorCode::BadInput, "token_vm: trace record past the end of the trace");
  return {trace[at + TVM_T_TOKEN], trace[at + TVM_T_TAGS], trace[at + TVM_T_PC], trace[at + TVM_T_TOKEN_NUM], trace[at + TVM_T_BITS]};
}

const char* source_name(uint32_t source) {
  switch (source) {
    case TVM_SRC_FORCED: return "forced";
    case TVM_SRC_FEED: return "feed";
    case TVM_SRC_SAMPLED: return "sampled";
    case TVM_SRC_TIMEOUT: return "timeout";
    case TVM_SRC_WAIT: return "wait";
    case TVM_SRC_DONE: return "done";
  }
  return "?";
}

std::string describe(const TraceRecord& r) {
  std::string s = "pc " + std::to_string(r.pc) + " tn " + std::to_string(r.token_num) + " tok " + std::to_string(r.token) +
                  " tags " + std::to_string(r.tags) + " " + source_name(r.source());
  if (r.bits & TVM_HIT_CLOSE) s += " close";
  if (r.bits & TVM_HIT_CONTROL) s += " control";
  if (r.bits & TVM_HIT_ESC_OPEN) s += " esc_open";
  if (r.bits & TVM_HIT_ESC_CLOSE) s += " esc_close";
  static const char* const kTransitions[] = {"", " advance", " jump", " timeout_exit"};
  s += kTransitions[r.transition()];
  if (r.bits & TVM_LOOP_FORCED) s += " loop_forced";
  if (r.bits & TVM_CALL_READY) s += " call_ready";
  if (r.bits & TVM_FEED_DONE) s += " feed_done";
  if (r.depth()) s += " depth " + std::to_string(r.depth());
  return s;
}

}  // namespace weft::token_vm
