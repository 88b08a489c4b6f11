#include "bpe_tokenizer.h"

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include <weft/error.h>
#include <weft/input_file.h>

namespace weft::token_vm {
namespace {

using json = nlohmann::json;

// GPT-2's table: printable Latin-1 bytes stand for themselves, the other 68 bytes take the
// code points 256, 257, ... in byte order.
const std::array<uint32_t, 256>& byte_code_points() {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    uint32_t next = 256;
    for (uint32_t b = 0; b < 256; ++b) {
      const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
      t[b] = printable ? b : next++;
    }
    return t;
  }();
  return table;
}

void append_utf8(std::string& out, uint32_t cp) {
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

// Decodes one UTF-8 code point at s[i]; invalid sequences yield the single byte (as 0xDC00 +
// byte, outside every class test below) so that no input is rejected or misread past its end.
uint32_t next_code_point(std::string_view s, size_t& i) {
  const auto b = [&](size_t k) { return uint8_t(s[k]); };
  const uint8_t c = b(i);
  size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (len == 0 || i + len > s.size()) {
    ++i;
    return c < 0x80 ? c : 0xDC00 + c;
  }
  uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) {
      ++i;
      return 0xDC00 + c;
    }
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  i += len;
  return cp;
}

bool is_space(uint32_t cp) {
  return cp == ' ' || (cp >= 9 && cp <= 13) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}
bool is_digit(uint32_t cp) {
  return (cp >= '0' && cp <= '9') || cp == 0xB2 || cp == 0xB3 || cp == 0xB9 || (cp >= 0xBC && cp <= 0xBE) ||
         (cp >= 0x660 && cp <= 0x669) || (cp >= 0xFF10 && cp <= 0xFF19);
}
bool is_letter(uint32_t cp) {
  if (cp < 0x80) return (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp >= 0xDC00 && cp <= 0xDCFF) return false;  // an invalid byte
  if (cp >= 0xA0 && cp <= 0xBF) return cp == 0xAA || cp == 0xB5 || cp == 0xBA;
  if (cp == 0xD7 || cp == 0xF7) return false;
  if ((cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF00 && cp <= 0xFF0F)) return false;
  return !is_space(cp) && !is_digit(cp);
}

// GPT-2 pre-tokenization: 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
std::vector<std::string_view> pre_tokenize(std::string_view s) {
  std::vector<size_t> at;  // byte offset of each code point, plus the end
  std::vector<uint32_t> cps;
  for (size_t i = 0; i < s.size();) {
    at.push_back(i);
    cps.push_back(next_code_point(s, i));
  }
  at.push_back(s.size());
  const size_t n = cps.size();
  enum Class { Letter, Digit, Space, Other };
  auto cls = [&](size_t k) { return is_letter(cps[k]) ? Letter : is_digit(cps[k]) ? Digit : is_space(cps[k]) ? Space : Other; };
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    if (cps[i] == '\'' && i + 1 < n) {
      const uint32_t a = cps[i + 1], b = i + 2 < n ? cps[i + 2] : 0;
      if (a == 's' || a == 't' || a == 'm' || a == 'd') j = i + 2;
      else if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) j = i + 3;
    }
    if (j == i) {
      size_t k = i;
      if (cps[k] == ' ' && k + 1 < n && cls(k + 1) != Space) ++k;  // the optional leading space
      const Class c = cls(k);
      if (c != Space) {
        j = k + 1;
        while (j < n && cls(j) == c) ++j;
      } else {
        size_t end = k;
        while (end < n && cls(end) == Space) ++end;
        // \s+(?!\S): a run followed by text leaves its last space to the next piece.
        j = (end < n && end - i >= 2) ? end - 1 : end;
      }
    }
    out.push_back(s.substr(at[i], at[j] - at[i]));
    i = j;
  }
  return out;
}

[[noreturn]] void bad_key(const std::string& path, const std::string& key, const std::string& what) {
  fail(ErrorCode::BadInput, path + ": key '" + key + "': " + what);
}

}  // namespace

