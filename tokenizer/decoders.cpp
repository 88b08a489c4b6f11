// Decoders: token strings back to text. One class per tokenizer.json type; the table at the end
// maps type names.
#include <functional>
#include <map>

#include "byte_level.h"
#include "pipeline.h"
#include "regex.h"
#include "unicode.h"

namespace weft::tokenizer {

std::string replace_all(const std::string& t, std::string_view from, std::string_view to) {
  if (from.empty()) return t;
  std::string out;
  size_t prev = 0;
  for (size_t at = t.find(from); at != std::string::npos; at = t.find(from, prev)) {
    out.append(t, prev, at - prev);
    out += to;
    prev = at + from.size();
  }
  out.append(t, prev, std::string::npos);
  return out;
}

namespace {

const char* const kReplacementChar = "\xEF\xBF\xBD";  // U+FFFD


class ByteLevelDecoder final : public Decoder {
 public:
  void piece(std::string& token) const override {
    if (const auto b = byte_level::to_bytes(token)) token = *b;
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string bytes;
    for (const std::string& t : tokens) {
      const auto b = byte_level::to_bytes(t);
      bytes += b ? *b : t;  // a token outside the alphabet (an added token) stays as written
    }
    tokens.assign(1, utf8_lossy(bytes));
  }
};

class Metaspace final : public Decoder {
 public:
  void piece(std::string& token) const override { token = replace_all(token, replacement_, " "); }
  Metaspace(std::string replacement, bool strip_first) : replacement_(std::move(replacement)), strip_first_(strip_first) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string out;
      const std::string& t = tokens[i];
      for (size_t at = 0; at < t.size();) {
        if (t.compare(at, replacement_.size(), replacement_) == 0) {
          if (!(i == 0 && strip_first_)) out += ' ';
          at += replacement_.size();
        } else {
          out += t[at++];
        }
      }
      tokens[i] = std::move(out);
    }
  }

 private:
  std::string replacement_;
  bool strip_first_;
};

// <0xXX> tokens become their bytes; a run of them that is not valid UTF-8 becomes one U+FFFD per byte.
class ByteFallback final : public Decoder {
 public:
  void piece(std::string& token) const override {
    if (const auto b = byte_token(token)) token.assign(1, char(*b));
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    std::string bytes;
    size_t count = 0;
    const auto flush = [&] {
      if (!count) return;
      if (unicode::invalid_utf8_at(bytes) == std::string_view::npos) out.push_back(bytes);
      else
        for (size_t k = 0; k < count; ++k) out.emplace_back(kReplacementChar);
      bytes.clear();
      count = 0;
    };
    for (std::string& t : tokens) {
      if (const auto b = byte_token(t)) {
        bytes += char(*b);
        ++count;
        continue;
      }
      flush();
      out.push_back(std::move(t));
    }
    flush();
    tokens = std::move(out);
  }
  static std::optional<uint8_t> byte_token(const std::string& t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return std::nullopt;
    const auto hex = [](char c) -> int {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    const int hi = hex(t[3]), lo = hex(t[4]);
    if (hi < 0 || lo < 0) return std::nullopt;
    return uint8_t(hi * 16 + lo);
  }
};

class Fuse final : public Decoder {
 public:
  void piece(std::string&) const override {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string all;
    for (const auto& t : tokens) all += t;
    tokens.assign(1, std::move(all));
  }
};

// Removes up to `start` leading and `stop` trailing copies of one character from every token.
class Strip final : public Decoder {
 public:
  void piece(std::string&) const override {}  // trims the text's ends, not a token inside it
  Strip(std::string content, size_t start, size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) {
      size_t begin = 0, end = t.size();
      for (size_t k = 0; k < start_ && t.compare(begin, content_.size(), content_) == 0 && begin < end; ++k)
        begin += content_.size();
      for (size_t k = 0; k < stop_ && end >= begin + content_.size() &&
                         t.compare(end - content_.size(), content_.size(), content_) == 0;
           ++k)
        end -= content_.size();
      t = t.substr(begin, end - begin);
    }
  }

 private:
  std::string content_;
  size_t start_, stop_;
};

class Replace final : public Decoder {
 public:
  void piece(std::string& token) const override {
    std::vector<std::string> one{std::move(token)};
    decode_chain(one);
    token = std::move(one[0]);
  }
  Replace(Regex pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (std::string& t : tokens) {
      std::string out;
      size_t prev = 0;
      for (const auto& [begin, end] : pattern_.find_all(t)) {
        out.append(t, prev, begin - prev);
        out += content_;
        prev = end;
      }
      out.append(t, prev, std::string::npos);
      t = std::move(out);
    }
  }

 private:
  Regex pattern_;
  std::string content_;
};

