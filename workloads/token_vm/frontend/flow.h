// Flow control (spec §1.2): a program of steps over the sequences of a UDPL prompt set, and its
// lowering to the compiled Workflow (workflow.h).
//
//   Program p(prompts);
//   p.run("intro")
//    .loop("decide", 1, 3, [](Program& body) { body.run("think"); })
//    .when("check", [](Program& yes) { yes.run("accept"); }, [](Program& no) { no.run("revise"); })
//    .capture("ask", "calc").feed("answer")
//    .extract("final", {"answer"});
//   Workflow w = p.compile(tokenizer, resources);
//
// Lowering: each zone's `next` exit is its close pattern (kAdvanceActive), leading to the zone
// after it; a decision zone (the last zone of a loop's control sequence or of a when's
// sequence) also gets the control pattern as `jump` exit (kJumpActive). loop: next -> body,
// jump -> after the loop, the body's end -> the control sequence's first zone, bounds in
// Workflow::loops (kLoopDecision). when: next -> then-branch, jump -> else-branch, both merging
// after. The end of the program is DONE (address zones.size()).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <workflow.h>

#include "udpl.h"

namespace weft::token_vm {

// What placeholders resolve against: `standard` and `argument` placeholders look their resource
// up by name in `standard` / `arguments`; `custom` ones call a function with the placeholder's
// arguments table.
struct Resources {
  using Custom = std::function<std::string(const std::map<std::string, std::string>& arguments)>;
  std::map<std::string, std::string> standard;
  std::map<std::string, std::string> arguments;
  std::map<std::string, Custom> custom;
};

struct CompileOptions {
  MatchMode match_mode = MatchMode::Token;
  std::optional<Token> pad_token;  // default: default_pad_token(tokenizer)
};

// The pad id a tokenizer implies: 256 for ByteTokenizer, the BPE loader's pad token, otherwise
// vocab_size() (an id past the vocabulary, so no model samples it).
Token default_pad_token(const Tokenizer& tokenizer);

class Program {
 public:
  explicit Program(std::shared_ptr<const Prompts> prompts);

  Program& run(const std::string& sequence);
  // The control sequence runs, then its last zone decides: close pattern -> body (then back to
  // the control sequence), control pattern -> leave. The body runs at least `min` and at most
  // `max` times (the VM forces the exit it must take); needs 1 <= max and min <= max.
  Program& loop(const std::string& control, uint32_t min, uint32_t max, const std::function<void(Program&)>& body);
  // The sequence runs; its last zone's close pattern -> then-branch, control pattern -> else.
  Program& when(const std::string& sequence, const std::function<void(Program&)>& then_branch,
                const std::function<void(Program&)>& else_branch = {});
  // Inlines another program over the same prompt set (its extractions too).
  Program& subroutine(const Program& program);
  // Runs the sequence; its last zone's generated tokens are captured for `tool` ([config] tools).
  Program& capture(const std::string& sequence, const std::string& tool);
  // Runs the sequence; its last zone is fed from the stream's input (a tool answer).
  Program& feed(const std::string& sequence);
  // An extraction: the text of the tokens carrying any of `tags`.
  Program& extract(const std::string& name, const std::vector<std::string>& tags);

  // Lowers to a validated Workflow. Placeholders resolve against `resources`; lint warnings
  // about resolved text (an unescaped control pattern a resource brought in) go to `warnings`.
  Workflow compile(const Tokenizer& tokenizer, const Resources& resources = {}, const CompileOptions& options = {},
                   std::vector<std::string>* warnings = nullptr) const;

  const Prompts& prompts() const { return *prompts_; }
  const std::shared_ptr<const Prompts>& prompts_ptr() const { return prompts_; }

  enum class Kind { Run, Loop, When, Capture, Feed };
  struct Step {
    Kind kind = Kind::Run;
    uint32_t sequence = 0;
    uint32_t tool = kNone;      // Capture
    uint32_t min = 0, max = 0;  // Loop
    std::vector<Step> body;     // Loop body, When then-branch
    std::vector<Step> other;    // When else-branch
  };
  const std::vector<Step>& steps() const { return steps_; }
  const std::vector<Extraction>& extractions() const { return extractions_; }

 private:
  Program& add(Step step);
  void merge_extraction(const Extraction& e);

  std::shared_ptr<const Prompts> prompts_;
  std::vector<Step> steps_;
  std::vector<Extraction> extractions_;
};

// The program a prompt set means without a flow: every declared sequence once, in order.
Program default_program(std::shared_ptr<const Prompts> prompts);

}  // namespace weft::token_vm
