// Logit masks (UDPL `allow`): lowered to one allowed set per distinct list and an entry per zone,
// kept by save/load, checked by validate, offered to a host sampler by Machine::allowed and
// refused by the VM's own samplers.
#include <doctest/doctest.h>

#include "byte_tokenizer.h"
#include "flow.h"
#include "machine.h"
#include "reference.h"
#include "serialize.h"
#include "support.h"

using namespace weft::token_vm;
using namespace weft::token_vm::test;

namespace {

const std::string kMasked = R"([config]
zone_patterns = ["[A]", "[E]"]
valid_tags = ["x"]
default_max_token_length = 4
sequences = ["free", "digits", "again"]
control_pattern = "[J]"

[[free]]
text = "q[A]"
tags = [[]]
[[digits]]
text = "n?[A]"
tags = [[]]
allow = ["0123456789", "[E]"]
[[again]]
text = "m?[A]"
tags = [[]]
allow = ["[E]", "0123456789"]
)";

Workflow compile_masked() {
  const auto p = prompts_from(kMasked);
  Program flow(p);
  for (const char* s : {"free", "digits", "again"}) flow.run(s);
  return flow.compile(ByteTokenizer());
}

std::vector<Token> bytes_of(const std::string& s) { return std::vector<Token>(s.begin(), s.end()); }

}  // namespace

TEST_CASE("token_vm logit masks: a block's allow list restricts its zones to the union of the texts' tokens") {
  const Workflow w = compile_masked();
  REQUIRE(w.zone_allowed.size() == w.zones.size());
  // Two lists with the same tokens in another order are one set: digits, '[', 'E', ']' ascending.
  REQUIRE(w.allowed_sets.size() == 1);
  std::vector<Token> want = bytes_of("0123456789[E]");
  std::sort(want.begin(), want.end());
  CHECK(w.allowed_sets[0] == want);
  for (size_t z = 0; z < w.zones.size(); ++z) {
    const bool masked = w.sequences[w.zones[z].sequence] != "free";
    CHECK(w.zone_allowed[z] == (masked ? 0u : kNone));
  }
}

TEST_CASE("token_vm logit masks: a workflow without allow has none, and allow entries are checked like other lists") {
  const auto plain = prompts_from(R"([config]
zone_patterns = ["[A]", "[E]"]
valid_tags = []
default_max_token_length = 4
sequences = ["a"]
control_pattern = "[J]"
[[a]]
text = "q[A]"
tags = [[]]
)");
  CHECK(default_program(plain).compile(ByteTokenizer()).zone_allowed.empty());
  std::string empty_entry = kMasked;
  empty_entry.replace(empty_entry.find("allow = [\"0123456789\", \"[E]\"]"), 29, "allow = [\"\"]");
  CHECK(contains(bad_input([&] { prompts_from(empty_entry); }), "field 'allow[0]': must not be empty"));
  std::string not_list = kMasked;
  not_list.replace(not_list.find("allow = [\"0123456789\", \"[E]\"]"), 29, "allow = \"0\"");
  CHECK(contains(bad_input([&] { prompts_from(not_list); }), "field 'allow': expected an array of strings"));
}

TEST_CASE("token_vm logit masks: save and load keep them; validate refuses a bad set or index") {
  const Workflow w = compile_masked();
  const Workflow back = workflow_from_json(workflow_to_json(w), "w.json");
  CHECK(back.zone_allowed == w.zone_allowed);
  CHECK(back.allowed_sets == w.allowed_sets);
  Workflow bad_index = w;
  bad_index.zone_allowed[1] = 5;
  CHECK(contains(bad_input([&] { validate(bad_index); }), "zone_allowed[1].set: 5 is not one of the 1 allowed sets"));
  Workflow unsorted = w;
  std::swap(unsorted.allowed_sets[0][0], unsorted.allowed_sets[0][1]);
  CHECK(contains(bad_input([&] { validate(unsorted); }), "allowed_sets[0].tokens: tokens must be ascending and distinct"));
  Workflow short_list = w;
  short_list.zone_allowed.pop_back();
  CHECK(contains(bad_input([&] { validate(short_list); }), "zone_allowed: " + std::to_string(w.zones.size() - 1) + " entries for"));
}

TEST_CASE("token_vm logit masks: Machine::allowed gives the current zone's set; the VM's samplers refuse masks") {
  const Workflow w = compile_masked();
  ByteTokenizer tok;
  VmConfig c;
  Machine m(w, tok, std::make_unique<Reference>(w, c));
  CHECK(m.allowed(0) == nullptr);  // "free" first
  // Through "q[A]" (forced) and the free answer closed by the model's "[E]".
  for (Token t : bytes_of("xxxx[E]")) m.step(std::vector<Token>{t});
  while (m.allowed(0) == nullptr && !m.done()) m.step(std::vector<Token>{'x'});
  REQUIRE(m.allowed(0) != nullptr);
  CHECK(*m.allowed(0) == w.allowed_sets[0]);
  CHECK(contains(bad_input([&] { m.allowed(3); }), "stream 3 is out of range"));
  const std::vector<float> logits(tok.vocab_size(), 0.0f);
  CHECK(contains(bad_input([&] { m.run_sampler(logits, tok.vocab_size(), SamplerConfig{}, 1); }), "logit masks (allow)"));
}
