#include "workflow.h"

#include <string>

#include <weft/error.h>

namespace weft::token_vm {
namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
  fail(ErrorCode::BadInput, "workflow: " + where + ": " + what);
}

std::string at(const char* table, size_t i, const char* field) {
  return std::string(table) + "[" + std::to_string(i) + "]." + field;
}

void check_range(uint32_t start, uint32_t end, size_t size, const std::string& where) {
  if (start > end || end > size)
    bad(where, "range [" + std::to_string(start) + ", " + std::to_string(end) + ") outside 0.." +
                   std::to_string(size));
}

void check_index(uint32_t value, size_t size, const std::string& where, bool none_allowed) {
  if (value == kNone && none_allowed) return;
  if (value >= size)
    bad(where, std::to_string(value) + " is not below " + std::to_string(size) +
                   (none_allowed ? " (and is not 'none')" : ""));
}

void check_zone(const Workflow& w, size_t i) {
  const Zone& z = w.zones[i];
  const size_t done = w.zones.size();  // an address equal to the zone count means DONE
  if (z.next_addr > done) bad(at("zones", i, "next_addr"), "address " + std::to_string(z.next_addr) + " beyond DONE (" + std::to_string(done) + ")");
  if ((z.flags & kJumpActive) && z.jump_addr > done)
    bad(at("zones", i, "jump_addr"), "address " + std::to_string(z.jump_addr) + " beyond DONE (" + std::to_string(done) + ")");
  if (z.flags & ~uint32_t(kAdvanceActive | kJumpActive | kInput | kOutput | kLoopDecision))
    bad(at("zones", i, "flags"), "unknown flag bits");
  if (z.flags & kOutput) check_index(z.tool_id, w.tools.size(), at("zones", i, "tool_id"), false);
  check_range(z.token_start, z.token_end, w.token_data.size(), at("zones", i, "token_start/token_end"));
  if (w.tags.size() < kMaxTags && (z.tags >> w.tags.size()) != 0)
    bad(at("zones", i, "tags"), "tag bit beyond the " + std::to_string(w.tags.size()) + " declared tags");
  if (z.timeout == 0) bad(at("zones", i, "timeout"), "must be at least 1");
  check_index(z.close_pattern, w.patterns.size(), at("zones", i, "close_pattern"), !(z.flags & kAdvanceActive));
  if (z.flags & kLoopDecision) {
    check_index(z.loop, w.loops.size(), at("zones", i, "loop"), false);
    if (!(z.flags & kJumpActive)) bad(at("zones", i, "flags"), "a loop decision zone needs a jump exit");
  }
  check_index(z.sequence, w.sequences.size(), at("zones", i, "sequence"), true);
}

}  // namespace

void check_runs_with(const Workflow& workflow, const Tokenizer& tokenizer, const std::string& where) {
  if (!workflow.tokenizer.empty() && workflow.tokenizer != tokenizer.identity())
    fail(ErrorCode::BadInput, where + ": the workflow was compiled with the tokenizer \"" + workflow.tokenizer +
                                  "\", not the one given (\"" + tokenizer.identity() + "\"); pass the same tokenizer");
  const uint32_t vocab = tokenizer.vocab_size();
  for (Token t : workflow.token_data)
    if (t >= vocab && t != workflow.pad_token)
      fail(ErrorCode::BadInput, where + ": forced token " + std::to_string(t) + " is outside the tokenizer's vocabulary of " +
                                    std::to_string(vocab) + " (was it compiled with another tokenizer?)");
  for (const std::vector<Token>& set : workflow.allowed_sets)
    if (!set.empty() && set.back() >= vocab)
      fail(ErrorCode::BadInput, where + ": allowed token " + std::to_string(set.back()) + " is outside the tokenizer's vocabulary of " +
                                    std::to_string(vocab));
}

void check_token_ids(const Tokenizer& tokenizer, std::span<const Token> tokens, const std::string& where) {
  const uint32_t vocab = tokenizer.vocab_size();
  for (size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] >= vocab)
      fail(ErrorCode::BadInput, where + ": token " + std::to_string(i) + " is id " + std::to_string(tokens[i]) +
                                    ", not in the tokenizer's vocabulary of " + std::to_string(vocab) + " ids");
}

