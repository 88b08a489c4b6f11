// The built-in calculator tool: golden answers, refusals, and random expression trees whose
// value the test computes from the tree itself (an independent evaluator) before printing them.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "calculator.h"

namespace weft::token_vm::test {
namespace {

TEST_CASE("token_vm calculator: precedence, parentheses, unary minus, the text after the expression") {
  CHECK(calculator(" 17 * 23 + 4[EOS]") == "395\n");
  CHECK(calculator("2+3*4") == "14\n");
  CHECK(calculator("(2+3)*4") == "20\n");
  CHECK(calculator("-7 / 2") == "-3\n");
  CHECK(calculator("10 - 2 - 3") == "5\n");
  CHECK(calculator("\n  8 / 2 / 2 [Jump]") == "2\n");
  CHECK(calculator("9223372036854775807") == "9223372036854775807\n");
}

TEST_CASE("token_vm calculator: bad expressions are answered, not thrown") {
  CHECK(calculator("") == "error: expected a number\n");
  CHECK(calculator("[EOS]") == "error: expected a number\n");
  CHECK(calculator("1 / 0") == "error: division by zero\n");
  CHECK(calculator("(1 + 2") == "error: missing ')'\n");
  CHECK(calculator("2 x 3") == "error: unexpected 'x'\n");
  // What the model wrote may be any bytes; the answer goes back to it as text (valid UTF-8).
  CHECK(calculator("2 \xC3\xA9") == "error: unexpected '\\xC3'\n");
  CHECK(calculator("7\x01") == "error: unexpected '\\x01'\n");
  CHECK(calculator("9223372036854775808") == "error: overflow\n");
  CHECK(calculator("4611686018427387904 * 2") == "error: overflow\n");
  CHECK(calculator(std::string(100, '(') + "1" + std::string(100, ')')) == "error: nested too deeply\n");
}

// A random expression over small numbers, printed fully parenthesized or relying on
// precedence, with its value computed on the tree.
struct Expr {
  std::string text;
  int64_t value;
};

Expr random_expr(std::mt19937& rng, int depth) {
  if (depth == 0 || std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
    const int64_t v = std::uniform_int_distribution<int64_t>(0, 999)(rng);
    return {std::to_string(v), v};
  }
  const Expr a = random_expr(rng, depth - 1), b = random_expr(rng, depth - 1);
  switch (std::uniform_int_distribution<int>(0, 4)(rng)) {
    case 0: return {"(" + a.text + " + " + b.text + ")", a.value + b.value};
    case 1: return {"(" + a.text + "-" + b.text + ")", a.value - b.value};
    case 2: return {"(" + a.text + ")*(" + b.text + ")", a.value * b.value};
    case 3:
      if (b.value == 0) return a;
      return {"(" + a.text + ") / (" + b.text + ")", a.value / b.value};
    default: return {"-(" + a.text + ")", -a.value};
  }
}

TEST_CASE("token_vm calculator: 2000 random expressions equal their tree's value") {
  std::mt19937 rng(99);
  for (int i = 0; i < 2000; ++i) {
    const Expr e = random_expr(rng, 4);
    CAPTURE(e.text);
    CHECK(calculator(e.text + "[EOS]") == std::to_string(e.value) + "\n");
  }
}

}  // namespace
}  // namespace weft::token_vm::test
