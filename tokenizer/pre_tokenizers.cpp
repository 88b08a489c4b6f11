// Pre-tokenizers: how normalized text is cut into the words the model sees. One class per
// tokenizer.json type; the table at the end maps type names.
#include <functional>
#include <map>

#include "byte_level.h"
#include "pipeline.h"
#include "regex.h"
#include "unicode.h"

namespace weft::tokenizer {
namespace {

// Hugging Face's char-predicate pattern: every character the predicate accepts is a match run of
// its own; the characters between form the gaps.
template <class Pred>
std::vector<MatchRun> char_runs(std::string_view text, Pred pred) {
  std::vector<MatchRun> runs;
  size_t last = 0;
  for (size_t i = 0; i < text.size();) {
    const size_t start = i;
    if (pred(unicode::next(text, i))) {
      if (last < start) runs.push_back({last, start, false});
      runs.push_back({start, i, true});
      last = i;
    }
  }
  if (last < text.size()) runs.push_back({last, text.size(), false});
  return runs;
}

template <class Runs>
void split_each(std::vector<Split>& splits, SplitBehavior behavior, Runs runs_of) {
  std::vector<Split> out;
  out.reserve(splits.size());
  for (Split& s : splits) {
    if (s.added) out.push_back(std::move(s));
    else split_piece(s, runs_of(s.text), behavior, out);
  }
  splits = std::move(out);
}

class ByteLevelPre final : public PreTokenizer {
 public:
  ByteLevelPre(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}
  void pre_tokenize(std::vector<Split>& splits) const override {
    if (add_prefix_space_)
      for (Split& s : splits)
        if (!s.added && !s.text.empty() && s.text[0] != ' ') s.text.insert(0, " ");
    if (use_regex_) split_each(splits, SplitBehavior::Isolated, [&](const std::string& t) { return gpt2_regex().runs(t); });
    for (Split& s : splits)
      if (!s.added) s.text = byte_level::to_chars(s.text);
  }

 private:
  static const Regex& gpt2_regex() {
    static const Regex re(byte_level::kGpt2Pattern, JsonPath{"ByteLevel", ""});
    return re;
  }
  bool add_prefix_space_, use_regex_;
};

class SplitPre final : public PreTokenizer {
 public:
  SplitPre(Regex pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  void pre_tokenize(std::vector<Split>& splits) const override {
    split_each(splits, behavior_, [&](const std::string& t) {
      auto runs = pattern_.runs(t);
      if (invert_)
        for (auto& r : runs) r.is_match = !r.is_match;
      return runs;
    });
  }

 private:
  Regex pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

class Metaspace final : public PreTokenizer {
 public:
  enum class Prepend { Always, First, Never };
  Metaspace(std::string replacement, Prepend prepend, bool split)
      : replacement_(std::move(replacement)), prepend_(prepend), split_(split) {}
  void pre_tokenize(std::vector<Split>& splits) const override {
    for (Split& s : splits) {
      if (s.added) continue;
      s.text = replace_spaces(s.text);
      const bool starts = s.text.compare(0, replacement_.size(), replacement_) == 0;
      if (!starts && (prepend_ == Prepend::Always || (prepend_ == Prepend::First && s.at_origin)))
        s.text.insert(0, replacement_);
    }
    if (split_) split_each(splits, SplitBehavior::MergedWithNext, [&](const std::string& t) { return runs_at(t); });
  }

 private:
  std::string replace_spaces(const std::string& t) const {
    std::string out;
    out.reserve(t.size());
    for (char c : t)
      if (c == ' ') out += replacement_;
      else out += c;
    return out;
  }
  std::vector<MatchRun> runs_at(const std::string& t) const {
    std::vector<MatchRun> runs;
    size_t last = 0;
    for (size_t at = t.find(replacement_); at != std::string::npos; at = t.find(replacement_, at + replacement_.size())) {
      if (last < at) runs.push_back({last, at, false});
      runs.push_back({at, at + replacement_.size(), true});
      last = at + replacement_.size();
    }
    if (last < t.size()) runs.push_back({last, t.size(), false});
    return runs;
  }
  std::string replacement_;
  Prepend prepend_;
  bool split_;
};

// Whitespace: \w+|[^\w\s]+ (Unicode classes as Rust's regex has them); the rest is dropped.
class Whitespace final : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<Split>& splits) const override {
    split_each(splits, SplitBehavior::Removed, [](const std::string& t) {
      std::vector<MatchRun> runs;
      int kind_of_run = -1;  // 0 word, 1 other, 2 space
      for (size_t i = 0; i < t.size();) {
        const size_t start = i;
        const char32_t c = unicode::next(t, i);
        const int kind = unicode::is_word(c) ? 0 : unicode::is_white_space(c) ? 2 : 1;
        if (kind == kind_of_run && kind != 2) runs.back().end = i;
        else if (kind == 2 && !runs.empty() && runs.back().is_match) runs.back().end = i;
        else runs.push_back({start, i, kind == 2});  // kept runs are the inverted matches
        kind_of_run = kind;
      }
      return runs;
    });
  }
};

class CharSplit final : public PreTokenizer {
 public:
  CharSplit(std::function<bool(char32_t)> pred, SplitBehavior behavior) : pred_(std::move(pred)), behavior_(behavior) {}
  void pre_tokenize(std::vector<Split>& splits) const override {
    split_each(splits, behavior_, [&](const std::string& t) { return char_runs(t, pred_); });
  }

