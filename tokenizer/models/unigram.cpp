// The Unigram model (SentencePiece's): a word is split into the vocabulary pieces whose scores
// sum highest (Viterbi over the byte lattice). A character no piece starts with becomes the
// unknown piece, scored ten below the vocabulary's lowest score, and runs of unknown pieces
// fuse into one — Hugging Face's rules, ties included (the earlier-starting piece wins).
#include <algorithm>
#include <array>
#include <deque>
#include <limits>
#include <unordered_map>

#include <weft/error.h>

#include "../pipeline.h"
#include "../unicode.h"
#include "models.h"

namespace weft::tokenizer {
namespace {

constexpr double kUnknownPenalty = 10.0;

// A byte trie over the pieces, walked from one start position to list every piece that begins
// there, shortest first (the order Hugging Face's trie yields them in). Built once, breadth
// first, so each node's children sit side by side, sorted by byte, for a binary search: 16 bytes
// a node, a few times less than a hash-map entry per edge, which matters for 250,000 pieces.
class PieceTrie {
 public:
  explicit PieceTrie(const StringMap<TokenId>& pieces);
  template <typename Visit>  // visit(end, id) for each piece text[start, end)
  void for_each_prefix(std::string_view text, size_t start, Visit visit) const {
    const Node* node = &nodes_[0];
    for (size_t i = start; i < text.size(); ++i) {
      const Node* first = &nodes_[node->first_child];
      const Node* last = first + node->child_count;
      const uint8_t byte = uint8_t(text[i]);
      node = std::lower_bound(first, last, byte, [](const Node& n, uint8_t b) { return n.byte < b; });
      if (node == last || node->byte != byte) return;
      if (node->id) visit(i + 1, node->id - 1);
    }
  }

 private:
  struct Node {
    uint32_t first_child = 0, child_count = 0;
    TokenId id = 0;  // one more than the piece's id; 0 when no piece ends here
    uint8_t byte = 0;
  };
  std::vector<Node> nodes_;
};

PieceTrie::PieceTrie(const StringMap<TokenId>& pieces) {
  std::vector<std::pair<std::string_view, TokenId>> sorted(pieces.begin(), pieces.end());
  std::sort(sorted.begin(), sorted.end());
  // Each queued node covers the sorted pieces [begin, end), which share its first `depth` bytes.
  struct Pending {
    uint32_t node;
    size_t begin, end, depth;
  };
  std::deque<Pending> queue{{0, 0, sorted.size(), 0}};
  nodes_.emplace_back();
  while (!queue.empty()) {
    auto [node, begin, end, depth] = queue.front();
    queue.pop_front();
    if (begin < end && sorted[begin].first.size() == depth) nodes_[node].id = sorted[begin++].second + 1;
    nodes_[node].first_child = uint32_t(nodes_.size());
    while (begin < end) {
      const char byte = sorted[begin].first[depth];
      size_t next = begin;
      while (next < end && sorted[next].first[depth] == byte) ++next;
      nodes_.push_back({0, 0, 0, uint8_t(byte)});
      ++nodes_[node].child_count;
      queue.push_back({uint32_t(nodes_.size() - 1), begin, next, depth + 1});
      begin = next;
    }
  }
  nodes_.shrink_to_fit();
}

class Unigram final : public Model {
 public:
  Unigram(const Json& j, const JsonPath& at);

  void tokenize(std::string_view word, std::vector<TokenId>& ids) const override;
  std::optional<TokenId> token_to_id(std::string_view token) const override {
    const auto it = ids_.find(token);
    return it == ids_.end() ? std::nullopt : std::optional<TokenId>(it->second);
  }
  std::optional<std::string> id_to_token(TokenId id) const override {
    return id < pieces_.size() ? std::optional<std::string>(pieces_[id]) : std::nullopt;
  }
  size_t vocab_size() const override { return pieces_.size(); }
  uint32_t id_limit() const override { return uint32_t(pieces_.size()); }

 private:
  struct Span {
    size_t begin, end;
    TokenId id;
  };
  std::vector<Span> best_segmentation(std::string_view word) const;
  void append_piece(std::string_view piece, std::vector<TokenId>& ids) const;
  TokenId unknown() const;

