// The Split pre-tokenizer's and Replace's regular expressions, with PCRE2 (UTF + UCP, JIT where
// the library has it). tokenizer.json files are written for Oniguruma, whose Unicode \s also
// matches U+0085 and whose \h is a hex digit; patterns are rewritten to keep that meaning, and
// Oniguruma-only syntax PCRE2 would read differently (nested classes, \S inside a class) is
// refused with the JSON path rather than matched another way.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline.h"

namespace weft::tokenizer {

class Regex {
 public:
  Regex(std::string_view pattern, const JsonPath& at);  // BadInput naming `at` if it cannot compile
  static Regex literal(std::string_view text, const JsonPath& at);
  ~Regex();
  Regex(Regex&&) noexcept;
  Regex& operator=(Regex&&) noexcept;

  // Every match, leftmost first, as byte ranges; an empty match moves the search one character on.
  std::vector<std::pair<size_t, size_t>> find_all(std::string_view text) const;
  // The runs that cover `text`: each match and each gap between matches, in order.
  std::vector<MatchRun> runs(std::string_view text) const;

 private:
  struct Compiled;
  explicit Regex(std::unique_ptr<Compiled> compiled);
  std::unique_ptr<Compiled> compiled_;
};

// Oniguruma's pattern meaning in PCRE2 syntax (exposed for tests).
std::string onig_to_pcre2(std::string_view pattern, const JsonPath& at);

}  // namespace weft::tokenizer