 private:
  std::function<bool(char32_t)> pred_;
  SplitBehavior behavior_;
};

bool is_punctuation(char32_t c) {
  return (c < 0x80 && ((c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
                       (c >= 0x7B && c <= 0x7E))) ||
         unicode::is_punctuation(c);
}

class Sequence final : public PreTokenizer {
 public:
  explicit Sequence(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void pre_tokenize(std::vector<Split>& splits) const override {
    for (const auto& s : steps_) s->pre_tokenize(splits);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

Metaspace::Prepend prepend_scheme(const Json& j, const JsonPath& at) {
  if (j.contains("add_prefix_space") && !j.contains("prepend_scheme"))  // the older form
    return bool_member(j, "add_prefix_space", at) ? Metaspace::Prepend::Always : Metaspace::Prepend::Never;
  const std::string s = j.contains("prepend_scheme") ? string_member(j, "prepend_scheme", at) : "always";
  if (s == "always") return Metaspace::Prepend::Always;
  if (s == "first") return Metaspace::Prepend::First;
  if (s == "never") return Metaspace::Prepend::Never;
  unsupported(at / "prepend_scheme", "the prepend scheme \"" + s + "\"");
}

using Factory = std::function<std::unique_ptr<PreTokenizer>(const Json&, const JsonPath&)>;

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> table = {
      {"ByteLevel",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"add_prefix_space", "trim_offsets", "use_regex"}, at);  // trim_offsets: offsets only
         return std::make_unique<ByteLevelPre>(bool_member(j, "add_prefix_space", at, true), bool_member(j, "use_regex", at, true));
       }},
      {"Split",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"pattern", "behavior", "invert"}, at);
         const Json& p = member(j, "pattern", at);
         Regex re = p.contains("String") && p["String"].is_string() ? Regex::literal(p["String"].get<std::string>(), at / "pattern")
                    : p.contains("Regex") && p["Regex"].is_string() ? Regex(p["Regex"].get<std::string>(), at / "pattern")
                    : (fail_at(at / "pattern", "expected {\"String\": ...} or {\"Regex\": ...}"), Regex("", at));
         return std::make_unique<SplitPre>(std::move(re), split_behavior(member(j, "behavior", at), at / "behavior"),
                                           bool_member(j, "invert", at, false));
       }},
      {"Metaspace",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"}, at);
         const std::string rep = string_member(j, "replacement", at);
         if (rep.empty() || unicode::length(uint8_t(rep[0])) != rep.size()) fail_at(at / "replacement", "expected one character");
         return std::make_unique<Metaspace>(rep, prepend_scheme(j, at), bool_member(j, "split", at, true));
       }},
      {"Whitespace", [](const Json&, const JsonPath&) { return std::make_unique<Whitespace>(); }},
      {"WhitespaceSplit",
       [](const Json&, const JsonPath&) {
         return std::make_unique<CharSplit>(unicode::is_white_space, SplitBehavior::Removed);
       }},
      {"BertPreTokenizer",
       [](const Json&, const JsonPath&) {
         std::vector<std::unique_ptr<PreTokenizer>> steps;
         steps.push_back(std::make_unique<CharSplit>(unicode::is_white_space, SplitBehavior::Removed));
         steps.push_back(std::make_unique<CharSplit>(is_punctuation, SplitBehavior::Isolated));
         return std::make_unique<Sequence>(std::move(steps));
       }},
      {"Punctuation",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"behavior"}, at);
         const SplitBehavior b = j.contains("behavior") ? split_behavior(j["behavior"], at / "behavior") : SplitBehavior::Isolated;
         return std::make_unique<CharSplit>(is_punctuation, b);
       }},
      {"Digits",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"individual_digits"}, at);
         const bool individual = bool_member(j, "individual_digits", at, false);
         return std::make_unique<CharSplit>(unicode::is_numeric, individual ? SplitBehavior::Isolated : SplitBehavior::Contiguous);
       }},
      {"CharDelimiterSplit",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"delimiter"}, at);
         const std::string d = string_member(j, "delimiter", at);
         size_t i = 0;
         if (d.empty() || unicode::length(uint8_t(d[0])) != d.size()) fail_at(at / "delimiter", "expected one character");
         const char32_t c = unicode::next(d, i);
         return std::make_unique<CharSplit>([c](char32_t x) { return x == c; }, SplitBehavior::Removed);
       }},
      {"Sequence",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"pretokenizers"}, at);
         const Json& list = member(j, "pretokenizers", at);
         if (!list.is_array()) fail_at(at / "pretokenizers", "expected an array");
         std::vector<std::unique_ptr<PreTokenizer>> steps;
         for (size_t i = 0; i < list.size(); ++i) {
           auto p = make_pre_tokenizer(list[i], (at / "pretokenizers")[i]);
           if (p) steps.push_back(std::move(p));
         }
         return std::make_unique<Sequence>(std::move(steps));
       }},
  };
  return table;
}

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const Json& j, const JsonPath& at) {
  if (j.is_null()) return nullptr;
  const std::string type = string_member(j, "type", at);
  const auto it = factories().find(type);
  if (it == factories().end()) unsupported(at / "type", "the pre-tokenizer \"" + type + "\"");
  return it->second(j, at);
}

}  // namespace weft::tokenizer
