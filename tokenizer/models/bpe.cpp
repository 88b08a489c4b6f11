// The BPE model: a word starts as one symbol per character (or its <0xXX> bytes, or the unknown
// token) and pairs merge by rank, lowest first, leftmost among equals — Hugging Face's order,
// kept with a heap so a word of n characters merges in O(n log n).
#include <array>
#include <atomic>
#include <mutex>
#include <queue>
#include <unordered_map>

#include "../pipeline.h"
#include "../unicode.h"
#include "models.h"

namespace weft::tokenizer {
namespace {

struct MergeResult {
  uint32_t rank;
  TokenId id;
};

uint64_t pair_key(TokenId a, TokenId b) { return (uint64_t(a) << 32) | b; }

class Bpe final : public Model {
 public:
  Bpe(const Json& j, const JsonPath& at);

  void tokenize(std::string_view word, std::vector<TokenId>& ids) const override;
  std::optional<TokenId> token_to_id(std::string_view token) const override {
    const auto it = vocab_.find(std::string(token));
    return it == vocab_.end() ? std::nullopt : std::optional<TokenId>(it->second);
  }
  std::optional<std::string> id_to_token(TokenId id) const override {
    if (id >= id_to_token_.size() || !has_id_[id]) return std::nullopt;
    return id_to_token_[id];
  }
  size_t vocab_size() const override { return vocab_.size(); }
  uint32_t id_limit() const override { return uint32_t(id_to_token_.size()); }

 private:
  struct Symbol {
    TokenId id;
    int32_t prev, next;
    bool alive;
  };
  void initial_symbols(std::string_view word, std::vector<Symbol>& symbols) const;
  void merge(std::vector<Symbol>& symbols) const;
  std::optional<TokenId> char_id(std::string_view ch, bool first, bool last) const;

  std::unordered_map<std::string, TokenId> vocab_;
  std::vector<std::string> id_to_token_;
  std::vector<bool> has_id_;
  std::unordered_map<uint64_t, MergeResult> merges_;
  std::unordered_map<std::string, TokenId> first_char_, next_char_;  // the common symbol lookups
  std::optional<std::string> prefix_, suffix_;
  std::optional<TokenId> unk_;
  bool fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false;
  std::array<std::optional<TokenId>, 256> byte_ids_{};  // <0xXX> tokens for byte fallback

