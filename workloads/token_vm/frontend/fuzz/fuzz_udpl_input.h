// One input of the UDPL / flow-file fuzz target, shared with the regression test that replays the
// inputs the fuzzer found (workloads/token_vm/tests/frontend/fuzz_regressions/).
// The first byte picks what the rest of the input is:
//   even: a UDPL file; when it parses, its default program is compiled (byte tokenizer, token
//         and byte matching) and rendered (dump, DOT);
//   odd : a flow file over a fixed prompt set, compiled and rendered the same way.
// Whatever compiles must be a valid workflow (validate() refusing the lowering's output is a
// front-end bug, not bad input) and must run: 48 steps on the CPU reference.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include <stdexcept>
#include <vector>

#include "byte_tokenizer.h"
#include "flow_file.h"
#include "reference.h"
#include "render.h"
#include "udpl.h"

namespace weft::token_vm::fuzz_detail {

inline const char* kPrompts = R"(
[config]
zone_patterns = ["[P]", "[A]", "[E]"]
required_patterns = ["[P]"]
valid_tags = ["q", "a"]
default_max_token_length = 8
sequences = ["intro", "decide", "think", "ask", "answer"]
control_pattern = "[J]"
escape_patterns = ["[X]", "[/X]"]
tools = ["calc"]
[[intro]]
text = "[P] hi [A]"
tags = [["q"], ["a"]]
[[decide]]
text = "[P] again? [A]"
tags = [[], ["a"]]
[[think]]
text = "[P] {topic} [A] [X][E][/X]"
tags = [["q"], ["a"]]
[think.topic]
type = "argument"
[[ask]]
text = "[P] expr [A]"
tagset = [[[], ["a"]], [["q"], []]]
[[answer]]
text = "[P] result [A]"
tags = [[], ["a"]]
repeats = 2
)";

// 48 steps of two streams on the CPU reference, the sampled tokens taken from the workflow's
// patterns (so zones close and loops turn) and from the byte range.
inline void run_reference(const Workflow& w, const Tokenizer& tok) {
  VmConfig c;
  c.batch = 2;
  c.feed_capacity = 4;
  if (w.match_mode == MatchMode::Byte)
    for (Token t = 0; t < tok.vocab_size(); ++t) c.vocab_bytes.push_back(tok.token_bytes(t));
  Reference ref(w, resolve_config(w, c));
  constexpr uint32_t kSteps = 48;
  std::vector<Token> sampled(size_t(kSteps) * c.batch);
  uint32_t h = uint32_t(w.zones.size() * 2654435761u);
  for (Token& t : sampled) {
    h = h * 1664525u + 1013904223u;
    t = !w.pattern_tokens.empty() && (h >> 28) % 4 != 0 ? w.pattern_tokens[(h >> 8) % w.pattern_tokens.size()] : (h >> 8) % 256;
  }
  std::vector<uint32_t> trace;
  ref.run(sampled, kSteps, trace);
}

inline void compile_and_render(const Program& program) {
  const ByteTokenizer tok;
  Resources res;  // every placeholder resolves, so that the compile path is reached too
  for (const Sequence& s : program.prompts().sequences)
    for (const Block& b : s.blocks)
      for (const Placeholder& p : b.placeholders) {
        res.standard[p.resource] = res.arguments[p.resource] = "{" + p.resource + "}";
        res.custom[p.resource] = [](const std::map<std::string, std::string>& args) { return std::to_string(args.size()); };
      }
  for (MatchMode mode : {MatchMode::Token, MatchMode::Byte}) {
    CompileOptions options;
    options.match_mode = mode;
    Workflow w;
    try {
      w = program.compile(tok, res, options);
    } catch (const Error& e) {
      if (std::string(e.what()).rfind("bad input: workflow: ", 0) == 0)
        throw std::logic_error(std::string("the lowering produced an invalid workflow: ") + e.what());
      throw;
    }
    (void)dump_workflow(w, tok);
    (void)workflow_dot(w, tok);
    run_reference(w, tok);
  }
}

}  // namespace weft::token_vm::fuzz_detail

namespace weft::token_vm {

// Runs one fuzz input; returns normally or throws weft::Error(BadInput).
inline void fuzz_udpl_input(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    auto prompts = std::make_shared<const Prompts>(parse_udpl(text, "fuzz.toml"));
    fuzz_detail::compile_and_render(default_program(prompts));
  } else {
    static const auto prompts = std::make_shared<const Prompts>(parse_udpl(fuzz_detail::kPrompts, "prompts.toml"));
    fuzz_detail::compile_and_render(parse_flow(text, "flow.toml", prompts));
  }
}

}  // namespace weft::token_vm
