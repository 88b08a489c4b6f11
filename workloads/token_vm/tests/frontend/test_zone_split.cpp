// Zone splitting golden cases (spec §1.1): each zone's forced text ends with its close pattern.
#include <doctest/doctest.h>

#include "support.h"
#include "zone_split.h"

using namespace weft::token_vm;
using namespace weft::token_vm::test;

namespace {

const PatternSet kPatterns{{"[Prompt]", "[Answer]", "[EOS]"}, "[Jump]", "[Escape]", "[EndEscape]"};

std::vector<std::string> texts(const SplitResult& r) {
  std::vector<std::string> out;
  for (const ZoneText& z : r.zones) out.push_back(z.text);
  return out;
}

std::string pieces(const ZoneText& z) {  // "text|<pattern id>|text" for compact comparison
  std::string out;
  for (const TextPiece& p : z.pieces)
    out += (out.empty() ? "" : "|") + (p.pattern == TextPiece::kPlain ? p.text : "<" + std::to_string(p.pattern) + ">");
  return out;
}

}  // namespace

TEST_CASE("token_vm frontend: zone split, the spec's example exactly") {
  const SplitResult r = split_zones("[Prompt] What is AI? [Answer] AI is intelligence.", kPatterns, "w", nullptr);
  CHECK(texts(r) == std::vector<std::string>{"[Prompt]", " What is AI? [Answer]", " AI is intelligence."});
  CHECK(r.closed_zones == 2);
  CHECK(r.zones[0].closed);
  CHECK(r.zones[1].closed);
  CHECK_FALSE(r.zones[2].closed);  // the model generates the rest until [EOS]
  CHECK(pieces(r.zones[0]) == "<0>");
  CHECK(pieces(r.zones[1]) == " What is AI? |<1>");
  CHECK(pieces(r.zones[2]) == " AI is intelligence.");
}

TEST_CASE("token_vm frontend: zone split, fully forced and early-stopping text") {
  SUBCASE("every zone closed by its own pattern, trailing whitespace dropped") {
    const SplitResult r = split_zones("intro [Prompt] Q [Answer] A [EOS]\n", kPatterns, "w", nullptr);
    CHECK(texts(r) == std::vector<std::string>{"intro [Prompt]", " Q [Answer]", " A [EOS]"});
    CHECK(r.closed_zones == 3);
  }
  SUBCASE("text stops inside the prompt zone: later zones are left to the model") {
    const SplitResult r = split_zones("[Prompt] Think about", kPatterns, "w", nullptr);
    CHECK(texts(r) == std::vector<std::string>{"[Prompt]", " Think about", ""});
    CHECK(r.closed_zones == 1);
    CHECK_FALSE(r.zones[1].closed);
  }
  SUBCASE("empty text: the model generates every pattern") {
    const SplitResult r = split_zones("", kPatterns, "w", nullptr);
    CHECK(texts(r) == std::vector<std::string>{"", "", ""});
    CHECK(r.closed_zones == 0);
  }
  SUBCASE("text ends exactly with a pattern") {
    const SplitResult r = split_zones("[Prompt] Q [Answer]", kPatterns, "w", nullptr);
    CHECK(texts(r) == std::vector<std::string>{"[Prompt]", " Q [Answer]", ""});
    CHECK(r.closed_zones == 2);
  }
}

TEST_CASE("token_vm frontend: zone split, escapes") {
  SUBCASE("a zone pattern inside an escape does not split") {
    const SplitResult r =
        split_zones("[Prompt] Write [Escape][Answer][EndEscape] literally [Answer] ok", kPatterns, "w", nullptr);
    CHECK(texts(r) == std::vector<std::string>{"[Prompt]", " Write [Escape][Answer][EndEscape] literally [Answer]", " ok"});
    CHECK(pieces(r.zones[1]) == " Write |<4>|[Answer]|<5>| literally |<1>");
  }
  SUBCASE("nested escapes keep a depth counter") {
    const SplitResult r = split_zones(
        "[Prompt] a [Escape] b [Escape] [Answer] [EndEscape] [EOS] [EndEscape] c [Answer] d", kPatterns, "w", nullptr);
    CHECK(texts(r) == std::vector<std::string>{
                          "[Prompt]", " a [Escape] b [Escape] [Answer] [EndEscape] [EOS] [EndEscape] c [Answer]", " d"});
    CHECK(pieces(r.zones[1]) == " a |<4>| b |<4>| [Answer] |<5>| [EOS] |<5>| c |<1>");
  }
  SUBCASE("an escaped control pattern is no warning") {
    std::vector<std::string> warnings;
    split_zones("[Prompt] say [Escape][Jump][EndEscape] [Answer]", kPatterns, "w", &warnings);
    CHECK(warnings.empty());
  }
  SUBCASE("an unescaped control pattern is a warning naming where") {
    std::vector<std::string> warnings;
    const SplitResult r = split_zones("[Prompt] say [Jump] [Answer]", kPatterns, "p.toml:3: field 'text'", &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK_CONTAINS(warnings[0], "p.toml:3: field 'text'");
    CHECK_CONTAINS(warnings[0], "unescaped control pattern '[Jump]' at offset 13");
    CHECK(pieces(r.zones[1]) == " say |<3>| |<1>");
  }
}

TEST_CASE("token_vm frontend: zone split errors") {
  CHECK_CONTAINS(bad_input([] { split_zones("[Prompt] x [EOS]", kPatterns, "W", nullptr); }),
                 "W: zone pattern '[EOS]' at offset 11 (text line 1) comes too early; the next zone pattern expected is '[Answer]'");
  CHECK_CONTAINS(bad_input([] { split_zones("[Prompt] x [Prompt]", kPatterns, "W", nullptr); }),
                 "zone pattern '[Prompt]' at offset 11 (text line 1) appears again");
  CHECK_CONTAINS(bad_input([] { split_zones("[Prompt] [Answer] [EOS] tail", kPatterns, "W", nullptr); }),
                 "text after the final zone pattern '[EOS]' at offset 23");
  CHECK_CONTAINS(bad_input([] { split_zones("[Prompt] [Answer] [EOS][Prompt]", kPatterns, "W", nullptr); }),
                 "after the final zone pattern");
  CHECK_CONTAINS(bad_input([] { split_zones("[Prompt]\n a [Escape] b", kPatterns, "W", nullptr); }),
                 "escape opened at offset 12 (text line 2) is never closed");
  CHECK_CONTAINS(bad_input([] { split_zones("[Prompt] a [EndEscape]", kPatterns, "W", nullptr); }),
                 "escape close pattern '[EndEscape]' at offset 11 (text line 1) closes no open escape");
}