  // Words seen before, per thread (encode runs on several threads in a batch).
  uint64_t serial_;
  static std::atomic<uint64_t> next_serial_;
};

std::atomic<uint64_t> Bpe::next_serial_{1};

std::pair<std::string, std::string> merge_pair(const Json& m, const JsonPath& at) {
  if (m.is_string()) {
    const std::string s = m.get<std::string>();
    const size_t space = s.find(' ');
    if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
      fail_at(at, "a merge must be two tokens separated by one space");
    return {s.substr(0, space), s.substr(space + 1)};
  }
  if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string())
    return {m[0].get<std::string>(), m[1].get<std::string>()};
  fail_at(at, "a merge must be \"a b\" or [\"a\", \"b\"]");
}

Bpe::Bpe(const Json& j, const JsonPath& at) : serial_(next_serial_++) {
  only_members(j, {"dropout", "unk_token", "continuing_subword_prefix", "end_of_word_suffix", "fuse_unk", "byte_fallback",
                   "ignore_merges", "vocab", "merges"},
               at);
  if (j.contains("dropout") && !j["dropout"].is_null() && !(j["dropout"].is_number() && j["dropout"].get<double>() == 0.0))
    unsupported(at / "dropout", "BPE dropout (random merges)");
  const Json& vocab = member(j, "vocab", at);
  if (!vocab.is_object()) fail_at(at / "vocab", "expected an object of token -> id");
  vocab_.reserve(vocab.size());
  for (const auto& [token, id] : vocab.items()) {
    if (!id.is_number_unsigned() || id.get<uint64_t>() >= (1u << 31)) fail_at(at / "vocab" / token, "expected an id below 2^31");
    check_dense_id(id.get<uint64_t>(), vocab.size(), at / "vocab" / token);
    const TokenId v = TokenId(id.get<uint64_t>());
    vocab_.emplace(token, v);
    if (v >= id_to_token_.size()) id_to_token_.resize(v + 1), has_id_.resize(v + 1);
    id_to_token_[v] = token;
    has_id_[v] = true;
  }
  prefix_ = optional_string(j, "continuing_subword_prefix", at);
  suffix_ = optional_string(j, "end_of_word_suffix", at);
  if (prefix_ && prefix_->empty()) prefix_.reset();
  if (suffix_ && suffix_->empty()) suffix_.reset();
  fuse_unk_ = bool_member(j, "fuse_unk", at, false);
  byte_fallback_ = bool_member(j, "byte_fallback", at, false);
  ignore_merges_ = bool_member(j, "ignore_merges", at, false);
  if (const auto unk = optional_string(j, "unk_token", at)) {
    const auto it = vocab_.find(*unk);
    if (it == vocab_.end()) fail_at(at / "unk_token", "the unknown token \"" + *unk + "\" is not in the vocabulary");
    unk_ = it->second;
  }
  const Json& merges = member(j, "merges", at);
  if (!merges.is_array()) fail_at(at / "merges", "expected an array");
  merges_.reserve(merges.size());
  const size_t prefix_len = prefix_ ? prefix_->size() : 0;
  for (size_t i = 0; i < merges.size(); ++i) {
    const auto [a, b] = merge_pair(merges[i], (at / "merges")[i]);
    const auto ia = vocab_.find(a), ib = vocab_.find(b);
    if (ia == vocab_.end() || ib == vocab_.end()) fail_at((at / "merges")[i], "a merge names a token that is not in the vocabulary");
    if (b.size() < prefix_len) fail_at((at / "merges")[i], "the merge's second token lacks the subword prefix");
    const auto joined = vocab_.find(a + b.substr(prefix_len));
    if (joined == vocab_.end()) fail_at((at / "merges")[i], "the merged token \"" + a + b.substr(prefix_len) + "\" is not in the vocabulary");
    merges_[pair_key(ia->second, ib->second)] = {uint32_t(i), joined->second};  // a repeated pair keeps its last rank
  }
  for (const auto& [token, id] : vocab_) {
    if (!token.empty() && unicode::length(uint8_t(token[0])) == token.size()) first_char_.emplace(token, id);
    if (prefix_ && token.size() > prefix_len && token.compare(0, prefix_len, *prefix_) == 0 &&
        unicode::length(uint8_t(token[prefix_len])) == token.size() - prefix_len)
      next_char_.emplace(token.substr(prefix_len), id);
  }
  if (byte_fallback_) {
    for (int b = 0; b < 256; ++b) {
      if (const auto it = vocab_.find(byte_token_name(uint8_t(b))); it != vocab_.end()) byte_ids_[b] = it->second;
    }
  }
}

std::optional<TokenId> Bpe::char_id(std::string_view ch, bool first, bool last) const {
  if (last && suffix_) {
    std::string s = (!first && prefix_ ? *prefix_ : std::string()) + std::string(ch) + *suffix_;
    return token_to_id(s);
  }
  const auto& table = (!first && prefix_) ? next_char_ : first_char_;
  const auto it = table.find(std::string(ch));
  return it == table.end() ? std::nullopt : std::optional<TokenId>(it->second);
}

void Bpe::initial_symbols(std::string_view word, std::vector<Symbol>& symbols) const {
  std::optional<TokenId> pending_unk;
  const auto push = [&](TokenId id) {
    symbols.push_back({id, int32_t(symbols.size()) - 1, int32_t(symbols.size()) + 1, true});
  };
  for (size_t i = 0; i < word.size();) {
    const size_t start = i;
    i += unicode::length(uint8_t(word[i]));
    const std::string_view ch = word.substr(start, i - start);
    if (const auto id = char_id(ch, start == 0, i == word.size())) {
      if (pending_unk) push(*pending_unk), pending_unk.reset();
      push(*id);
      continue;
    }
    if (byte_fallback_) {
      bool all = true;
      for (char b : ch) all = all && byte_ids_[uint8_t(b)].has_value();
      if (all) {
        // Hugging Face leaves a pending unknown token pending across byte-fallback symbols.
        for (char b : ch) push(*byte_ids_[uint8_t(b)]);
        continue;
      }
    }
    if (!unk_) continue;  // no unknown token: the character produces nothing, as in Hugging Face
    if (pending_unk && !fuse_unk_) push(*pending_unk);
    pending_unk = *unk_;
  }
  if (pending_unk) push(*pending_unk);
  if (!symbols.empty()) symbols.back().next = -1;
}

void Bpe::merge(std::vector<Symbol>& symbols) const {
  struct Candidate {
    uint32_t rank;
    int32_t pos;
    TokenId id;
    bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
  };
  std::priority_queue<Candidate, std::vector<Candidate>, std::greater<Candidate>> queue;
  const auto consider = [&](int32_t pos) {
    const int32_t next = symbols[pos].next;
    if (next < 0) return;
    const auto it = merges_.find(pair_key(symbols[pos].id, symbols[next].id));
    if (it != merges_.end()) queue.push({it->second.rank, pos, it->second.id});
  };
  for (int32_t i = 0; i + 1 < int32_t(symbols.size()); ++i) consider(i);
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    Symbol& left = symbols[top.pos];
    if (!left.alive || left.next < 0) continue;
    Symbol& right = symbols[left.next];
    const auto it = merges_.find(pair_key(left.id, right.id));
    if (it == merges_.end() || it->second.id != top.id) continue;  // a stale entry
    left.id = top.id;
    right.alive = false;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = top.pos;
    if (left.prev >= 0) consider(left.prev);
    consider(top.pos);
  }
}

void Bpe::tokenize(std::string_view word, std::vector<TokenId>& ids) const {
  if (word.empty()) return;
  if (ignore_merges_)
    if (const auto id = token_to_id(word)) return ids.push_back(*id);
  struct Cache {
    uint64_t serial = 0;
    std::unordered_map<std::string, std::vector<TokenId>> words;
  };
  thread_local Cache cache;
  constexpr size_t kCacheWords = 1 << 16, kCacheWordBytes = 256;
  if (cache.serial != serial_) cache.serial = serial_, cache.words.clear();
  if (word.size() < kCacheWordBytes) {
    const auto hit = cache.words.find(std::string(word));
    if (hit != cache.words.end()) return ids.insert(ids.end(), hit->second.begin(), hit->second.end()), void();
  }
  thread_local std::vector<Symbol> symbols;
  symbols.clear();
  initial_symbols(word, symbols);
  merge(symbols);
  const size_t first = ids.size();
  for (const Symbol& s : symbols)
    if (s.alive) ids.push_back(s.id);
  if (word.size() < kCacheWordBytes && cache.words.size() < kCacheWords)
    cache.words.emplace(std::string(word), std::vector<TokenId>(ids.begin() + first, ids.end()));
}

}  // namespace

std::unique_ptr<Model> make_bpe(const Json& j, const JsonPath& at) { return std::make_unique<Bpe>(j, at); }

}  // namespace weft::tokenizer
