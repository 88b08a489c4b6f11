// One input of the workflow-loader fuzz target, shared with the regression test that replays the
// inputs the fuzzer found (workloads/token_vm/tests/vm/fuzz_regressions/).
// The bytes must either load into a workflow that passes validate() (and saves back to text that
// loads to the same text) or be refused with weft::Error(BadInput). A workflow that loads is
// then stepped on the CPU reference (two streams, token ids drawn from its patterns and a few
// others, a multi-byte vocabulary in byte mode): a workflow the loader accepts must run.
// Returns whether the input loaded; std::logic_error for a broken invariant.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference.h"
#include "serialize.h"

namespace weft::token_vm::fuzz_detail {

// Steps the workflow for 48 steps with tokens picked by a hash of the input.
inline void run_reference(const Workflow& w, const std::string& text) {
  VmConfig c;
  c.batch = 2;
  c.feed_capacity = 4;
  if (w.match_mode == MatchMode::Byte) {
    for (int i = 0; i < 256; ++i) c.vocab_bytes.push_back(std::string(1, char(i)));
    c.vocab_bytes.push_back("[J");
    c.vocab_bytes.push_back("ump]");
    c.vocab_bytes.push_back("");
  }
  Reference ref(w, resolve_config(w, c));
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : text) h = (h ^ ch) * 1099511628211ull;
  constexpr uint32_t kSteps = 48;
  std::vector<Token> tokens(size_t(kSteps) * c.batch);
  for (Token& t : tokens) {
    h = h * 6364136223846793005ull + 1442695040888963407ull;
    const uint32_t r = uint32_t(h >> 33);
    t = !w.pattern_tokens.empty() && r % 4 != 0 ? w.pattern_tokens[r % w.pattern_tokens.size()] : r % 300;
  }
  std::vector<uint32_t> trace;
  ref.run(tokens, kSteps, trace);
  if (trace.size() != size_t(kSteps) * c.batch * TVM_TRACE_WORDS) throw std::logic_error("short trace");
}

inline bool fuzz_workflow_input(const std::string& text) {
  const Workflow w = workflow_from_json(text, "fuzz");
  validate(w);
  const std::string saved = workflow_to_json(w);
  if (workflow_to_json(workflow_from_json(saved, "fuzz-resaved")) != saved)
    throw std::logic_error("save -> load -> save is not the same text");
  run_reference(w, text);
  return true;
}

}  // namespace weft::token_vm::fuzz_detail
