// UTF-8 walking and the Unicode facts tokenizers ask about, from ICU (Debian's libicu): normal
// forms, full lowercase mapping, general categories and the White_Space property.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace weft::tokenizer::unicode {

// The byte offset of the first invalid UTF-8 sequence, or npos for valid text.
size_t invalid_utf8_at(std::string_view text);

// Decodes the code point at text[i] (valid UTF-8 assumed) and moves i past it.
inline char32_t next(std::string_view text, size_t& i) {
  const auto b = [&](size_t k) { return char32_t(uint8_t(text[k])); };
  const char32_t c = b(i);
  if (c < 0x80) return i += 1, c;
  if (c < 0xE0) return i += 2, ((c & 0x1F) << 6) | (b(i - 1) & 0x3F);
  if (c < 0xF0) return i += 3, ((c & 0x0F) << 12) | ((b(i - 2) & 0x3F) << 6) | (b(i - 1) & 0x3F);
  i += 4;
  return ((c & 0x07) << 18) | ((b(i - 3) & 0x3F) << 12) | ((b(i - 2) & 0x3F) << 6) | (b(i - 1) & 0x3F);
}
// The byte length of the code point that starts with `lead`.
inline size_t length(uint8_t lead) { return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4; }
void append(std::string& out, char32_t cp);

enum class Form { NFC, NFD, NFKC, NFKD };
std::string normalize(std::string_view text, Form form);
std::string lowercase(std::string_view text);  // each character's full lowercase mapping, no context

bool is_white_space(char32_t c);  // the White_Space property (Rust's char::is_whitespace)
bool is_control(char32_t c);      // general category Cc
bool is_other(char32_t c);        // general categories C* (Cc, Cf, Cs, Co, Cn)
bool is_punctuation(char32_t c);  // general categories P*
bool is_numeric(char32_t c);      // general categories Nd, Nl, No (Rust's char::is_numeric)
bool is_alphabetic(char32_t c);   // the Alphabetic property
bool is_mark(char32_t c);         // general categories M*
bool is_nonspacing_mark(char32_t c);  // general category Mn
bool is_decimal_digit(char32_t c);    // general category Nd
bool is_connector_punctuation(char32_t c);  // general category Pc
// Rust regex's Unicode \w: Alphabetic, M*, Nd, Pc and Join_Control.
bool is_word(char32_t c);

}  // namespace weft::tokenizer::unicode
