#include "byte_level.h"

#include <array>

#include "unicode.h"

namespace weft::tokenizer::byte_level {
namespace {

struct Tables {
  std::array<char32_t, 256> to_char{};
  std::array<std::string, 256> utf8;
  Tables() {
    char32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      to_char[b] = printable ? b : next++;
      unicode::append(utf8[b], to_char[b]);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

}  // namespace

char32_t byte_to_char(uint8_t byte) { return tables().to_char[byte]; }

std::optional<uint8_t> char_to_byte(char32_t c) {
  if (c < 256) {
    const bool printable = (c >= 33 && c <= 126) || (c >= 161 && c <= 172) || (c >= 174 && c <= 255);
    if (printable) return uint8_t(c);
    return std::nullopt;
  }
  if (c >= 256 && c < 256 + 68) {
    // The remapped bytes in order: 0-32, 127-160, 173.
    const uint32_t k = c - 256;
    if (k <= 32) return uint8_t(k);
    if (k <= 32 + 34) return uint8_t(127 + (k - 33));
    return uint8_t(173);
  }
  return std::nullopt;
}

std::string to_chars(std::string_view bytes) {
  const Tables& t = tables();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (char b : bytes) out += t.utf8[uint8_t(b)];
  return out;
}

std::optional<std::string> to_bytes(std::string_view chars) {
  std::string out;
  out.reserve(chars.size());
  for (size_t i = 0; i < chars.size();) {
    const auto byte = char_to_byte(unicode::next(chars, i));
    if (!byte) return std::nullopt;
    out += char(*byte);
  }
  return out;
}

}  // namespace weft::tokenizer::byte_level
