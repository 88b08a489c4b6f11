#include "gguf_vocabulary.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include <weft/error.h>
#include <weft/input_file.h>

#include "added_tokens.h"
#include "byte_level.h"
#include "models/models.h"
#include "pipeline.h"
#include "unicode.h"

namespace weft::tokenizer {
namespace {

// ---- pre-tokenizers -------------------------------------------------------------------------

// The regular expressions llama.cpp splits with, as it runs them: its own adaptations where it
// has them (case-insensitive groups spelled out, Tekken's and GPT-4o's letter classes as "a
// letter but not a-z", which differ from the tokenizer.json originals for non-ASCII letters
// and combining marks), applied one after another, each to every piece the previous left.
const char* const kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S))";
const char* const kLlama3 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kQwen2 =
    R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kTekken =
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kGpt4o =
    R"([^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))*((?=[\p{L}])([^A-Z]))+(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|[^\r\n\p{L}\p{N}]?((?=[\p{L}])([^a-z]))+((?=[\p{L}])([^A-Z]))*(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const char* const kDeepseek3Words =
    R"re([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)re";

struct PreTokenizerRules {
  std::vector<std::string> regexes;
  bool ignore_merges = false, add_bos = false, clean_spaces = true;
};

const std::vector<std::pair<std::vector<const char*>, PreTokenizerRules>>& pre_tokenizer_table() {
  static const std::vector<std::pair<std::vector<const char*>, PreTokenizerRules>> table = {
      {{"default"}, {{R"([\p{P}\$\+<=>\^~\|]+)", kGpt2, R"(\p{N}+)", "[0-9][0-9][0-9]"}}},
      {{"gpt-2", "phi-2", "mpt", "olmo", "exaone4"}, {{kGpt2}}},
      {{"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"}, {{kLlama3}, true, true}},
      {{"dbrx", "smaug-bpe"}, {{kLlama3}}},
      {{"qwen2", "deepseek-r1-qwen"}, {{kQwen2}, false, false, false}},
      {{"stablelm2", "megrez"}, {{kQwen2}}},
      {{"starcoder", "refact", "codeshell", "exaone", "minerva-7b"}, {{R"(\p{N})", kGpt2}}},
      {{"command-r", "smollm"}, {{R"(\p{N})", kGpt2}, false, false, false}},
      {{"tekken"}, {{kTekken}, true, true, false}},
      {{"gpt-4o", "llama4"}, {{kGpt4o}, false, false, false}},
      {{"deepseek-v3"}, {{R"(\p{N}{1,3})", R"([\x{4E00}-\x{9FA5}\x{3040}-\x{309F}\x{30A0}-\x{30FF}]+)", kDeepseek3Words}, false, false, false}},
      // Its CJK class spans U+0800..U+4E00, which holds U+2028, U+2029 and U+3000; llama.cpp runs
      // category-free patterns on text whose non-ASCII whitespace is U+000B, so they never match.
      {{"deepseek-coder"},
       {{"[\\r\\n]", R"(\s?\p{L}+)", R"(\s?\p{P}+)", R"((?:(?!\s)[\x{4E00}-\x{9FA5}\x{0800}-\x{4E00}\x{AC00}-\x{D7FF}])+)", R"(\p{N})"},
        false, false, false}},
  };
  return table;
}

std::string supported_pre_list() {
  std::string known;
  for (const std::string& n : supported_gguf_pre_tokenizers()) known += (known.empty() ? "" : ", ") + n;
  return known;
}

const PreTokenizerRules& pre_tokenizer_rules(const std::string& pre, const std::string& where) {
  const std::string name = pre.empty() ? "default" : pre;  // llama.cpp's fallback for older files
  for (const auto& [names, rules] : pre_tokenizer_table())
    if (std::any_of(names.begin(), names.end(), [&](const char* n) { return name == n; })) return rules;
  fail(ErrorCode::BadInput, where + ": tokenizer.ggml.pre '" + pre + "' is not supported (Weft implements: " + supported_pre_list() + ")");
}

// ---- token attributes -----------------------------------------------------------------------

using Type = GgufTokenType;

