// Added tokens (special and normal): found in the text before the model sees it, leftmost and
// longest first, with Hugging Face's single_word, lstrip and rstrip rules. Tokens marked
// "normalized" are matched in normalized text, the others in the text as given.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "pipeline.h"

namespace weft::tokenizer {

struct AddedToken {
  std::string content;
  TokenId id = 0;
  bool single_word = false, lstrip = false, rstrip = false, normalized = false, special = false;
};

// Leftmost-longest matching of many literal strings: a byte trie walked from each position,
// so a text of n bytes costs O(n * longest token).
class AddedTokenMatcher {
 public:
  AddedTokenMatcher() = default;
  // `patterns[k]` is what tokens[k] looks like in the text it is matched in.
  AddedTokenMatcher(const std::vector<AddedToken>& tokens, const std::vector<std::string>& patterns);
  bool empty() const { return nodes_.size() <= 1; }
  // Cuts every piece without `added` at the tokens found in it.
  void split(std::vector<Split>& splits) const;

 private:
  struct Node {
    std::vector<std::pair<uint8_t, uint32_t>> children;  // sorted by byte
    int32_t token = -1;                                  // index into tokens_ of a token ending here
  };
  void split_one(const Split& piece, std::vector<Split>& out) const;
  // The longest token starting at `at`: its end and index, or end = 0 when none.
  std::pair<size_t, int32_t> longest_at(std::string_view text, size_t at) const;

  std::vector<AddedToken> tokens_;
  std::vector<Node> nodes_{1};
  std::array<uint32_t, 256> root_{};  // the root's children, by byte (0: none)
};

// llama.cpp's special-token partition: the tokens in turn, longest first (equal lengths in
// id order), each cut out of every piece at each of its occurrences, leftmost first; lstrip and
// rstrip drop ASCII whitespace (C's isspace) beside it. Unlike the leftmost-longest matcher, a
// longer token wins even where a shorter one starts earlier and overlaps it.
class LongestFirstSplitter {
 public:
  LongestFirstSplitter() = default;
  explicit LongestFirstSplitter(std::vector<AddedToken> tokens);
  bool empty() const { return tokens_.empty(); }
  void split(std::vector<Split>& splits) const;

 private:
  void cut(const AddedToken& token, const Split& piece, std::vector<Split>& out) const;
  std::vector<AddedToken> tokens_;
};

}  // namespace weft::tokenizer
