// SQLite's LIKE, on the host: the planner evaluates a pattern against every dictionary string
// once and the device tests membership in the matching set. The semantics are SQLite's default
// LIKE: '%' any sequence, '_' one character, ASCII letters compared case-insensitively (no other
// folding: 'é' does not match 'É'), text read as SQLite reads UTF-8 (malformed bytes included)
// up to its first NUL byte. Vulkan-free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace weft::db {

// SQLite's default SQLITE_LIMIT_LIKE_PATTERN_LENGTH: a longer pattern is an error there.
inline constexpr size_t kLikePatternLimit = 50000;

// Whether `text` LIKE `pattern` with the ESCAPE character `escape` (a code point; 0: none). As
// in SQLite, an ESCAPE of '%' or '_' takes that character's wildcard meaning away.
bool like_matches(const std::string& pattern, const std::string& text, uint32_t escape);

// The code point of a string of exactly one character (SQLite's rule for an ESCAPE operand),
// nullopt otherwise.
std::optional<uint32_t> single_character(const std::string& s);

}  // namespace weft::db