  std::vector<std::string> pieces_;
  std::vector<double> scores_;
  StringMap<TokenId> ids_;  // a repeated piece keeps its last id, as in Hugging Face
  std::optional<PieceTrie> trie_;
  std::optional<TokenId> unk_;
  double unk_score_ = 0;
  bool byte_fallback_ = false;
  std::array<std::optional<TokenId>, 256> byte_ids_{};  // <0xXX> pieces for byte fallback
};

Unigram::Unigram(const Json& j, const JsonPath& at) {
  const Json& vocab = member(j, "vocab", at);
  if (!vocab.is_array()) fail_at(at / "vocab", "expected an array of [piece, score]");
  double min_score = std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < vocab.size(); ++i) {
    const Json& entry = vocab[i];
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number())
      fail_at((at / "vocab")[i], "expected [piece, score]");
    pieces_.push_back(entry[0].get<std::string>());
    scores_.push_back(entry[1].get<double>());
    min_score = std::min(min_score, scores_.back());
    ids_[pieces_.back()] = TokenId(i);
  }
  if (pieces_.size() >= (1u << 31)) fail_at(at / "vocab", "expected fewer than 2^31 pieces");
  trie_.emplace(ids_);
  unk_score_ = min_score - kUnknownPenalty;
  if (j.contains("unk_id") && !j["unk_id"].is_null()) {
    const uint64_t unk = uint_member(j, "unk_id", at);
    if (unk >= pieces_.size()) fail_at(at / "unk_id", "the unknown piece's id is not in the vocabulary");
    unk_ = TokenId(unk);
  }
  byte_fallback_ = bool_member(j, "byte_fallback", at, false);
  if (byte_fallback_) {
    for (int b = 0; b < 256; ++b)
      byte_ids_[b] = token_to_id(byte_token_name(uint8_t(b)));
  }
}

// Hugging Face fails only when the unknown piece would be used and the model has none.
TokenId Unigram::unknown() const {
  if (!unk_) fail(ErrorCode::BadInput, "Unigram: the text has a character no piece covers, and the model has no unk_id");
  return *unk_;
}

std::vector<Unigram::Span> Unigram::best_segmentation(std::string_view word) const {
  struct Best {
    double score = 0;
    std::optional<size_t> begin;  // where the best piece ending here starts; none while unreached
    TokenId id = 0;
  };
  std::vector<Best> best(word.size() + 1);
  const auto offer = [&](size_t begin, size_t end, double score, auto id_of) {
    Best& target = best[end];
    const double total = score + best[begin].score;
    // Strictly greater: among equal scores the first offer, so the earliest start, stays.
    if (!target.begin || total > target.score) target = {total, begin, id_of()};
  };
  for (size_t begin = 0; begin < word.size();) {
    const size_t char_end = begin + unicode::length(uint8_t(word[begin]));
    bool covers_char = false;
    trie_->for_each_prefix(word, begin, [&](size_t end, TokenId id) {
      offer(begin, end, scores_[id], [id] { return id; });
      covers_char = covers_char || end == char_end;
    });
    if (!covers_char) offer(begin, char_end, unk_score_, [this] { return unknown(); });
    begin = char_end;
  }
  std::vector<Span> spans;
  for (size_t end = word.size(); end > 0; end = *best[end].begin) spans.push_back({*best[end].begin, end, best[end].id});
  std::reverse(spans.begin(), spans.end());
  return spans;
}

// A piece's ids: its vocabulary id, else (a fused run of unknown characters) its bytes' <0xXX>
// pieces when byte fallback has them all, else the unknown piece.
void Unigram::append_piece(std::string_view piece, std::vector<TokenId>& ids) const {
  if (const auto id = token_to_id(piece)) return ids.push_back(*id);
  if (byte_fallback_) {
    bool all = true;
    for (char b : piece) all = all && byte_ids_[uint8_t(b)].has_value();
    if (all) {
      for (char b : piece) ids.push_back(*byte_ids_[uint8_t(b)]);
      return;
    }
  }
  ids.push_back(unknown());
}

void Unigram::tokenize(std::string_view word, std::vector<TokenId>& ids) const {
  if (word.empty()) return;
  const std::vector<Span> spans = best_segmentation(word);
  for (size_t i = 0; i < spans.size();) {
    size_t last = i;
    // Neighbouring spans of the unknown id (the unknown piece's own text included) fuse.
    if (unk_ && spans[i].id == *unk_)
      while (last + 1 < spans.size() && spans[last + 1].id == *unk_) ++last;
    append_piece(word.substr(spans[i].begin, spans[last].end - spans[i].begin), ids);
    i = last + 1;
  }
}

}  // namespace

std::unique_ptr<Model> make_unigram(const Json& j, const JsonPath& at) {
  only_members(j, {"vocab", "unk_id", "byte_fallback"}, at);
  return std::make_unique<Unigram>(j, at);
}

}  // namespace weft::tokenizer
