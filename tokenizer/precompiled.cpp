// The Precompiled normalizer. Its precompiled_charsmap (base64) is SentencePiece's format: a
// little-endian u32 byte size of a darts-clone double-array trie, the trie's u32 units, then a
// pool of NUL-terminated replacement strings the trie's values point into.
//
// Rewriting follows Hugging Face (the spm_precompiled crate), not SentencePiece itself: each
// extended grapheme cluster shorter than 6 bytes is looked up whole, otherwise each of its
// characters; a lookup takes the *shortest* rule that prefixes the looked-up text and replaces
// all of that text with it.
#include "precompiled.h"

#include <memory>

#include <unicode/ubrk.h>
#include <unicode/utext.h>

#include <weft/error.h>

#include "unicode.h"

namespace weft::tokenizer {
namespace {

std::vector<uint8_t> decode_base64(std::string_view text, const JsonPath& at) {
  const auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  // Standard alphabet with its padding, as Hugging Face reads it.
  if (text.size() % 4 != 0) fail_at(at, "invalid base64: the length is not a multiple of 4");
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  uint32_t bits = 0;
  int count = 0;
  for (size_t i = 0; i < text.size() - padding; ++i) {
    const int v = value(text[i]);
    if (v < 0) fail_at(at, "invalid base64 character at offset " + std::to_string(i));
    bits = (bits << 6) | uint32_t(v);
    if (++count == 4) {
      out.push_back(uint8_t(bits >> 16)), out.push_back(uint8_t(bits >> 8)), out.push_back(uint8_t(bits));
      bits = 0, count = 0;
    }
  }
  if (count == 1) fail_at(at, "invalid base64: a dangling character");
  if (count == 2) {
    if (bits & 0xF) fail_at(at, "invalid base64: nonzero trailing bits");
    out.push_back(uint8_t(bits >> 4));
  } else if (count == 3) {
    if (bits & 0x3) fail_at(at, "invalid base64: nonzero trailing bits");
    out.push_back(uint8_t(bits >> 10)), out.push_back(uint8_t(bits >> 2));
  }
  return out;
}

class Precompiled final : public Normalizer {
 public:
  Precompiled(const std::vector<uint8_t>& charsmap, const JsonPath& at);
  void normalize(std::string& text) const override;

 private:
  std::optional<std::string_view> shortest_rule(std::string_view text) const;
  std::string_view replacement_at(uint32_t offset) const;
  uint32_t unit(size_t index) const {
    if (index >= trie_.size()) fail(ErrorCode::BadInput, "Precompiled: the charsmap's trie points past its end");
    return trie_[index];
  }