std::string BpeTokenizer::byte_to_unicode(uint8_t byte) {
  std::string out;
  append_utf8(out, byte_code_points()[byte]);
  return out;
}

BpeTokenizer BpeTokenizer::load(const std::string& path) {
  return parse(read_text_file(path, "cannot open the tokenizer file"), path);
}

BpeTokenizer BpeTokenizer::parse(std::string_view text, const std::string& path) {
  json doc;
  try {
    check_json_nesting(text, path);
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    fail(ErrorCode::BadInput, path + ": JSON syntax error at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const json::out_of_range& e) {  // a number beyond double's range (1e400)
    fail(ErrorCode::BadInput, path + ": JSON number out of range: " + e.what());
  }
  if (!doc.is_object()) fail(ErrorCode::BadInput, path + ": expected a JSON object at the top level");
  BpeTokenizer t;
  t.path_ = path;

  // The byte-level alphabet, reversed: code point -> byte.
  std::unordered_map<uint32_t, uint8_t> unicode_byte;
  for (uint32_t b = 0; b < 256; ++b) unicode_byte[byte_code_points()[b]] = uint8_t(b);
  auto raw = [&](const std::string& key, const std::string& where) {
    std::string bytes;
    for (size_t i = 0; i < key.size();) {
      const uint32_t cp = next_code_point(key, i);
      const auto it = unicode_byte.find(cp);
      if (it == unicode_byte.end())
        bad_key(path, where, "'" + key + "' has a character outside the GPT-2 byte-level alphabet");
      bytes += char(it->second);
    }
    if (bytes.empty()) bad_key(path, where, "an empty token");
    return bytes;
  };

  if (!doc.contains("model")) bad_key(path, "model", "missing");
  const json& model = doc["model"];
  if (!model.is_object()) bad_key(path, "model", "expected an object");
  if (!model.contains("type") || !model["type"].is_string()) bad_key(path, "model.type", "missing (expected \"BPE\")");
  if (model["type"] != "BPE")
    bad_key(path, "model.type", "'" + model["type"].get<std::string>() + "' is not supported (only byte-level BPE)");
  for (const char* k : {"continuing_subword_prefix", "end_of_word_suffix"})
    if (model.contains(k) && !model[k].is_null() && !(model[k].is_string() && model[k].get<std::string>().empty()))
      bad_key(path, std::string("model.") + k, "is not supported by the byte-level loader");

  if (!model.contains("vocab") || !model["vocab"].is_object())
    bad_key(path, "model.vocab", "expected an object mapping tokens to ids");
  const uint64_t kMaxId = uint64_t(1) << 24;
  std::vector<bool> seen;
  for (const auto& [key, value] : model["vocab"].items()) {
    const std::string where = "model.vocab." + key;
    if (!value.is_number_unsigned() || value.get<uint64_t>() >= kMaxId)
      bad_key(path, where, "expected an id in [0, " + std::to_string(kMaxId) + ")");
    const Token id = Token(value.get<uint64_t>());
    if (id >= t.id_bytes_.size()) {
      t.id_bytes_.resize(id + 1);
      seen.resize(id + 1);
    }
    if (seen[id]) bad_key(path, where, "id " + std::to_string(id) + " is given to two tokens");
    seen[id] = true;
    const std::string bytes = raw(key, where);
    t.id_bytes_[id] = bytes;
    t.vocab_[bytes] = id;
  }

  if (!model.contains("merges") || !model["merges"].is_array()) bad_key(path, "model.merges", "expected an array");
  const json& merges = model["merges"];
  for (size_t i = 0; i < merges.size(); ++i) {
    const std::string where = "model.merges[" + std::to_string(i) + "]";
    std::string a, b;
    if (merges[i].is_string()) {
      const std::string m = merges[i].get<std::string>();
      const size_t sp = m.find(' ');
      if (sp == std::string::npos || m.find(' ', sp + 1) != std::string::npos)
        bad_key(path, where, "expected \"left right\" (two tokens separated by one space)");
      a = m.substr(0, sp);
      b = m.substr(sp + 1);
    } else if (merges[i].is_array() && merges[i].size() == 2 && merges[i][0].is_string() && merges[i][1].is_string()) {
      a = merges[i][0].get<std::string>();
      b = merges[i][1].get<std::string>();
    } else {
      bad_key(path, where, "expected \"left right\" or [\"left\", \"right\"]");
    }
    const std::string ra = raw(a, where), rb = raw(b, where);
    if (!t.vocab_.count(ra)) bad_key(path, where, "part '" + a + "' is not in model.vocab");
    if (!t.vocab_.count(rb)) bad_key(path, where, "part '" + b + "' is not in model.vocab");
    if (!t.vocab_.count(ra + rb)) bad_key(path, where, "merged token '" + a + b + "' is not in model.vocab");
    t.ranks_.emplace(std::make_pair(ra, rb), uint32_t(i));  // the first rank of a repeated merge wins
  }

  if (model.contains("unk_token") && !model["unk_token"].is_null()) {
    if (!model["unk_token"].is_string()) bad_key(path, "model.unk_token", "expected a string or null");
    const std::string unk = model["unk_token"].get<std::string>();
    for (const auto& [key, value] : model["vocab"].items())
      if (key == unk) t.unk_ = Token(value.get<uint64_t>());
  }

  // Pre-tokenizer: ByteLevel, alone or inside a Sequence.
  if (!doc.contains("pre_tokenizer") || !doc["pre_tokenizer"].is_object())
    bad_key(path, "pre_tokenizer", "byte-level BPE needs a ByteLevel pre-tokenizer object");
  const json* byte_level = nullptr;
  const json& pre = doc["pre_tokenizer"];
  std::string pre_key = "pre_tokenizer";
  if (pre.value("type", "") == "ByteLevel") {
    byte_level = &pre;
  } else if (pre.value("type", "") == "Sequence" && pre.contains("pretokenizers") && pre["pretokenizers"].is_array()) {
    for (size_t i = 0; i < pre["pretokenizers"].size(); ++i)
      if (pre["pretokenizers"][i].is_object() && pre["pretokenizers"][i].value("type", "") == "ByteLevel") {
        byte_level = &pre["pretokenizers"][i];
        pre_key = "pre_tokenizer.pretokenizers[" + std::to_string(i) + "]";
      }
  }
  if (!byte_level) bad_key(path, "pre_tokenizer.type", "expected \"ByteLevel\" (or a Sequence holding one)");
  for (const auto& [k, member] : {std::pair<const char*, bool*>{"add_prefix_space", &t.add_prefix_space_}, {"use_regex", &t.use_regex_}})
    if (byte_level->contains(k)) {
      if (!(*byte_level)[k].is_boolean()) bad_key(path, pre_key + "." + k, "expected true or false");
      *member = (*byte_level)[k].get<bool>();
    }

  if (doc.contains("added_tokens") && !doc["added_tokens"].is_null()) {
    const json& added = doc["added_tokens"];
    if (!added.is_array()) bad_key(path, "added_tokens", "expected an array");
    for (size_t i = 0; i < added.size(); ++i) {
      const std::string where = "added_tokens[" + std::to_string(i) + "]";
      if (!added[i].is_object()) bad_key(path, where, "expected an object");
      if (!added[i].contains("id") || !added[i]["id"].is_number_unsigned() || added[i]["id"].get<uint64_t>() >= kMaxId)
        bad_key(path, where + ".id", "expected an id in [0, " + std::to_string(kMaxId) + ")");
      if (!added[i].contains("content") || !added[i]["content"].is_string() || added[i]["content"].get<std::string>().empty())
        bad_key(path, where + ".content", "expected a non-empty string");
      const Token id = Token(added[i]["id"].get<uint64_t>());
      const std::string content = added[i]["content"].get<std::string>();
      if (id >= t.id_bytes_.size()) {
        t.id_bytes_.resize(id + 1);
        seen.resize(id + 1);
      }
      if (seen[id] && t.id_bytes_[id] != content)
        bad_key(path, where + ".id", "id " + std::to_string(id) + " already belongs to another token");
      seen[id] = true;
      t.id_bytes_[id] = content;
      t.added_.push_back({content, id});
    }
  }
  std::stable_sort(t.added_.begin(), t.added_.end(), [](const Added& a, const Added& b) { return a.content.size() > b.content.size(); });

  t.pad_ = t.vocab_size();
  for (const char* name : {"<pad>", "[PAD]", "<|pad|>", "<|endoftext|>"}) {
    const auto it = std::find_if(t.added_.begin(), t.added_.end(), [&](const Added& a) { return a.content == name; });
    if (it != t.added_.end()) {
      t.pad_ = it->id;
      break;
    }
  }
  return t;
}

void BpeTokenizer::encode_piece(std::string_view bytes, std::vector<Token>& out) const {
  std::vector<std::string> symbols;
  for (char c : bytes) symbols.emplace_back(1, c);
  // Repeatedly merge every occurrence of the best-ranked adjacent pair.
  for (;;) {
    uint32_t best = std::numeric_limits<uint32_t>::max();
    const std::pair<std::string, std::string>* best_pair = nullptr;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      const auto it = ranks_.find({symbols[i], symbols[i + 1]});
      if (it != ranks_.end() && it->second < best) {
        best = it->second;
        best_pair = &it->first;
      }
    }
    if (!best_pair) break;
    std::vector<std::string> merged;
    for (size_t i = 0; i < symbols.size(); ++i) {
      if (i + 1 < symbols.size() && symbols[i] == best_pair->first && symbols[i + 1] == best_pair->second) {
        merged.push_back(symbols[i] + symbols[i + 1]);
        ++i;
      } else {
        merged.push_back(symbols[i]);
      }
    }
    symbols = std::move(merged);
  }
  for (const std::string& s : symbols) {
    const auto it = vocab_.find(s);
    if (it != vocab_.end()) {
      out.push_back(it->second);
    } else if (unk_ != kNone) {
      out.push_back(unk_);
    } else {
      std::string shown;
      for (unsigned char c : s) shown += byte_to_unicode(c);
      fail(ErrorCode::BadInput, path_ + ": cannot encode '" + shown + "': not in model.vocab and no model.unk_token");
    }
  }
}

