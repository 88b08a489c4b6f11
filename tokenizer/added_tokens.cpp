#include "added_tokens.h"

#include <algorithm>

#include "unicode.h"

namespace weft::tokenizer {
namespace {

// The character before `end` (valid UTF-8 assumed).
char32_t char_before(std::string_view text, size_t end) {
  size_t start = end - 1;
  while (start > 0 && (uint8_t(text[start]) & 0xC0) == 0x80) --start;
  return unicode::next(text, start);
}

// Rust's regex \s: the White_Space property.
size_t trailing_space_start(std::string_view text, size_t begin, size_t end) {
  while (end > begin) {
    size_t start = end - 1;
    while (start > begin && (uint8_t(text[start]) & 0xC0) == 0x80) --start;
    size_t i = start;
    if (!unicode::is_white_space(unicode::next(text, i))) break;
    end = start;
  }
  return end;
}

size_t leading_space_end(std::string_view text, size_t begin) {
  while (begin < text.size()) {
    size_t i = begin;
    if (!unicode::is_white_space(unicode::next(text, i))) break;
    begin = i;
  }
  return begin;
}

}  // namespace

AddedTokenMatcher::AddedTokenMatcher(const std::vector<AddedToken>& tokens, const std::vector<std::string>& patterns)
    : tokens_(tokens) {
  for (size_t k = 0; k < tokens.size(); ++k) {
    const std::string& p = patterns[k];
    if (p.empty()) continue;
    uint32_t node = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      const uint8_t b = uint8_t(p[i]);
      if (node == 0 && root_[b]) {
        node = root_[b];
        continue;
      }
      auto& children = nodes_[node].children;
      const auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(b, uint32_t(0)));
      if (it != children.end() && it->first == b) {
        node = it->second;
        continue;
      }
      const uint32_t child = uint32_t(nodes_.size());
      children.insert(it, {b, child});
      if (node == 0) root_[b] = child;
      nodes_.emplace_back();
      node = child;
    }
    nodes_[node].token = int32_t(k);  // a repeated pattern: the later token wins, as in a map
  }
}

std::pair<size_t, int32_t> AddedTokenMatcher::longest_at(std::string_view text, size_t at) const {
  uint32_t node = root_[uint8_t(text[at])];
  std::pair<size_t, int32_t> best{0, -1};
  for (size_t i = at + 1; node; ++i) {
    if (nodes_[node].token >= 0) best = {i, nodes_[node].token};
    if (i == text.size()) break;
    const auto& children = nodes_[node].children;
    const uint8_t b = uint8_t(text[i]);
    const auto it = std::lower_bound(children.begin(), children.end(), std::make_pair(b, uint32_t(0)));
    node = (it != children.end() && it->first == b) ? it->second : 0;
  }
  return best;
}

void AddedTokenMatcher::split_one(const Split& piece, std::vector<Split>& out) const {
  const std::string& text = piece.text;
  size_t done = 0;  // the end of the last token taken
  const auto emit_text = [&](size_t begin, size_t end) {
    if (end > begin) out.push_back({text.substr(begin, end - begin), piece.at_origin && begin == 0, std::nullopt});
  };
  for (size_t at = 0; at < text.size();) {
    if (!root_[uint8_t(text[at])]) {
      ++at;
      continue;
    }
    const auto [end, index] = longest_at(text, at);
    if (index < 0) {
      ++at;
      continue;
    }
    const AddedToken& token = tokens_[size_t(index)];
    size_t begin = at, stop = end;
    at = end;  // a refused single-word match is still passed over, as the Aho-Corasick walk does
    if (token.single_word) {
      const bool space_before = begin == 0 || !unicode::is_word(char_before(text, begin));
      size_t i = stop;
      const bool space_after = stop == text.size() || !unicode::is_word(unicode::next(text, i));
      if (!space_before || !space_after) continue;
    }
    if (token.lstrip) begin = std::max(trailing_space_start(text, 0, begin), done);
    if (token.rstrip) stop = leading_space_end(text, stop);
    emit_text(done, begin);
    out.push_back({text.substr(begin, stop - begin), piece.at_origin && begin == 0, token.id});
    done = stop;
    at = std::max(at, stop);
  }
  emit_text(done, text.size());
}

void AddedTokenMatcher::split(std::vector<Split>& splits) const {
  if (empty()) return;
  std::vector<Split> out;
  out.reserve(splits.size());
  for (Split& s : splits) {
    if (s.added) out.push_back(std::move(s));
    else split_one(s, out);
  }
  splits = std::move(out);
}

LongestFirstSplitter::LongestFirstSplitter(std::vector<AddedToken> tokens) : tokens_(std::move(tokens)) {
  std::erase_if(tokens_, [](const AddedToken& t) { return t.content.empty(); });
  std::stable_sort(tokens_.begin(), tokens_.end(), [](const AddedToken& a, const AddedToken& b) { return a.id < b.id; });
  std::stable_sort(tokens_.begin(), tokens_.end(),
                   [](const AddedToken& a, const AddedToken& b) { return a.content.size() > b.content.size(); });
}

void LongestFirstSplitter::cut(const AddedToken& token, const Split& piece, std::vector<Split>& out) const {
  const std::string& text = piece.text;
  const auto is_space = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  size_t begin = 0;  // the start of the text not yet emitted
  for (size_t at = text.find(token.content); at != std::string::npos; at = text.find(token.content, begin)) {
    size_t left_end = at;
    if (token.lstrip)
      while (left_end > begin && is_space(text[left_end - 1])) --left_end;
    if (left_end > begin) out.push_back({text.substr(begin, left_end - begin), piece.at_origin && begin == 0, std::nullopt});
    out.push_back({token.content, piece.at_origin && at == 0, token.id});
    begin = at + token.content.size();
    if (token.rstrip)
      while (begin < text.size() && is_space(text[begin])) ++begin;
  }
  if (begin < text.size()) out.push_back({text.substr(begin), false, std::nullopt});
}

void LongestFirstSplitter::split(std::vector<Split>& splits) const {
  for (const AddedToken& token : tokens_) {
    std::vector<Split> out;
    out.reserve(splits.size());
    for (Split& s : splits) {
      if (s.added || s.text.find(token.content) == std::string::npos) out.push_back(std::move(s));
      else cut(token, s, out);
    }
    splits = std::move(out);
  }
}

}  // namespace weft::tokenizer