  std::vector<uint32_t> trie_;
  std::string pool_;
};

uint32_t read_le32(const uint8_t* p) { return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24; }

Precompiled::Precompiled(const std::vector<uint8_t>& charsmap, const JsonPath& at) {
  if (charsmap.size() < 4) fail_at(at, "the charsmap is too short for its trie size");
  // A size that is not a multiple of 4 leaves its odd bytes to the pool, as in Hugging Face.
  const size_t units = read_le32(charsmap.data()) / 4;
  if (units > (charsmap.size() - 4) / 4) fail_at(at, "the charsmap's trie is larger than the charsmap");
  trie_.resize(units);
  for (size_t i = 0; i < units; ++i) trie_[i] = read_le32(charsmap.data() + 4 + 4 * i);
  pool_.assign(charsmap.begin() + 4 + 4 * units, charsmap.end());
  if (unicode::invalid_utf8_at(pool_) != std::string_view::npos) fail_at(at, "the charsmap's replacements are not valid UTF-8");
}

// darts-clone's unit layout: bits 0-7 the label (bit 31 set on value units, so a value unit never
// matches a label), bit 8 "has a leaf", bits 10-30 the offset, scaled by 2^8 when bit 9 is set.
std::optional<std::string_view> Precompiled::shortest_rule(std::string_view text) const {
  const auto offset = [](uint32_t u) { return size_t(u >> 10) << ((u & (1u << 9)) >> 6); };
  size_t node = offset(unit(0));
  for (char ch : text) {
    const uint8_t c = uint8_t(ch);
    if (c == 0) break;
    node ^= c;
    const uint32_t u = unit(node);
    if ((u & ((1u << 31) | 0xFF)) != c) return std::nullopt;
    node ^= offset(u);
    if ((u >> 8) & 1) return replacement_at(unit(node) & ((1u << 31) - 1));
  }
  return std::nullopt;
}

std::string_view Precompiled::replacement_at(uint32_t offset) const {
  if (offset > pool_.size()) fail(ErrorCode::BadInput, "Precompiled: a rule points past the charsmap's replacements");
  const std::string_view rest = std::string_view(pool_).substr(offset);
  const std::string_view replacement = rest.substr(0, rest.find('\0'));
  if (!replacement.empty() && (uint8_t(replacement[0]) & 0xC0) == 0x80)
    fail(ErrorCode::BadInput, "Precompiled: a rule points inside a character");
  return replacement;
}

// ICU's grapheme break iterator, opened once per thread (opening one loads its rules).
UBreakIterator& grapheme_breaker() {
  thread_local std::unique_ptr<UBreakIterator, decltype(&ubrk_close)> breaker(nullptr, ubrk_close);
  if (!breaker) {
    UErrorCode status = U_ZERO_ERROR;
    breaker.reset(ubrk_open(UBRK_CHARACTER, "", nullptr, 0, &status));
    if (U_FAILURE(status)) breaker.reset();
    if (!breaker) fail(ErrorCode::BadInput, std::string("ICU grapheme breaking is unavailable: ") + u_errorName(status));
  }
  return *breaker;
}

// The byte offsets where extended grapheme clusters start, and the text's end.
std::vector<size_t> grapheme_bounds(const std::string& text) {
  UErrorCode status = U_ZERO_ERROR;
  UText utext = UTEXT_INITIALIZER;
  utext_openUTF8(&utext, text.data(), int64_t(text.size()), &status);
  UBreakIterator& breaker = grapheme_breaker();
  ubrk_setUText(&breaker, &utext, &status);
  std::vector<size_t> bounds;
  if (U_SUCCESS(status))
    for (int32_t b = ubrk_first(&breaker); b != UBRK_DONE; b = ubrk_next(&breaker)) bounds.push_back(size_t(b));
  utext_close(&utext);
  if (U_FAILURE(status)) fail(ErrorCode::BadInput, std::string("ICU grapheme breaking failed: ") + u_errorName(status));
  return bounds;
}

void Precompiled::normalize(std::string& text) const {
  if (text.empty()) return;
  const std::vector<size_t> bounds = grapheme_bounds(text);
  std::string out;
  out.reserve(text.size());
  for (size_t g = 0; g + 1 < bounds.size(); ++g) {
    const std::string_view grapheme = std::string_view(text).substr(bounds[g], bounds[g + 1] - bounds[g]);
    if (grapheme.size() < 6)
      if (const auto rule = shortest_rule(grapheme)) {
        out += *rule;
        continue;
      }
    for (size_t i = 0; i < grapheme.size();) {
      const std::string_view ch = grapheme.substr(i, unicode::length(uint8_t(grapheme[i])));
      const auto rule = shortest_rule(ch);
      out += rule ? *rule : ch;
      i += ch.size();
    }
  }
  text = std::move(out);
}

}  // namespace

std::unique_ptr<Normalizer> make_precompiled(const Json& j, const JsonPath& at) {
  only_members(j, {"precompiled_charsmap"}, at);
  const auto bytes = decode_base64(string_member(j, "precompiled_charsmap", at), at / "precompiled_charsmap");
  return std::make_unique<Precompiled>(bytes, at / "precompiled_charsmap");
}

}  // namespace weft::tokenizer