class WordPiece final : public Decoder {
 public:
  void piece(std::string& token) const override {
    token = token.compare(0, prefix_.size(), prefix_) == 0 ? token.substr(prefix_.size()) : " " + token;
  }
  WordPiece(std::string prefix, bool cleanup) : prefix_(std::move(prefix)), cleanup_(cleanup) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string& t = tokens[i];
      if (i != 0) t = t.compare(0, prefix_.size(), prefix_) == 0 ? t.substr(prefix_.size()) : " " + t;
      if (cleanup_) t = cleanup(t);
    }
  }
  static std::string cleanup(std::string t) {
    static const std::pair<const char*, const char*> rules[] = {
        {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"}, {" n't", "n't"},
        {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : rules) t = replace_all(t, from, to);
    return t;
  }

 private:
  std::string prefix_;
  bool cleanup_;
};

// The BPE decoder: the end-of-word suffix becomes a space, except in the last token.
class BpeSuffix final : public Decoder {
 public:
  void piece(std::string& token) const override { token = replace_all(token, suffix_, " "); }
  explicit BpeSuffix(std::string suffix) : suffix_(std::move(suffix)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i)
      tokens[i] = replace_all(tokens[i], suffix_, i + 1 == tokens.size() ? "" : " ");
  }

 private:
  std::string suffix_;
};

class Sequence final : public Decoder {
 public:
  void piece(std::string& token) const override {
    for (const auto& s : steps_) s->piece(token);
  }
  explicit Sequence(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (const auto& s : steps_) s->decode_chain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

Regex pattern_of(const Json& j, const JsonPath& at) {
  const Json& p = member(j, "pattern", at);
  if (p.contains("String") && p["String"].is_string()) return Regex::literal(p["String"].get<std::string>(), at / "pattern");
  if (p.contains("Regex") && p["Regex"].is_string()) return Regex(p["Regex"].get<std::string>(), at / "pattern");
  fail_at(at / "pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
}

using Factory = std::function<std::unique_ptr<Decoder>(const Json&, const JsonPath&)>;

const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> table = {
      {"ByteLevel", [](const Json&, const JsonPath&) { return std::make_unique<ByteLevelDecoder>(); }},
      {"Metaspace",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"replacement", "prepend_scheme", "split", "add_prefix_space", "str_rep"}, at);
         bool strip_first = true;
         if (j.contains("prepend_scheme")) strip_first = string_member(j, "prepend_scheme", at) != "never";
         else if (j.contains("add_prefix_space")) strip_first = bool_member(j, "add_prefix_space", at);
         return std::make_unique<Metaspace>(string_member(j, "replacement", at), strip_first);
       }},
      {"ByteFallback", [](const Json&, const JsonPath&) { return std::make_unique<ByteFallback>(); }},
      {"Fuse", [](const Json&, const JsonPath&) { return std::make_unique<Fuse>(); }},
      {"Strip",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"content", "start", "stop"}, at);
         return std::make_unique<Strip>(string_member(j, "content", at), uint_member(j, "start", at), uint_member(j, "stop", at));
       }},
      {"Replace",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"pattern", "content"}, at);
         return std::make_unique<Replace>(pattern_of(j, at), string_member(j, "content", at));
       }},
      {"WordPiece",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"prefix", "cleanup"}, at);
         return std::make_unique<WordPiece>(j.contains("prefix") ? string_member(j, "prefix", at) : "##",
                                            bool_member(j, "cleanup", at, true));
       }},
      {"BPEDecoder",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"suffix"}, at);
         return std::make_unique<BpeSuffix>(j.contains("suffix") ? string_member(j, "suffix", at) : "</w>");
       }},
      {"Sequence",
       [](const Json& j, const JsonPath& at) {
         only_members(j, {"decoders"}, at);
         const Json& list = member(j, "decoders", at);
         if (!list.is_array()) fail_at(at / "decoders", "expected an array");
         std::vector<std::unique_ptr<Decoder>> steps;
         for (size_t i = 0; i < list.size(); ++i) steps.push_back(make_decoder(list[i], (at / "decoders")[i]));
         return std::make_unique<Sequence>(std::move(steps));
       }},
  };
  return table;
}

}  // namespace

std::string utf8_lossy(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t i = 0;
  while (i < bytes.size()) {
    const size_t bad = unicode::invalid_utf8_at(bytes.substr(i));
    if (bad == std::string_view::npos) {
      out.append(bytes.substr(i));
      break;
    }
    out.append(bytes.substr(i, bad));
    i += bad;
    // Skip the maximal prefix of a valid sequence (Unicode's "maximal subpart"), then one U+FFFD.
    const uint8_t c = uint8_t(bytes[i]);
    const size_t len = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 1;
    size_t k = 1;
    if (len > 1 && c >= 0xC2 && c <= 0xF4) {
      for (; k < len && i + k < bytes.size(); ++k) {
        const uint8_t t = uint8_t(bytes[i + k]);
        uint8_t lo = 0x80, hi = 0xBF;
        if (k == 1) {
          if (c == 0xE0) lo = 0xA0;
          else if (c == 0xED) hi = 0x9F;
          else if (c == 0xF0) lo = 0x90;
          else if (c == 0xF4) hi = 0x8F;
        }
        if (t < lo || t > hi) break;
      }
    }
    out += kReplacementChar;
    i += k;
  }
  return out;
}

std::unique_ptr<Decoder> make_decoder(const Json& j, const JsonPath& at) {
  if (j.is_null()) return nullptr;
  const std::string type = string_member(j, "type", at);
  const auto it = factories().find(type);
  if (it == factories().end()) unsupported(at / "type", "the decoder \"" + type + "\"");
  return it->second(j, at);
}

}  // namespace weft::tokenizer