// llama.cpp also decides some token types by their text (end-of-generation and fill-in-the-
// middle tokens count as control tokens, a few chat-format tokens as user-defined), and a
// token's type decides whether the text is cut at it. These are those rules.
void apply_text_rules(const GgufVocabulary& v, std::vector<Type>& types, std::unordered_map<std::string, TokenId>& ids) {
  static const std::unordered_set<std::string> control = {
      "<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>", "<|end_of_text|>", "<EOT>", "_<EOT>",
      "[EOT]", "[EOS]", "<\xEF\xBD\x9C" "end\xE2\x96\x81of\xE2\x96\x81sentence\xEF\xBD\x9C>", "<end_of_utterance>",
      "<|eom_id|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "</s>", "<eos>", "<turn|>", "<|tool_response>",
      "[e~[", "<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<PRE>", "\xE2\x96\x81<PRE>", "<|code_prefix|>",
      "<|prefix|>", "<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<SUF>", "\xE2\x96\x81<SUF>", "<|code_suffix|>",
      "<|suffix|>", "<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<MID>", "\xE2\x96\x81<MID>", "<|code_middle|>",
      "<|middle|>", "<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]", "<|fim_repo|>", "<|repo_name|>",
      "<fim-repo>", "<REPO>", "<reponame>", "<|file_sep|>",
      "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "begin\xEF\xBD\x9C>", "<\xEF\xBD\x9C" "fim\xE2\x96\x81hole\xEF\xBD\x9C>",
      "<\xEF\xBD\x9C" "fim\xE2\x96\x81" "end\xEF\xBD\x9C>"};
  for (TokenId id = 0; id < types.size(); ++id)
    if (control.count(v.tokens[id]) && types[id] != Type::Control) types[id] = Type::Control;
  for (const char* t : {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"})
    if (const auto it = ids.find(t); it != ids.end()) types[it->second] = Type::UserDefined;
  const auto has = [&](const char* t) { return ids.count(t) > 0; };
  if (has("<|end|>") && ((has("<|return|>") && has("<|call|>")) || (has("<|calls|>") && has("<|flush|>"))))
    types[ids.at("<|end|>")] = Type::UserDefined;
  if (has("<|tool_response>") && has("</s>")) types[ids.at("</s>")] = Type::Normal;
}

bool is_special_type(Type t) { return t == Type::Control || t == Type::UserDefined || t == Type::Unknown; }

// The tokens cut out of the text before the model sees it, with llama.cpp's per-model strip
// rules (Phi-3: whitespace after most special tokens is dropped).
std::vector<AddedToken> special_tokens(const GgufVocabulary& v, const std::vector<Type>& types) {
  std::string name = v.general_name;
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  const bool phi3 = name.find("phi-3") != std::string::npos || name.find("phi3") != std::string::npos;
  std::vector<AddedToken> out;
  for (TokenId id = 0; id < types.size(); ++id) {
    if (!is_special_type(types[id])) continue;
    const std::string& text = v.tokens[id];
    AddedToken t;
    t.content = text;
    t.id = id;
    t.special = types[id] != Type::UserDefined;
    t.rstrip = phi3 && text != "<unk>" && text != "<s>" && text != "<|endoftext|>";
    out.push_back(std::move(t));
  }
  return out;
}

// ---- decode ---------------------------------------------------------------------------------

// llama.cpp's clean_up_tokenization_spaces for BPE vocabularies: " ?", " !", " .", " ," lose the
// space, " ' " becomes "'", and " 's", " 'm", " 're", " 've" lose the space.
std::string clean_spaces(const std::string& in) {
  std::string a;
  for (size_t i = 0; i < in.size(); ++i) {
    const char x = in[i];
    if (i > 0 && in[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) a.pop_back();
    a += x;
  }
  std::string b;
  for (size_t i = 0; i < a.size(); ++i) {
    const char x = a[i];
    if (i > 0 && x == '\'' && i + 1 < a.size() && a[i - 1] == ' ' && a[i + 1] == ' ') {
      b.pop_back();
      b += x;
      ++i;  // the space after it
      continue;
    }
    b += x;
  }
  std::string c;
  for (size_t i = 0; i < b.size(); ++i) {
    const char x = b[i];
    if (i > 0 && b[i - 1] == ' ' && x == '\'' && i + 1 < b.size()) {
      const char x1 = b[i + 1];
      const bool two = i + 2 < b.size();
      if (x1 == 's' || x1 == 'm' || (two && ((x1 == 'r' && b[i + 2] == 'e') || (x1 == 'v' && b[i + 2] == 'e')))) c.pop_back();
    }
    c += x;
  }
  return c;
}

// llama.cpp's detokenize: control, user-defined and unknown tokens as written; other tokens
// byte-level decoded (BPE) or with U+2581 as a space and byte tokens as their byte
// (SentencePiece); with a space prefix the first token of the ids (even one left out, a control
// token) loses one leading space; then, where the pre-tokenizer asks for it, the spaces cleaned.
class LlamaCppDecoder final : public Decoder {
 public:
  LlamaCppDecoder(bool byte_level, bool remove_first_space, bool clean, std::unordered_set<std::string> verbatim)
      : byte_level_(byte_level), remove_first_space_(remove_first_space), clean_(clean), verbatim_(std::move(verbatim)) {}
  void piece(std::string& token) const override {
    if (verbatim_.count(token)) return;
    token = byte_level_ ? byte_level_bytes(token) : spm_text(token);
  }
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string text;
    for (size_t i = 0; i < tokens.size(); ++i) {
      std::string t = tokens[i];
      piece(t);
      if (i == 0 && remove_first_space_ && t.starts_with(' ')) t.erase(0, 1);
      text += t;
    }
    tokens.assign(1, clean_ ? clean_spaces(text) : std::move(text));
  }

 private:
  // A character outside the byte-level alphabet is spelled out as llama.cpp does.
  static std::string byte_level_bytes(const std::string& token) {
    std::string out;
    for (size_t at = 0; at < token.size();) {
      const size_t begin = at;
      const char32_t c = unicode::next(token, at);
      if (const auto b = byte_level::char_to_byte(c)) {
        out += char(*b);
        continue;
      }
      out += "[UNK_BYTE_0x";
      for (size_t k = begin; k < at; ++k) {
        char hex[3];
        std::snprintf(hex, sizeof hex, "%02x", uint8_t(token[k]));
        out += hex;
      }
      out += token + "]";
    }
    return out;
  }
  static std::string spm_text(const std::string& token) {
    if (token.size() == 6 && token.starts_with("<0x") && token.back() == '>' && std::isxdigit(uint8_t(token[3])) &&
        std::isxdigit(uint8_t(token[4])))
      return std::string(1, char(std::stoi(token.substr(3, 2), nullptr, 16)));
    return replace_all(token, "\xE2\x96\x81", " ");
  }

  bool byte_level_, remove_first_space_, clean_;
  std::unordered_set<std::string> verbatim_;
};

class BosEos final : public PostProcessor {
 public:
  BosEos(std::optional<TokenId> bos, std::optional<TokenId> eos) : bos_(bos), eos_(eos) {}
  std::vector<TokenId> process(std::vector<TokenId> ids) const override {
    if (bos_) ids.insert(ids.begin(), *bos_);
    if (eos_) ids.push_back(*eos_);
    return ids;
  }

 private:
  std::optional<TokenId> bos_, eos_;
};

// ---- the two vocabulary kinds ---------------------------------------------------------------

Json bpe_model_json(const GgufVocabulary& v) {
  Json vocab = Json::object();
  for (TokenId id = 0; id < v.tokens.size(); ++id) vocab[v.tokens[id]] = id;
  Json merges = Json::array();
  for (size_t i = 0; i < v.merges.size(); ++i) {
    const std::string& m = v.merges[i];
    const size_t space = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
    if (space == std::string::npos)
      fail(ErrorCode::BadInput, v.source + ": tokenizer.ggml.merges[" + std::to_string(i) + "] = '" + m + "' has no space between its two tokens");
    merges.push_back(Json::array({m.substr(0, space), m.substr(space + 1)}));
  }
  return Json{{"type", "BPE"}, {"vocab", std::move(vocab)}, {"merges", std::move(merges)}};
}

void build_bpe(const GgufVocabulary& v, const PreTokenizerRules& rules, TokenizerParts& parts) {
  const JsonPath at{v.source, "tokenizer.ggml"};
  Json splits = Json::array();
  for (const std::string& re : rules.regexes)
    splits.push_back({{"type", "Split"}, {"pattern", {{"Regex", re}}}, {"behavior", "Isolated"}, {"invert", false}});
  splits.push_back({{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}});
  parts.pre_tokenizer = make_pre_tokenizer({{"type", "Sequence"}, {"pretokenizers", std::move(splits)}}, at / "pre");
  Json model = bpe_model_json(v);
  model["ignore_merges"] = rules.ignore_merges;
  parts.model = make_model(model, at / "merges");
}

void build_spm(const GgufVocabulary& v, bool add_space_prefix, TokenizerParts& parts) {
  const JsonPath at{v.source, "tokenizer.ggml"};
  const std::string space = "\xE2\x96\x81";  // U+2581, SentencePiece's space
  Json normalizers = Json::array({{{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", space}}});
  if (add_space_prefix) normalizers.push_back({{"type", "Prepend"}, {"prepend", space}});
  parts.normalizer = make_normalizer({{"type", "Sequence"}, {"normalizers", std::move(normalizers)}}, at);
  std::vector<float> scores = v.scores;
  scores.resize(v.tokens.size(), 0.0f);
  parts.model = make_llama_spm(v.tokens, std::move(scores), v.source);
}

// llama.cpp's default special ids per vocabulary kind, then the file's own; a default outside
// the vocabulary is dropped, an explicit one is an error.
std::optional<TokenId> special_id(std::optional<uint32_t> given, std::optional<TokenId> fallback, size_t n,
                                  const GgufVocabulary& v, const char* key) {
  if (given) {
    if (*given >= n) fail(ErrorCode::BadInput, v.source + ": " + key + " = " + std::to_string(*given) + " is not a token id (vocabulary of " + std::to_string(n) + ")");
    return *given;
  }
  return fallback && *fallback < n ? fallback : std::nullopt;
}

void check_sizes(const GgufVocabulary& v) {
  if (v.tokens.empty()) fail(ErrorCode::BadInput, v.source + ": tokenizer.ggml.tokens is missing or empty");
  if (!v.scores.empty() && v.scores.size() < v.tokens.size())
    fail(ErrorCode::BadInput, v.source + ": tokenizer.ggml.scores has " + std::to_string(v.scores.size()) + " entries for " + std::to_string(v.tokens.size()) + " tokens");
  if (!v.token_types.empty() && v.token_types.size() < v.tokens.size())
    fail(ErrorCode::BadInput, v.source + ": tokenizer.ggml.token_type has " + std::to_string(v.token_types.size()) + " entries for " + std::to_string(v.tokens.size()) + " tokens");
}

}  // namespace

std::vector<std::string> supported_gguf_pre_tokenizers() {
  std::vector<std::string> names;
  for (const auto& [list, rules] : pre_tokenizer_table())
    for (const char* n : list) names.emplace_back(n);
  return names;
}

Tokenizer tokenizer_from_gguf(const GgufVocabulary& given) {
  check_sizes(given);
  GgufVocabulary v = given;
  const size_t n = v.tokens.size();
  std::unordered_map<std::string, TokenId> ids;
  for (TokenId id = 0; id < n; ++id) {
    if (v.tokens[id].empty()) v.tokens[id] = "[EMPTY_" + std::to_string(id) + "]";  // llama.cpp's name for it
    if (const auto [it, fresh] = ids.emplace(v.tokens[id], id); !fresh)
      fail(ErrorCode::BadInput, v.source + ": tokenizer.ggml.tokens lists '" + v.tokens[id] + "' twice (ids " + std::to_string(it->second) + " and " + std::to_string(id) + ")");
  }
  std::vector<Type> types(n, Type::Normal);
  for (size_t id = 0; id < v.token_types.size() && id < n; ++id) {
    const int32_t t = v.token_types[id];
    types[id] = t >= 1 && t <= 6 ? Type(t) : Type::Undefined;
  }
  apply_text_rules(v, types, ids);

  TokenizerParts parts;
  parts.name = v.source;
  parts.fingerprint = "gguf:" + v.model + ":" + v.pre + ":" + std::to_string(n);
  bool add_bos = false;
  std::optional<TokenId> bos, eos;
  bool clean = false;
  bool add_space_prefix = v.add_space_prefix.value_or(v.model == "llama");
  if (v.model == "gpt2") {
    const PreTokenizerRules& rules = pre_tokenizer_rules(v.pre, v.source);
    build_bpe(v, rules, parts);
    add_bos = rules.add_bos;
    clean = rules.clean_spaces;
    bos = special_id(v.bos, 11, n, v, "tokenizer.ggml.bos_token_id");
    eos = special_id(v.eos, 11, n, v, "tokenizer.ggml.eos_token_id");
  } else if (v.model == "llama") {
    build_spm(v, add_space_prefix, parts);
    add_bos = true;
    bos = special_id(v.bos, 1, n, v, "tokenizer.ggml.bos_token_id");
    eos = special_id(v.eos, 2, n, v, "tokenizer.ggml.eos_token_id");
  } else {
    fail(ErrorCode::BadInput, v.source + ": tokenizer.ggml.model '" + v.model +
                                  "' is not supported (Weft implements 'gpt2', byte-level BPE, and 'llama', SentencePiece)");
  }
  std::unordered_set<std::string> verbatim;
  for (TokenId id = 0; id < n; ++id)
    if (is_special_type(types[id])) verbatim.insert(v.tokens[id]);
  parts.decoder = std::make_unique<LlamaCppDecoder>(v.model == "gpt2", add_space_prefix, clean, std::move(verbatim));
  parts.skipped_tokens_keep_place = true;
  add_bos = v.add_bos.value_or(add_bos);
  const bool add_eos = v.add_eos.value_or(false);
  if (add_bos && !bos) fail(ErrorCode::BadInput, v.source + ": tokenizer.ggml.add_bos_token is true but there is no BOS token id");
  if (add_eos && !eos) fail(ErrorCode::BadInput, v.source + ": tokenizer.ggml.add_eos_token is true but there is no EOS token id");
  parts.post_processor = std::make_unique<BosEos>(add_bos ? bos : std::nullopt, add_eos ? eos : std::nullopt);
  parts.added_tokens = special_tokens(v, types);
  parts.matching = TokenizerParts::AddedTokenMatching::LongestFirst;
  return Tokenizer::from_parts(std::move(parts));
}

namespace {

bool mentions_type(const Json& j, const std::string& type) {
  if (j.is_object()) {
    if (j.contains("type") && j["type"] == type) return true;
    for (const auto& item : j.items())
      if (mentions_type(item.value(), type)) return true;
  } else if (j.is_array()) {
    for (const Json& x : j)
      if (mentions_type(x, type)) return true;
  }
  return false;
}

const Json* find_type(const Json& j, const std::string& type) {
  if (j.is_object() && j.contains("type") && j["type"] == type) return &j;
  if (j.is_object() || j.is_array())
    for (const auto& item : j.items())
      if (const Json* found = find_type(item.value(), type)) return found;
  return nullptr;
}

// The BOS and EOS a TemplateProcessing post-processor puts around a single sequence.
void template_bos_eos(const Json& doc, const Tokenizer& tok, GgufVocabulary& v) {
  if (!doc.contains("post_processor")) return;
  const Json* t = find_type(doc["post_processor"], "TemplateProcessing");
  if (!t || !t->contains("single") || !(*t)["single"].is_array() || (*t)["single"].empty()) return;
  const Json& single = (*t)["single"];
  const auto special = [&](const Json& item) -> std::optional<uint32_t> {
    if (!item.is_object() || !item.contains("SpecialToken")) return std::nullopt;
    return tok.token_to_id(item["SpecialToken"].value("id", std::string()));
  };
  if (const auto b = special(single.front())) v.bos = b;
  if (single.size() > 1)
    if (const auto e = special(single.back())) v.eos = e;
}

std::string merge_string(const Json& m, const std::string& path) {
  if (m.is_string()) return m.get<std::string>();
  if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
    if (m[0].get<std::string>().find(' ') != std::string::npos || m[1].get<std::string>().find(' ') != std::string::npos)
      fail(ErrorCode::BadInput, path + ": a merge of tokens with spaces cannot be written as a GGUF merge");
    return m[0].get<std::string>() + " " + m[1].get<std::string>();
  }
  fail(ErrorCode::BadInput, path + ": expected a merge (\"a b\" or [\"a\", \"b\"])");
}

}  // namespace

GgufVocabulary gguf_vocabulary_from_tokenizer_file(const std::string& path, const std::string& pre) {
  return gguf_vocabulary_from_tokenizer_json(read_text_file(path, "cannot open the tokenizer file"), path, pre);
}

GgufVocabulary gguf_vocabulary_from_tokenizer_json(std::string_view json, const std::string& path, const std::string& pre) {
  const Tokenizer tok = Tokenizer::from_json(json, path);  // refuses what the pipeline cannot run
  const Json doc = Json::parse(json);
  const Json& model = doc["model"];
  if (!model.is_object() || model.value("type", std::string("BPE")) != "BPE")
    fail(ErrorCode::BadInput, path + ": model.type must be BPE to be written as a GGUF vocabulary (llama.cpp's 'gpt2' or 'llama')");
  const bool byte_level = mentions_type(doc.value("pre_tokenizer", Json()), "ByteLevel") || mentions_type(doc.value("decoder", Json()), "ByteLevel");
  const bool sentencepiece = !byte_level && model.value("byte_fallback", false);
  if (!byte_level && !sentencepiece)
    fail(ErrorCode::BadInput, path + ": neither byte-level BPE nor SentencePiece-style BPE with byte fallback; no GGUF vocabulary kind fits it");

  GgufVocabulary v;
  v.source = path;
  std::unordered_map<TokenId, bool> added;  // id -> special
  for (const Json& a : doc.value("added_tokens", Json::array()))
    if (const auto id = tok.token_to_id(a.value("content", std::string()))) added[*id] = a.value("special", false);
  const std::optional<std::string> unk = model.contains("unk_token") && model["unk_token"].is_string()
                                             ? std::optional<std::string>(model["unk_token"].get<std::string>()) : std::nullopt;
  for (TokenId id = 0; id < tok.vocab_size(); ++id) {
    const std::optional<std::string> text = tok.id_to_token(id);
    v.tokens.push_back(text ? *text : "[PAD" + std::to_string(id) + "]");
    Type type = Type::Normal;
    if (const auto it = added.find(id); it != added.end()) type = it->second ? Type::Control : Type::UserDefined;
    else if (!text) type = Type::Unused;
    else if (sentencepiece && unk && *text == *unk) type = Type::Unknown;
    else if (sentencepiece && text->size() == 6 && text->starts_with("<0x") && text->back() == '>') type = Type::Byte;
    v.token_types.push_back(int32_t(type));
    if (sentencepiece) v.scores.push_back(type == Type::Normal ? -float(id) : 0.0f);
  }
  template_bos_eos(doc, tok, v);
  v.add_bos = v.bos.has_value();
  v.add_eos = v.eos.has_value() && v.eos != v.bos;
  if (byte_level) {
    if (pre.empty())
      fail(ErrorCode::BadInput, path + ": a byte-level BPE vocabulary needs its tokenizer.ggml.pre name (--pre); Weft implements: " +
                                    supported_pre_list());
    pre_tokenizer_rules(pre, path);
    v.model = "gpt2";
    v.pre = pre;
    const Json& merges = model["merges"];
    for (size_t i = 0; i < merges.size(); ++i) v.merges.push_back(merge_string(merges[i], path + ": model.merges[" + std::to_string(i) + "]"));
  } else {
    v.model = "llama";
    v.add_space_prefix = mentions_type(doc.value("normalizer", Json()), "Prepend") || mentions_type(doc.value("pre_tokenizer", Json()), "Metaspace");
  }
  return v;
}

}  // namespace weft::tokenizer
