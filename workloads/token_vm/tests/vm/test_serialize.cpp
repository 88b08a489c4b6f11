// Save/load of a compiled workflow: the round trip is the identity (random workflows
// included), and every malformed file is refused with BadInput naming the key or line:col.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "helpers.h"
#include "fuzz/fuzz_workflow_input.h"
#include "serialize.h"

namespace weft::token_vm::test {
namespace {

bool same(const Workflow& a, const Workflow& b) {
  auto zones_equal = [](const Zone& x, const Zone& y) {
    return std::memcmp(&x, &y, sizeof(Zone)) == 0;
  };
  if (a.zones.size() != b.zones.size()) return false;
  for (size_t i = 0; i < a.zones.size(); ++i)
    if (!zones_equal(a.zones[i], b.zones[i])) return false;
  auto pat = [](const Pattern& p) { return std::array<uint32_t, 4>{p.token_start, p.token_end, p.byte_start, p.byte_end}; };
  if (a.patterns.size() != b.patterns.size()) return false;
  for (size_t i = 0; i < a.patterns.size(); ++i)
    if (pat(a.patterns[i]) != pat(b.patterns[i])) return false;
  if (a.loops.size() != b.loops.size()) return false;
  for (size_t i = 0; i < a.loops.size(); ++i)
    if (a.loops[i].min != b.loops[i].min || a.loops[i].max != b.loops[i].max) return false;
  if (a.extractions.size() != b.extractions.size()) return false;
  for (size_t i = 0; i < a.extractions.size(); ++i)
    if (a.extractions[i].name != b.extractions[i].name || a.extractions[i].tags != b.extractions[i].tags) return false;
  return a.token_data == b.token_data && a.pattern_tokens == b.pattern_tokens && a.pattern_bytes == b.pattern_bytes &&
         a.control_pattern == b.control_pattern && a.escape_open == b.escape_open && a.escape_close == b.escape_close &&
         a.match_mode == b.match_mode && a.pad_token == b.pad_token && a.tags == b.tags && a.tools == b.tools &&
         a.sequences == b.sequences;
}

TEST_CASE("token_vm serialize: save -> load is the identity for random workflows, and through a file") {
  for (uint32_t k = 0; k < 200; ++k) {
    std::mt19937 rng(k);
    const Workflow w = random_workflow(rng, k % 2 ? MatchMode::Byte : MatchMode::Token).workflow;
    const std::string text = workflow_to_json(w);
    CAPTURE(k);
    const Workflow back = workflow_from_json(text);
    CHECK(same(w, back));
    CHECK(workflow_to_json(back) == text);
  }
  std::mt19937 rng(9);
  const Workflow w = random_workflow(rng, MatchMode::Token).workflow;
  const std::string path = (std::filesystem::temp_directory_path() / "weft_token_vm_roundtrip.json").string();
  save_workflow(w, path);
  CHECK(same(load_workflow(path), w));
  std::filesystem::remove(path);
  CHECK(error_code_of([] { load_workflow("/nonexistent/weft/workflow.json"); }) == ErrorCode::BadInput);
}

// A small valid file to break in one place at a time.
std::string valid_text() {
  Workflow w;
  pattern(w, ".");
  zone(w, "ab", {.next_addr = 1, .flags = kAdvanceActive, .timeout = 2, .close_pattern = 0});
  return workflow_to_json(w);
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

TEST_CASE("token_vm serialize: malformed files are refused naming the key or the position") {
  const std::string ok = valid_text();
  CHECK_NOTHROW(workflow_from_json(ok));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{", "f.json:1:"},
      {"[1, 2", "malformed JSON"},
      {"{\"format\": \"weft.token_vm.workflow\", \"version\": 1,\n \"zones\": [}", "f.json:2:"},
      {"[]", "workflow: expected an object"},
      {replace(ok, "\"version\": 1", "\"version\": 2"), "version: version 2"},
      {replace(ok, "\"version\": 1", "\"version\": -1"), "version: expected an unsigned 32-bit integer"},
      {replace(ok, "\"format\": \"weft.token_vm.workflow\"", "\"format\": \"x\""), "format"},
      {replace(ok, "\"timeout\": 2", "\"timeout\": 2.5"), "zones[0].timeout: expected an unsigned"},
      {replace(ok, "\"timeout\": 2", "\"timeout\": 4294967296"), "zones[0].timeout: expected an unsigned"},
      {replace(ok, "\"timeout\": 2", "\"timeout\": 0"), "zones[0].timeout"},
      {replace(ok, "\"timeout\": 2", "\"timeot\": 2"), "zones[0].timeot: unknown key"},
      {replace(ok, "\"next_addr\": 1", "\"next_addr\": null"), "zones[0].next_addr"},
      {replace(ok, "\"next_addr\": 1", "\"next_addr\": 7"), "zones[0].next_addr"},
      {replace(ok, "\"advance\"", "\"sideways\""), "zones[0].flags[0]: unknown flag"},
      {replace(ok, "\"match_mode\": \"token\"", "\"match_mode\": \"glyph\""), "match_mode"},
      {replace(ok, "\"zones\": [", "\"zonez\": ["), "workflow.zonez: unknown key"},
      {replace(ok, "\"pattern_bytes\": [\n  46\n ]", "\"pattern_bytes\": [\n  460\n ]"), "pattern_bytes[0]: a byte must be"},
      {replace(ok, "\"tags\": [],", "\"tags\": [1],"), "tags[0]: expected a string"},
      {replace(ok, "\"close_pattern\": 0", "\"close_pattern\": 4294967295"), "zones[0].close_pattern: 4294967295 is reserved"},
      {std::string(100, '[') + std::string(100, ']'), "nesting deeper"},
      {"", "malformed JSON"},
  };
  for (const auto& [text, want] : cases) {
    CAPTURE(text);
    const std::string msg = error_message_of([&] { workflow_from_json(text, "f.json"); });
    CHECK(error_code_of([&] { workflow_from_json(text, "f.json"); }) == ErrorCode::BadInput);
    CHECK_MESSAGE(msg.find(want) != std::string::npos, msg);
  }
}

// Inputs the fuzzer once found troublesome (kept as files), and seeds: each goes through the fuzz
// target's own check (load, validate, save round trip, a run on the CPU reference) and must pass
// it or be refused with BadInput.
TEST_CASE("token_vm serialize: fuzzer regression inputs load and run, or are refused cleanly") {
  const std::filesystem::path dir = WEFT_TOKEN_VM_FUZZ_CORPUS;
  REQUIRE(std::filesystem::is_directory(dir));
  size_t files = 0, loaded = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    std::ifstream f(entry.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    CAPTURE(entry.path().string());
    ++files;
    try {
      loaded += fuzz_detail::fuzz_workflow_input(text);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::BadInput);
    }
  }
  CHECK(files >= 2);
  MESSAGE(files << " regression inputs, " << loaded << " loaded and ran");
}

}  // namespace
}  // namespace weft::token_vm::test
