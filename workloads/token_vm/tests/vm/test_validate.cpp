// validate() refuses every malformed workflow the VMs could trip over, naming the field.
#include <functional>

#include "helpers.h"

namespace weft::token_vm::test {
namespace {

Workflow good() {
  Workflow w;
  w.tags = {"t"};
  w.tools = {"calc"};
  w.sequences = {"s"};
  const uint32_t dot = pattern(w, ".");
  w.control_pattern = pattern(w, "!");
  w.loops = {{1, 2}};
  zone(w, "ab", {.next_addr = 1, .jump_addr = 2, .flags = kAdvanceActive | kJumpActive | kLoopDecision | kOutput, .tool_id = 0,
                 .tags = 1, .timeout = 3, .close_pattern = dot, .loop = 0, .sequence = 0});
  zone(w, "", {.next_addr = 2, .flags = kInput, .timeout = 1});
  return w;
}

TEST_CASE("token_vm validate: a good workflow passes, each malformed field is refused by name") {
  CHECK_NOTHROW(validate(good()));
  const std::vector<std::pair<std::string, std::function<void(Workflow&)>>> cases = {
      {"zones", [](Workflow& w) { w.zones.clear(); }},
      {"zones[0].next_addr", [](Workflow& w) { w.zones[0].next_addr = 3; }},
      {"zones[0].jump_addr", [](Workflow& w) { w.zones[0].jump_addr = kNone; }},
      {"zones[0].flags", [](Workflow& w) { w.zones[0].flags |= 1u << 7; }},
      {"zones[0].tool_id", [](Workflow& w) { w.zones[0].tool_id = 1; }},
      {"zones[0].token_start/token_end", [](Workflow& w) { w.zones[0].token_end = 9; }},
      {"zones[0].token_start/token_end", [](Workflow& w) { w.zones[0].token_start = 2, w.zones[0].token_end = 1; }},
      {"zones[0].tags", [](Workflow& w) { w.zones[0].tags = 2; }},
      {"zones[1].timeout", [](Workflow& w) { w.zones[1].timeout = 0; }},
      {"zones[0].close_pattern", [](Workflow& w) { w.zones[0].close_pattern = kNone; }},
      {"zones[0].loop", [](Workflow& w) { w.zones[0].loop = 5; }},
      {"zones[0].flags", [](Workflow& w) { w.zones[0].flags &= ~uint32_t(kJumpActive); }},
      {"zones[0].sequence", [](Workflow& w) { w.zones[0].sequence = 1; }},
      {"patterns[0].token_start/token_end", [](Workflow& w) { w.patterns[0].token_end = 99; }},
      {"patterns[0].tokens", [](Workflow& w) { w.patterns[0].token_end = w.patterns[0].token_start; }},
      {"control_pattern", [](Workflow& w) { w.control_pattern = 7; }},
      {"zones[0].flags", [](Workflow& w) { w.control_pattern = kNone; }},
      {"escape_open/escape_close", [](Workflow& w) { w.escape_open = 0; }},
      {"loops[0].min/max", [](Workflow& w) { w.loops[0] = {3, 2}; }},
      {"loops[0].min/max", [](Workflow& w) { w.loops[0] = {0, 0}; }},
      {"extractions[0].tags", [](Workflow& w) { w.extractions = {{"x", 4}}; }},
      {"match_mode", [](Workflow& w) { w.match_mode = MatchMode(7); }},
  };
  for (const auto& [field, mutate] : cases) {
    Workflow w = good();
    mutate(w);
    CAPTURE(field);
    const std::string msg = error_message_of([&] { validate(w); });
    CHECK(error_code_of([&] { validate(w); }) == ErrorCode::BadInput);
    CHECK(msg.find(field) != std::string::npos);
    // Neither backend can be built on it.
    VmConfig c;
    CHECK(error_code_of([&] { Reference r(w, c); }) == ErrorCode::BadInput);
  }
}

}  // namespace
}  // namespace weft::token_vm::test
