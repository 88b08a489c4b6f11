// Normalizers: the text rewrites applied before pre-tokenization (and to added tokens marked
// "normalized"). One class per tokenizer.json type; the table at the end maps type names.
#include <functional>
#include <map>

#include "pipeline.h"
#include "precompiled.h"
#include "regex.h"
#include "unicode.h"

namespace weft::tokenizer {
namespace {

class UnicodeForm final : public Normalizer {
 public:
  explicit UnicodeForm(unicode::Form form) : form_(form) {}
  void normalize(std::string& text) const override { text = unicode::normalize(text, form_); }

 private:
  unicode::Form form_;
};

class Lowercase final : public Normalizer {
 public:
  void normalize(std::string& text) const override { text = unicode::lowercase(text); }
};

// Removes White_Space characters at either end.
class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void normalize(std::string& text) const override {
    size_t begin = 0, end = text.size();
    if (left_) {
      while (begin < end) {
        size_t i = begin;
        if (!unicode::is_white_space(unicode::next(text, i))) break;
        begin = i;
      }
    }
    if (right_) {
      while (end > begin) {
        size_t start = end - 1;
        while (start > begin && (uint8_t(text[start]) & 0xC0) == 0x80) --start;
        size_t i = start;
        if (!unicode::is_white_space(unicode::next(text, i))) break;
        end = start;
      }
    }
    text = text.substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

// Removes nonspacing marks (meant to follow NFD).
class StripAccents final : public Normalizer {
 public:
  void normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
      const size_t start = i;
      if (!unicode::is_nonspacing_mark(unicode::next(text, i))) out.append(text, start, i - start);
    }
    text = std::move(out);
  }
};

class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

// Replace: every match of a literal or regex pattern becomes `content`.
class Replace final : public Normalizer {
 public:
  Replace(Regex pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void normalize(std::string& text) const override {
    const auto matches = pattern_.find_all(text);
    if (matches.empty()) return;
    std::string out;
    size_t prev = 0;
    for (const auto& [begin, end] : matches) {
      out.append(text, prev, begin - prev);
      out += content_;
      prev = end;
    }
    out.append(text, prev, std::string::npos);
    text = std::move(out);
  }

 private:
  Regex pattern_;
  std::string content_;
};

class Sequence final : public Normalizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  void normalize(std::string& text) const override {
    for (const auto& s : steps_) s->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

// Hugging Face's BertNormalizer: drop controls and U+FFFD, turn whitespace into spaces, pad CJK
// ideographs with spaces, then optionally strip accents and lowercase.
class Bert final : public Normalizer {
 public:
  Bert(bool clean_text, bool chinese_chars, bool strip_accents, bool lowercase)
      : clean_text_(clean_text), chinese_chars_(chinese_chars), strip_accents_(strip_accents), lowercase_(lowercase) {}
  void normalize(std::string& text) const override {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
      const size_t start = i;
      const char32_t c = unicode::next(text, i);
      if (clean_text_) {
        const bool tab_or_newline = c == '\t' || c == '\n' || c == '\r';
        if (c == 0 || c == 0xFFFD || (!tab_or_newline && unicode::is_other(c))) continue;
        if (tab_or_newline || unicode::is_white_space(c)) {
          out += ' ';
          continue;
        }
      }
      if (chinese_chars_ && is_chinese_char(c)) {
        out += ' ';
        out.append(text, start, i - start);
        out += ' ';
        continue;
      }
      out.append(text, start, i - start);
    }
    if (strip_accents_) {
      out = unicode::normalize(out, unicode::Form::NFD);
      StripAccents().normalize(out);
    }
    if (lowercase_) out = unicode::lowercase(out);
    text = std::move(out);
  }

 private:
  static bool is_chinese_char(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
  }
  bool clean_text_, chinese_chars_, strip_accents_, lowercase_;
};

using Factory = std::function<std::unique_ptr<Normalizer>(const Json&, const JsonPath&)>;

Regex replace_pattern(const Json& j, const JsonPath& at) {
  const Json& p = member(j, "pattern", at);
  if (p.contains("String") && p["String"].is_string()) return Regex::literal(p["String"].get<std::string>(), at / "pattern");
  if (p.contains("Regex") && p["Regex"].is_string()) return Regex(p["Regex"].get<std::string>(), at / "pattern");
  fail_at(at / "pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
}

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> table = {
      {"NFC", [](const Json&, const JsonPath&) { return std::make_unique<UnicodeForm>(unicode::Form::NFC); }},
      {"NFD", [](const Json&, const JsonPath&) { return std::make_unique<UnicodeForm>(unicode::Form::NFD); }},
      {"NFKC", [](const Json&, const JsonPath&) { return std::make_unique<UnicodeForm>(unicode::Form::NFKC); }},
      {"NFKD", [](const Json&, const JsonPath&) { return std::make_unique<UnicodeForm>(unicode::Form::NFKD); }},
      {"Lowercase", [](const Json&, const JsonPath&) { return std::make_unique<Lowercase>(); }},
      {"StripAccents", [](const Json&, const JsonPath&) { return std::make_unique<StripAccents>(); }},
      {"Strip",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"strip_left", "strip_right"}, at);
         return std::make_unique<Strip>(bool_member(j, "strip_left", at, false), bool_member(j, "strip_right", at, false));
       }},
      {"Prepend",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"prepend"}, at);
         return std::make_unique<Prepend>(string_member(j, "prepend", at));
       }},
      {"Replace",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"pattern", "content"}, at);
         return std::make_unique<Replace>(replace_pattern(j, at), string_member(j, "content", at));
       }},
      {"BertNormalizer",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"clean_text", "handle_chinese_chars", "strip_accents", "lowercase"}, at);
         const bool lowercase = bool_member(j, "lowercase", at, true);
         // strip_accents null follows lowercase, as in Hugging Face.
         const bool strip = bool_member(j, "strip_accents", at, lowercase);
         return std::make_unique<Bert>(bool_member(j, "clean_text", at, true), bool_member(j, "handle_chinese_chars", at, true),
                                       strip, lowercase);
       }},
      {"Precompiled", make_precompiled},
      {"Sequence",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"normalizers"}, at);
         const Json& list = member(j, "normalizers", at);
         if (!list.is_array()) fail_at(at / "normalizers", "expected an array");
         std::vector<std::unique_ptr<Normalizer>> steps;
         for (size_t i = 0; i < list.size(); ++i) {
           auto n = make_normalizer(list[i], (at / "normalizers")[i]);
           if (n) steps.push_back(std::move(n));
         }
         return std::make_unique<Sequence>(std::move(steps));
       }},
  };
  return table;
}

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const Json& j, const JsonPath& at) {
  if (j.is_null()) return nullptr;
  const std::string type = string_member(j, "type", at);
  const auto it = factories().find(type);
  if (it == factories().end()) unsupported(at / "type", "the normalizer \"" + type + "\"");
  return it->second(j, at);
}

}  // namespace weft::tokenizer
