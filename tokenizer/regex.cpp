#define PCRE2_CODE_UNIT_WIDTH 8
#include "regex.h"

#include <pcre2.h>

#include "unicode.h"

#include <weft/error.h>

namespace weft::tokenizer {

struct Regex::Compiled {
  pcre2_code* code = nullptr;
  ~Compiled() { pcre2_code_free(code); }
};

std::string onig_to_pcre2(std::string_view p, const JsonPath& at) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      const char d = p[++i];
      switch (d) {
        case 's': out += in_class ? "\\s\\x{85}" : "[\\s\\x{85}]"; break;
        case 'h': out += in_class ? "0-9a-fA-F" : "[0-9a-fA-F]"; break;
        case 'S':
        case 'H':
          if (in_class) unsupported(at, std::string("\\") + d + " inside a character class (Oniguruma and PCRE2 read it differently)");
          out += d == 'S' ? "[^\\s\\x{85}]" : "[^0-9a-fA-F]";
          break;
        default: out += c, out += d;
      }
      continue;
    }
    if (c == '[') {
      if (in_class && i + 1 < p.size() && p[i + 1] == ':') {  // a POSIX class: copy through ":]"
        const size_t end = p.find(":]", i + 2);
        if (end == std::string_view::npos) fail_at(at, "unterminated POSIX class in the pattern");
        out.append(p.substr(i, end + 2 - i));
        i = end + 1;
        continue;
      }
      if (in_class) unsupported(at, "a nested character class (Oniguruma set syntax) in the pattern");
      in_class = true;
      out += c;
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];  // a leading ] is a literal
      continue;
    }
    if (c == ']' && in_class) in_class = false;
    if (c == '&' && in_class && i + 1 < p.size() && p[i + 1] == '&')
      unsupported(at, "class intersection (&&) in the pattern");
    out += c;
  }
  return out;
}

namespace {

pcre2_code* compile(const std::string& pattern, uint32_t extra_options, const JsonPath& at) {
  int error = 0;
  PCRE2_SIZE offset = 0;
  // PCRE2_LITERAL admits no UCP (a literal has no classes for it to change).
  const uint32_t options = PCRE2_UTF | PCRE2_NO_UTF_CHECK | ((extra_options & PCRE2_LITERAL) ? 0 : PCRE2_UCP) | extra_options;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options, &error,
                                   &offset, nullptr);
  if (!code) {
    PCRE2_UCHAR message[256];
    pcre2_get_error_message(error, message, sizeof message);
    fail_at(at, "the pattern does not compile at offset " + std::to_string(offset) + ": " +
                    reinterpret_cast<const char*>(message));
  }
  pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);  // no JIT on this platform: the interpreter runs it
  return code;
}

}  // namespace

Regex::Regex(std::string_view pattern, const JsonPath& at) : compiled_(std::make_unique<Compiled>()) {
  compiled_->code = compile(onig_to_pcre2(pattern, at), 0, at);
}

Regex::Regex(std::unique_ptr<Compiled> compiled) : compiled_(std::move(compiled)) {}

Regex Regex::literal(std::string_view text, const JsonPath& at) {
  auto compiled = std::make_unique<Compiled>();
  compiled->code = compile(std::string(text), PCRE2_LITERAL, at);
  return Regex(std::move(compiled));
}

Regex::~Regex() = default;
Regex::Regex(Regex&&) noexcept = default;
Regex& Regex::operator=(Regex&&) noexcept = default;

std::vector<std::pair<size_t, size_t>> Regex::find_all(std::string_view text) const {
  std::vector<std::pair<size_t, size_t>> matches;
  pcre2_match_data* data = pcre2_match_data_create_from_pattern(compiled_->code, nullptr);
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  size_t start = 0;
  while (start <= text.size()) {
    const int rc = pcre2_match(compiled_->code, subject, text.size(), start, PCRE2_NO_UTF_CHECK, data, nullptr);
    if (rc < 0) {
      if (rc == PCRE2_ERROR_NOMATCH) break;
      pcre2_match_data_free(data);
      fail(ErrorCode::BadInput, "regular expression failed on the text (PCRE2 error " + std::to_string(rc) +
                                    ", e.g. its backtracking limit)");
    }
    const PCRE2_SIZE* v = pcre2_get_ovector_pointer(data);
    matches.emplace_back(v[0], v[1]);
    if (v[1] > v[0]) start = v[1];
    else if (v[1] < text.size()) start = v[1] + unicode::length(uint8_t(text[v[1]]));
    else break;
  }
  pcre2_match_data_free(data);
  return matches;
}

std::vector<MatchRun> Regex::runs(std::string_view text) const {
  std::vector<MatchRun> out;
  size_t prev = 0;
  for (const auto& [begin, end] : find_all(text)) {
    if (prev != begin) out.push_back({prev, begin, false});
    out.push_back({begin, end, true});
    prev = end;
  }
  if (prev != text.size()) out.push_back({prev, text.size(), false});
  return out;
}

}  // namespace weft::tokenizer