uint32_t add_byte_pattern(Workflow& w, const std::string& text) {
  Pattern p{uint32_t(w.pattern_tokens.size()), 0, uint32_t(w.pattern_bytes.size()), 0};
  for (unsigned char c : text) {
    w.pattern_tokens.push_back(c);
    w.pattern_bytes.push_back(c);
  }
  p.token_end = uint32_t(w.pattern_tokens.size());
  p.byte_end = uint32_t(w.pattern_bytes.size());
  w.patterns.push_back(p);
  return uint32_t(w.patterns.size() - 1);
}

uint32_t add_byte_zone(Workflow& w, const std::string& prompt, Zone z) {
  z.token_start = uint32_t(w.token_data.size());
  for (unsigned char c : prompt) w.token_data.push_back(c);
  z.token_end = uint32_t(w.token_data.size());
  w.zones.push_back(z);
  return uint32_t(w.zones.size() - 1);
}

// The logit masks: one entry per zone (or none at all), each naming a set; sets non-empty,
// ascending, distinct.
void validate_allowed(const Workflow& w) {
  if (!w.zone_allowed.empty() && w.zone_allowed.size() != w.zones.size())
    bad("zone_allowed", std::to_string(w.zone_allowed.size()) + " entries for " + std::to_string(w.zones.size()) + " zones");
  for (size_t i = 0; i < w.zone_allowed.size(); ++i)
    if (w.zone_allowed[i] != kNone && w.zone_allowed[i] >= w.allowed_sets.size())
      bad(at("zone_allowed", i, "set"), std::to_string(w.zone_allowed[i]) + " is not one of the " + std::to_string(w.allowed_sets.size()) + " allowed sets");
  for (size_t i = 0; i < w.allowed_sets.size(); ++i) {
    const std::vector<Token>& set = w.allowed_sets[i];
    if (set.empty()) bad(at("allowed_sets", i, "tokens"), "an allowed set must hold at least one token");
    for (size_t k = 1; k < set.size(); ++k)
      if (set[k] <= set[k - 1]) bad(at("allowed_sets", i, "tokens"), "tokens must be ascending and distinct");
  }
}

void validate(const Workflow& w) {
  if (w.zones.empty()) bad("zones", "a workflow needs at least one zone");
  if (w.tags.size() > kMaxTags) bad("tags", std::to_string(w.tags.size()) + " tags; at most 32");
  for (size_t i = 0; i < w.patterns.size(); ++i) {
    const Pattern& p = w.patterns[i];
    check_range(p.token_start, p.token_end, w.pattern_tokens.size(), at("patterns", i, "token_start/token_end"));
    check_range(p.byte_start, p.byte_end, w.pattern_bytes.size(), at("patterns", i, "byte_start/byte_end"));
    const uint32_t length = w.match_mode == MatchMode::Token ? p.token_end - p.token_start : p.byte_end - p.byte_start;
    if (length == 0 || length > kMaxPatternLength)
      bad(at("patterns", i, w.match_mode == MatchMode::Token ? "tokens" : "bytes"),
          "length " + std::to_string(length) + " outside 1.." + std::to_string(kMaxPatternLength));
  }
  check_index(w.control_pattern, w.patterns.size(), "control_pattern", true);
  if ((w.escape_open == kNone) != (w.escape_close == kNone))
    bad("escape_open/escape_close", "both or neither must be set");
  check_index(w.escape_open, w.patterns.size(), "escape_open", true);
  check_index(w.escape_close, w.patterns.size(), "escape_close", true);
  if (w.match_mode != MatchMode::Token && w.match_mode != MatchMode::Byte) bad("match_mode", "unknown mode");
  for (size_t i = 0; i < w.loops.size(); ++i)
    if (w.loops[i].max == 0 || w.loops[i].min > w.loops[i].max)
      bad(at("loops", i, "min/max"), "need 1 <= max and min <= max, got min " + std::to_string(w.loops[i].min) +
                                         " max " + std::to_string(w.loops[i].max));
  for (size_t i = 0; i < w.zones.size(); ++i) {
    check_zone(w, i);
    if ((w.zones[i].flags & kJumpActive) && w.control_pattern == kNone)
      bad(at("zones", i, "flags"), "a jump exit needs the workflow's control pattern");
  }
  for (size_t i = 0; i < w.extractions.size(); ++i)
    if (w.tags.size() < kMaxTags && (w.extractions[i].tags >> w.tags.size()) != 0)
      bad(at("extractions", i, "tags"), "tag bit beyond the declared tags");
  validate_allowed(w);
}

}  // namespace weft::token_vm
