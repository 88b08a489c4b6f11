// GPT-2's byte-level alphabet: every byte stands for one printable code point (printable
// Latin-1 bytes for themselves, the other 68 for U+0100.. in byte order), so any byte string
// is a string the BPE vocabulary can spell.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace weft::tokenizer::byte_level {

// The pattern the ByteLevel pre-tokenizer splits with when use_regex is on.
inline constexpr const char* kGpt2Pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

char32_t byte_to_char(uint8_t byte);
std::optional<uint8_t> char_to_byte(char32_t c);
std::string to_chars(std::string_view bytes);  // each byte as its code point, UTF-8 encoded
// The bytes a byte-level string spells, or nothing when a character is outside the alphabet.
std::optional<std::string> to_bytes(std::string_view chars);

}  // namespace weft::tokenizer::byte_level
