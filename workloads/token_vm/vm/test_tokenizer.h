// A stand-in tokenizer for the VM's tests, conformance cases and CLI until the front end's
// tokenizers are merged: ids 0..255 are the single bytes; ids from 256 on are whatever byte
// strings the table adds (multi-byte "merges", so byte-level matching can be tested across
// token boundaries). Encoding is byte by byte.
#pragma once

#include <string>
#include <vector>

#include <weft/error.h>

#include "workflow.h"

namespace weft::token_vm {

class TableTokenizer final : public Tokenizer {
 public:
  explicit TableTokenizer(std::vector<std::string> extra = {}) {
    for (int i = 0; i < 256; ++i) table_.push_back(std::string(1, char(i)));
    for (std::string& s : extra) table_.push_back(std::move(s));
  }
  std::vector<Token> encode(std::string_view text) const override {
    std::vector<Token> t;
    for (unsigned char c : text) t.push_back(c);
    return t;
  }
  std::string decode(std::span<const Token> tokens) const override {
    std::string s;
    for (Token t : tokens) s += token_bytes(t);
    return s;
  }
  std::string token_bytes(Token token) const override { return token < table_.size() ? table_[token] : std::string(); }
  uint32_t vocab_size() const override { return uint32_t(table_.size()); }
  std::string identity() const override { return "test table of " + std::to_string(table_.size()) + " tokens"; }
  const std::vector<std::string>& table() const { return table_; }

 private:
  std::vector<std::string> table_;
};

}  // namespace weft::token_vm
