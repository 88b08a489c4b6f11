#include "like.h"

#include <bit>
#include <vector>

namespace weft::db {

namespace {

constexpr uint32_t kReplacement = 0xFFFD;

// The characters of `s` up to its first NUL, decoded the way SQLite reads text: a byte below
// 0xC0 is one character (a stray continuation byte too), a byte from 0xC0 up starts one that
// takes every continuation byte after it, keeping the bits of the lead byte below its leading
// ones and their terminating zero; a result below 0x80, a surrogate, U+FFFE or U+FFFF reads as
// U+FFFD.
std::vector<uint32_t> characters(const std::string& s) {
  std::vector<uint32_t> out;
  for (size_t i = 0; i < s.size() && s[i] != '\0';) {
    const auto byte = static_cast<unsigned char>(s[i++]);
    if (byte < 0xC0) {
      out.push_back(byte);
      continue;
    }
    const int payload_bits = std::max(0, 7 - std::countl_one(byte));
    uint32_t c = byte & ((1u << payload_bits) - 1u);
    for (; i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80; ++i)
      c = (c << 6) | (static_cast<unsigned char>(s[i]) & 0x3Fu);
    const bool invalid = c < 0x80 || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE || c == 0xFFFF;
    out.push_back(invalid ? kReplacement : c);
  }
  return out;
}

// One element of a parsed pattern: a wildcard, or a character that must equal the text's.
struct PatternItem {
  enum Kind { AnySequence, AnyOne, Literal } kind;
  uint32_t c = 0;
};

// The pattern's items; nullopt when it ends in the escape character, which nothing matches.
std::optional<std::vector<PatternItem>> parse_pattern(const std::string& pattern, uint32_t escape) {
  const std::vector<uint32_t> cs = characters(pattern);
  std::vector<PatternItem> items;
  for (size_t i = 0; i < cs.size(); ++i) {
    if (escape != 0 && cs[i] == escape) {  // checked first: an ESCAPE of '%' or '_' is no wildcard
      if (++i == cs.size()) return std::nullopt;
      items.push_back({PatternItem::Literal, cs[i]});
    } else if (cs[i] == '%') {
      items.push_back({PatternItem::AnySequence});
    } else if (cs[i] == '_') {
      items.push_back({PatternItem::AnyOne});
    } else {
      items.push_back({PatternItem::Literal, cs[i]});
    }
  }
  return items;
}

bool same_character(uint32_t a, uint32_t b) {
  const auto fold = [](uint32_t c) { return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c; };
  return a == b || (a < 0x80 && b < 0x80 && fold(a) == fold(b));
}

// Wildcard matching with one resume point: on a mismatch, the last '%' seen takes one more
// character of the text and matching goes on from just after it (linear in most patterns,
// never worse than text x pattern).
bool matches(const std::vector<PatternItem>& pattern, const std::vector<uint32_t>& text) {
  size_t p = 0, t = 0;
  size_t resume_p = SIZE_MAX, resume_t = 0;
  while (t < text.size()) {
    const PatternItem* item = p < pattern.size() ? &pattern[p] : nullptr;
    if (item && item->kind == PatternItem::AnySequence) {
      resume_p = ++p;
      resume_t = t;
    } else if (item && (item->kind == PatternItem::AnyOne || same_character(item->c, text[t]))) {
      ++p, ++t;
    } else if (resume_p != SIZE_MAX) {
      p = resume_p;
      t = ++resume_t;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p].kind == PatternItem::AnySequence) ++p;
  return p == pattern.size();
}

}  // namespace

bool like_matches(const std::string& pattern, const std::string& text, uint32_t escape) {
  const auto items = parse_pattern(pattern, escape);
  return items && matches(*items, characters(text));
}

std::optional<uint32_t> single_character(const std::string& s) {
  const std::vector<uint32_t> cs = characters(s);
  if (cs.size() != 1) return std::nullopt;
  return cs[0];
}

}  // namespace weft::db
