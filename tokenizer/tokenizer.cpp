#include "tokenizer.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <cstdio>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include <weft/error.h>
#include <weft/input_file.h>

#include "added_tokens.h"
#include "pipeline.h"
#include "unicode.h"

namespace weft::tokenizer {

struct Tokenizer::Impl {
  std::string name, fingerprint;
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<Model> model;
  std::unique_ptr<PostProcessor> post_processor;
  std::unique_ptr<Decoder> decoder;
  std::vector<AddedToken> added;
  std::unordered_map<TokenId, size_t> added_by_id;
  std::unordered_map<std::string, TokenId> added_by_content;
  std::unordered_set<std::string> special_contents;
  std::vector<std::string> added_decoded;   // per added token: its content as the decoder sees it
  AddedTokenMatcher raw_matcher, normalized_matcher;
  LongestFirstSplitter longest_first;  // set instead of the matchers for llama.cpp's order
  bool skipped_tokens_keep_place = false;
  uint32_t vocab_size = 0;

  void parse(const Json& doc);
  void parse_added_tokens(const Json& list, const JsonPath& at);
  void set_added_tokens(const std::vector<AddedToken>& tokens);
  void finish();  // vocab_size once the model and the added tokens are known
  std::vector<TokenId> encode(std::string_view text, bool add_special_tokens) const;
  std::optional<std::string> token_string(TokenId id) const;
};

namespace {

std::string fnv1a_hex(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : bytes) h = (h ^ uint8_t(c)) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

AddedToken added_token(const Json& j, const JsonPath& at) {
  only_members(j, {"id", "content", "single_word", "lstrip", "rstrip", "normalized", "special"}, at);
  AddedToken t;
  const uint64_t id = uint_member(j, "id", at);
  if (id >= (1u << 31)) fail_at(at / "id", "expected an id below 2^31");
  t.id = TokenId(id);
  t.content = string_member(j, "content", at);
  t.single_word = bool_member(j, "single_word", at, false);
  t.lstrip = bool_member(j, "lstrip", at, false);
  t.rstrip = bool_member(j, "rstrip", at, false);
  t.special = bool_member(j, "special", at, false);
  t.normalized = bool_member(j, "normalized", at, !t.special);
  return t;
}

}  // namespace

void Tokenizer::Impl::parse_added_tokens(const Json& list, const JsonPath& at) {
  if (list.is_null()) return;
  if (!list.is_array()) fail_at(at, "expected an array");
  // Hugging Face does not take the ids written here: each token gets the id its content has
  // (an earlier added token, then the model's vocabulary), else the next id after the model's
  // vocabulary. Weft gives the same ids, since those are the ones the model was trained on.
  std::vector<AddedToken> tokens;
  std::unordered_map<std::string, TokenId> assigned;
  TokenId next_id = TokenId(model->vocab_size());
  for (size_t i = 0; i < list.size(); ++i) {
    AddedToken t = added_token(list[i], at[i]);
    if (t.content.empty()) continue;
    if (const auto it = assigned.find(t.content); it != assigned.end()) t.id = it->second;
    else if (const auto id = model->token_to_id(t.content)) t.id = *id;
    else t.id = next_id++;
    assigned[t.content] = t.id;
    tokens.push_back(std::move(t));
  }
  set_added_tokens(tokens);
}

void Tokenizer::Impl::set_added_tokens(const std::vector<AddedToken>& tokens) {
  for (const AddedToken& t : tokens) {
    if (t.content.empty()) continue;  // Hugging Face ignores empty added tokens
    if (const auto it = added_by_id.find(t.id); it != added_by_id.end()) added[it->second] = t;
    else added_by_id.emplace(t.id, added.size()), added.push_back(t);
    added_by_content[t.content] = t.id;
    if (t.special) special_contents.insert(t.content);
  }
  std::vector<AddedToken> raw, normalized;
  std::vector<std::string> raw_patterns, normalized_patterns;
  for (const AddedToken& t : added) {
    std::string decoded = t.content;
    if (t.normalized) {
      std::string pattern = t.content;
      if (normalizer) normalizer->normalize(pattern);
      decoded = pattern;
      normalized.push_back(t), normalized_patterns.push_back(std::move(pattern));
    } else {
      raw.push_back(t), raw_patterns.push_back(t.content);
    }
    added_decoded.push_back(std::move(decoded));
  }
  raw_matcher = AddedTokenMatcher(raw, raw_patterns);
  normalized_matcher = AddedTokenMatcher(normalized, normalized_patterns);
}

void Tokenizer::Impl::finish() {
  uint32_t top = model->id_limit();
  for (const AddedToken& t : added) top = std::max(top, t.id + 1);
  vocab_size = top;
}

void Tokenizer::Impl::parse(const Json& doc) {
  const JsonPath root{name, ""};
  if (!doc.is_object()) fail_at(root, "expected a JSON object at the top level");
  for (const auto& item : doc.items()) {
    const std::string& key = item.key();
    static const char* known[] = {"version", "truncation", "padding", "added_tokens", "normalizer",
                                  "pre_tokenizer", "post_processor", "decoder", "model"};
    if (std::none_of(std::begin(known), std::end(known), [&](const char* k) { return key == k; }))
      unsupported(root / key, "the member \"" + key + "\"");
  }
  // Both change what encode returns (cut or padded ids); Weft gives the ids of the whole text.
  if (doc.contains("truncation") && !doc["truncation"].is_null()) unsupported(root / "truncation", "truncation");
  if (doc.contains("padding") && !doc["padding"].is_null()) unsupported(root / "padding", "padding");
  normalizer = make_normalizer(doc.value("normalizer", Json()), root / "normalizer");
  pre_tokenizer = make_pre_tokenizer(doc.value("pre_tokenizer", Json()), root / "pre_tokenizer");
  model = make_model(member(doc, "model", root), root / "model");
  post_processor = make_post_processor(doc.value("post_processor", Json()), root / "post_processor");
  decoder = make_decoder(doc.value("decoder", Json()), root / "decoder");
  parse_added_tokens(doc.value("added_tokens", Json()), root / "added_tokens");
  finish();
}

std::vector<TokenId> Tokenizer::Impl::encode(std::string_view text, bool add_special_tokens) const {
  if (const size_t bad = unicode::invalid_utf8_at(text); bad != std::string_view::npos)
    fail(ErrorCode::BadInput, name + ": the text to encode is not valid UTF-8 at byte " + std::to_string(bad));
  std::vector<Split> splits;
  if (!text.empty()) splits.push_back({std::string(text), true, std::nullopt});
  if (!longest_first.empty()) longest_first.split(splits);
  else raw_matcher.split(splits);
  if (normalizer)
    for (Split& s : splits)
      if (!s.added) normalizer->normalize(s.text);
  std::erase_if(splits, [](const Split& s) { return !s.added && s.text.empty(); });
  normalized_matcher.split(splits);
  if (pre_tokenizer) pre_tokenizer->pre_tokenize(splits);
  std::vector<TokenId> ids;
  ids.reserve(text.size() / 3 + 4);
  for (const Split& s : splits) {
    if (s.added) ids.push_back(*s.added);
    else model->tokenize(s.text, ids);
  }
  if (add_special_tokens && post_processor) ids = post_processor->process(std::move(ids));
  return ids;
}

std::optional<std::string> Tokenizer::Impl::token_string(TokenId id) const {
  if (const auto it = added_by_id.find(id); it != added_by_id.end()) return added_decoded[it->second];
  return model->id_to_token(id);
}

Tokenizer::Tokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Tokenizer::~Tokenizer() = default;
Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;

Tokenizer Tokenizer::from_json(std::string_view json, const std::string& name) {
  Json doc;
  try {
    check_json_nesting(json, name);
    doc = Json::parse(json);
  } catch (const Json::parse_error& e) {
    fail(ErrorCode::BadInput, name + ": JSON syntax error at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const Json::out_of_range& e) {
    fail(ErrorCode::BadInput, name + ": JSON number out of range: " + e.what());
  }
  auto impl = std::make_unique<Impl>();
  impl->name = name;
  impl->fingerprint = fnv1a_hex(json);
  impl->parse(doc);
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::from_parts(TokenizerParts parts) {
  if (!parts.model) fail(ErrorCode::BadInput, parts.name + ": a tokenizer needs a model");
  auto impl = std::make_unique<Impl>();
  impl->name = std::move(parts.name);
  impl->fingerprint = std::move(parts.fingerprint);
  impl->normalizer = std::move(parts.normalizer);
  impl->pre_tokenizer = std::move(parts.pre_tokenizer);
  impl->model = std::move(parts.model);
  impl->post_processor = std::move(parts.post_processor);
  impl->decoder = std::move(parts.decoder);
  impl->set_added_tokens(parts.added_tokens);
  impl->skipped_tokens_keep_place = parts.skipped_tokens_keep_place;
  if (parts.matching == TokenizerParts::AddedTokenMatching::LongestFirst) {
    impl->raw_matcher = {}, impl->normalized_matcher = {};
    impl->longest_first = LongestFirstSplitter(impl->added);
  }
  impl->finish();
  return Tokenizer(std::move(impl));
}

Tokenizer Tokenizer::load(const std::string& path) {
  return from_json(read_text_file(path, "cannot open the tokenizer file"), path);
}

std::vector<TokenId> Tokenizer::encode(std::string_view text, bool add_special_tokens) const {
  return impl_->encode(text, add_special_tokens);
}

std::vector<std::vector<TokenId>> Tokenizer::encode_batch(std::span<const std::string> texts, bool add_special_tokens,
                                                          unsigned threads) const {
  std::vector<std::vector<TokenId>> out(texts.size());
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  // More threads than a few per core only cost memory, and a count in the billions (a negative
  // number cast to unsigned) would fail part-way through starting them: the ids are the same.
  threads = threads == 0 ? cores : std::min(threads, 4 * cores);
  threads = unsigned(std::min<size_t>(threads, texts.size()));
  if (threads <= 1) {
    for (size_t i = 0; i < texts.size(); ++i) out[i] = encode(texts[i], add_special_tokens);
    return out;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (size_t i = next++; i < texts.size(); i = next++) {
        try {
          out[i] = encode(texts[i], add_special_tokens);
        } catch (...) {
          std::lock_guard lock(error_mutex);
          if (!error) error = std::current_exception();
        }
      }
    });
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
  return out;
}

std::string Tokenizer::decode(std::span<const TokenId> ids, bool skip_special_tokens) const {
  std::vector<std::string> tokens;
  tokens.reserve(ids.size());
  for (TokenId id : ids) {
    if (skip_special_tokens && is_special(id)) {
      if (impl_->skipped_tokens_keep_place) tokens.emplace_back();
      continue;
    }
    if (auto s = impl_->token_string(id)) tokens.push_back(std::move(*s));
  }
  if (!impl_->decoder) {
    std::string out;
    for (size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
    return out;
  }
  impl_->decoder->decode_chain(tokens);
  std::string out;
  for (const auto& t : tokens) out += t;
  return out;
}

std::string Tokenizer::token_bytes(TokenId id) const {
  auto s = impl_->token_string(id);
  if (!s) return {};
  if (impl_->decoder) impl_->decoder->piece(*s);
  return *s;
}

std::optional<TokenId> Tokenizer::token_to_id(std::string_view token) const {
  if (const auto it = impl_->added_by_content.find(std::string(token)); it != impl_->added_by_content.end()) return it->second;
  return impl_->model->token_to_id(token);
}

std::optional<std::string> Tokenizer::id_to_token(TokenId id) const {
  if (const auto it = impl_->added_by_id.find(id); it != impl_->added_by_id.end()) return impl_->added[it->second].content;
  return impl_->model->id_to_token(id);
}

bool Tokenizer::is_special(TokenId id) const {
  const auto it = impl_->added_by_id.find(id);
  return it != impl_->added_by_id.end() && impl_->added[it->second].special;
}

uint32_t Tokenizer::vocab_size() const { return impl_->vocab_size; }
const std::string& Tokenizer::fingerprint() const { return impl_->fingerprint; }
const std::string& Tokenizer::name() const { return impl_->name; }

}  // namespace weft::tokenizer
