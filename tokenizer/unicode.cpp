#include "unicode.h"

#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>

#include <weft/error.h>

namespace weft::tokenizer::unicode {

size_t invalid_utf8_at(std::string_view text) {
  size_t i = 0;
  const size_t n = text.size();
  while (i < n) {
    const uint8_t c = uint8_t(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    char32_t cp, min;
    if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07, min = 0x10000;
    else return i;
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      const uint8_t t = uint8_t(text[i + k]);
      if ((t & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (t & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xC0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += char(0xE0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  } else {
    out += char(0xF0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3F));
    out += char(0x80 | ((cp >> 6) & 0x3F));
    out += char(0x80 | (cp & 0x3F));
  }
}

namespace {

const icu::Normalizer2& normalizer(Form form) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* n = nullptr;
  switch (form) {
    case Form::NFC: n = icu::Normalizer2::getNFCInstance(status); break;
    case Form::NFD: n = icu::Normalizer2::getNFDInstance(status); break;
    case Form::NFKC: n = icu::Normalizer2::getNFKCInstance(status); break;
    case Form::NFKD: n = icu::Normalizer2::getNFKDInstance(status); break;
  }
  if (U_FAILURE(status) || !n) fail(ErrorCode::BadInput, std::string("ICU normalizer unavailable: ") + u_errorName(status));
  return *n;
}

std::string to_utf8(const icu::UnicodeString& s) {
  std::string out;
  s.toUTF8String(out);
  return out;
}

bool ascii_only(std::string_view text) {
  for (char c : text)
    if (uint8_t(c) >= 0x80) return false;
  return true;
}

}  // namespace

std::string normalize(std::string_view text, Form form) {
  const icu::Normalizer2& n = normalizer(form);
  if (ascii_only(text)) return std::string(text);  // every normal form leaves ASCII alone
  UErrorCode status = U_ZERO_ERROR;
  const icu::UnicodeString in = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), int32_t(text.size())));
  if (n.isNormalized(in, status) && U_SUCCESS(status)) return std::string(text);
  status = U_ZERO_ERROR;
  const icu::UnicodeString out = n.normalize(in, status);
  if (U_FAILURE(status)) fail(ErrorCode::BadInput, std::string("Unicode normalization failed: ") + u_errorName(status));
  return to_utf8(out);
}

std::string lowercase(std::string_view text) {
  if (ascii_only(text)) {
    std::string out(text);
    for (char& c : out)
      if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return out;
  }
  icu::UnicodeString s = icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), int32_t(text.size())));
  // Hugging Face lowercases character by character (Rust's char::to_lowercase), so a word-final
  // capital sigma becomes σ, not the ς of ICU's context-sensitive Final_Sigma rule. Sigma is the
  // only root-locale mapping that depends on context.
  s.findAndReplace(icu::UnicodeString(char16_t(0x03A3)), icu::UnicodeString(char16_t(0x03C3)));
  s.toLower(icu::Locale::getRoot());
  return to_utf8(s);
}

bool is_white_space(char32_t c) { return u_hasBinaryProperty(UChar32(c), UCHAR_WHITE_SPACE); }
bool is_control(char32_t c) { return u_charType(UChar32(c)) == U_CONTROL_CHAR; }
bool is_other(char32_t c) { return U_GET_GC_MASK(UChar32(c)) & U_GC_C_MASK; }
bool is_punctuation(char32_t c) { return U_GET_GC_MASK(UChar32(c)) & U_GC_P_MASK; }
bool is_numeric(char32_t c) { return U_GET_GC_MASK(UChar32(c)) & U_GC_N_MASK; }
bool is_alphabetic(char32_t c) { return u_hasBinaryProperty(UChar32(c), UCHAR_ALPHABETIC); }
bool is_mark(char32_t c) { return U_GET_GC_MASK(UChar32(c)) & U_GC_M_MASK; }
bool is_nonspacing_mark(char32_t c) { return u_charType(UChar32(c)) == U_NON_SPACING_MARK; }
bool is_decimal_digit(char32_t c) { return u_charType(UChar32(c)) == U_DECIMAL_DIGIT_NUMBER; }
bool is_connector_punctuation(char32_t c) { return u_charType(UChar32(c)) == U_CONNECTOR_PUNCTUATION; }
bool is_word(char32_t c) {
  if (c < 0x80) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  return is_alphabetic(c) || is_mark(c) || is_decimal_digit(c) || is_connector_punctuation(c) ||
         u_hasBinaryProperty(UChar32(c), UCHAR_JOIN_CONTROL);
}

}  // namespace weft::tokenizer::unicode