void BpeTokenizer::encode_plain(std::string_view text, std::vector<Token>& out) const {
  if (text.empty()) return;
  std::string prefixed;
  if (add_prefix_space_ && text.front() != ' ') {
    prefixed.reserve(text.size() + 1);
    prefixed += ' ';
    prefixed.append(text);
    text = prefixed;
  }
  if (!use_regex_) return encode_piece(text, out);
  for (std::string_view piece : pre_tokenize(text)) encode_piece(piece, out);
}

std::vector<Token> BpeTokenizer::encode(std::string_view text) const {
  std::vector<Token> out;
  size_t plain = 0;
  for (size_t i = 0; i < text.size();) {
    const Added* hit = nullptr;
    for (const Added& a : added_)  // longest first
      if (text.compare(i, a.content.size(), a.content) == 0) {
        hit = &a;
        break;
      }
    if (!hit) {
      ++i;
      continue;
    }
    encode_plain(text.substr(plain, i - plain), out);
    out.push_back(hit->id);
    i += hit->content.size();
    plain = i;
  }
  encode_plain(text.substr(plain), out);
  return out;
}

std::string BpeTokenizer::decode(std::span<const Token> tokens) const {
  std::string out;
  for (Token t : tokens)
    if (t < id_bytes_.size()) out += id_bytes_[t];
  return out;
}

std::string BpeTokenizer::token_bytes(Token token) const {
  return token < id_bytes_.size() ? id_bytes_[token] : std::string();
}

}  // namespace weft::token_vm
