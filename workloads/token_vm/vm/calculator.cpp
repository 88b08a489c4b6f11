#include "calculator.h"

#include <cstdint>
#include <cstdio>
#include <stdexcept>

namespace weft::token_vm {
namespace {

struct Refused : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Recursive descent over expr := term (('+'|'-') term)*, term := unary (('*'|'/') unary)*,
// unary := '-' unary | '(' expr ')' | digits. Depth is bounded so hostile text cannot
// exhaust the stack.
// A printable ASCII character as itself, any other byte as \xNN: the answer is fed back to the
// model as text, so it must stay valid UTF-8 whatever the model wrote.
std::string shown(char c) {
  if (c >= 0x20 && c < 0x7F) return std::string(1, c);
  char hex[5];
  std::snprintf(hex, sizeof hex, "\\x%02X", unsigned(uint8_t(c)));
  return hex;
}

class Parser {
 public:
  explicit Parser(const std::string& s) : s_(s) {}

  int64_t whole() {
    const int64_t v = expr(0);
    skip();
    if (pos_ < s_.size() && s_[pos_] != '[') throw Refused("unexpected '" + shown(s_[pos_]) + "'");
    return v;
  }

 private:
  static constexpr int kMaxDepth = 64;

  void skip() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) ++pos_;
  }
  bool eat(char c) {
    skip();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  static void check(bool overflow) {
    if (overflow) throw Refused("overflow");
  }
  int64_t expr(int depth) {
    int64_t v = term(depth);
    for (;;) {
      if (eat('+')) check(__builtin_add_overflow(v, term(depth), &v));
      else if (eat('-')) check(__builtin_sub_overflow(v, term(depth), &v));
      else return v;
    }
  }
  int64_t term(int depth) {
    int64_t v = unary(depth);
    for (;;) {
      if (eat('*')) {
        check(__builtin_mul_overflow(v, unary(depth), &v));
      } else if (eat('/')) {
        const int64_t d = unary(depth);
        if (d == 0) throw Refused("division by zero");
        if (v == INT64_MIN && d == -1) throw Refused("overflow");
        v /= d;
      } else {
        return v;
      }
    }
  }
  int64_t unary(int depth) {
    if (depth > kMaxDepth) throw Refused("nested too deeply");
    if (eat('-')) {
      const int64_t v = unary(depth + 1);
      if (v == INT64_MIN) throw Refused("overflow");
      return -v;
    }
    if (eat('(')) {
      const int64_t v = expr(depth + 1);
      if (!eat(')')) throw Refused("missing ')'");
      return v;
    }
    skip();
    if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') throw Refused("expected a number");
    int64_t v = 0;
    for (; pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9'; ++pos_)
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, s_[pos_] - '0', &v)) throw Refused("overflow");
    return v;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

}  // namespace

std::string calculator(const std::string& text) {
  try {
    return std::to_string(Parser(text).whole()) + "\n";
  } catch (const Refused& e) {
    return std::string("error: ") + e.what() + "\n";
  }
}

ToolFn builtin_tool(const std::string& name) {
  if (name == "calculator" || name == "calc") return calculator;
  return [](const std::string& text) { return text + "\n"; };
}

}  // namespace weft::token_vm
