// Zone splitting of one block's text (spec §1.1): the text is cut so that each zone's forced
// text ends with the pattern that closes it. Scanning mirrors the VM's matcher: a pattern is
// recognised where it ends, the escape depth rises on the open pattern and falls on the close
// pattern, and zone / control patterns count only at depth 0 (no split inside an escape).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft::token_vm {

// Every pattern of a prompt set, numbered as the compiled Workflow numbers them:
// zone patterns 0..n-1, then the control pattern (n), then the escape open (n+1) and close (n+2)
// when escapes are configured.
struct PatternSet {
  std::vector<std::string> zone;  // >= 2
  std::string control;            // may be empty (no control pattern)
  std::string escape_open;        // both empty or both set
  std::string escape_close;

  uint32_t control_id() const { return uint32_t(zone.size()); }
  uint32_t escape_open_id() const { return uint32_t(zone.size()) + 1; }
  uint32_t escape_close_id() const { return uint32_t(zone.size()) + 2; }
  bool has_escapes() const { return !escape_open.empty(); }
};

// A run of forced text: plain text (pattern == kPlain) or one occurrence of a pattern. Plain
// runs are tokenized as text; pattern runs take the pattern's own tokens, so a token-level
// matcher sees exactly the occurrences the splitter saw.
struct TextPiece {
  static constexpr uint32_t kPlain = 0xFFFFFFFFu;
  uint32_t pattern = kPlain;
  std::string text;
};

struct ZoneText {
  std::string text;               // the forced text, verbatim
  std::vector<TextPiece> pieces;  // the same text, cut at pattern occurrences
  bool closed = false;            // the text ends with this zone's close pattern
};

struct SplitResult {
  std::vector<ZoneText> zones;  // one per zone pattern: zones[k] is closed by zone[k]
  uint32_t closed_zones = 0;    // zones whose close pattern the text contains
};

// `where` prefixes every message (file, sequence, block and field). Errors throw
// weft::Error(BadInput); warnings (an unescaped control pattern) are appended to `warnings`.
// Whitespace after the final zone pattern is dropped; any other text there is an error.
SplitResult split_zones(std::string_view text, const PatternSet& patterns, const std::string& where,
                        std::vector<std::string>* warnings);

}  // namespace weft::token_vm
