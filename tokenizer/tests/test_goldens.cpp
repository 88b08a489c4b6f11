// Real tokenizer.json files against the ids Hugging Face's reference gave for the committed
// corpus (tokenizer/goldens/make_goldens.mjs made them): every id, the ids with the
// post-processor's special tokens, the reference's decode, and decode(encode(x)) == x wherever
// the reference round-trips. WEFT_TOKENIZER_GOLDENS_EXTRA names a folder of further
// NAME.tokenizer.json + NAME.ids.jsonl pairs (files whose licences keep them out of the repo).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "golden_files.h"
#include "tokenizer.h"

namespace fs = std::filesystem;
using weft::tokenizer::Tokenizer;
using weft::tokenizer::TokenId;

namespace {

struct Golden {
  std::vector<TokenId> ids, with_special;
  std::string decoded;
};

std::vector<Golden> goldens(const fs::path& ids_file) {
  std::vector<Golden> out;
  std::istringstream in(weft::test::read_maybe_xz(ids_file));
  for (std::string line; std::getline(in, line);) {
    const auto j = nlohmann::json::parse(line);
    out.push_back({j["ids"].get<std::vector<TokenId>>(), j["with_special"].get<std::vector<TokenId>>(),
                   j["decoded"].get<std::string>()});
  }
  return out;
}

void check_tokenizer(const std::string& name, const fs::path& tokenizer_file, const fs::path& ids_file) {
  const Tokenizer tok = Tokenizer::from_json(weft::test::read_maybe_xz(tokenizer_file), name);
  const std::vector<std::string> texts = weft::test::golden_corpus();
  const std::vector<Golden> want = goldens(ids_file);
  REQUIRE(want.size() == texts.size());
  size_t exact = 0, special_exact = 0, decoded_exact = 0, round_trips = 0, reference_round_trips = 0, shown = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto ids = tok.encode(texts[i]);
    if (ids == want[i].ids) ++exact;
    else if (shown++ < 3) MESSAGE(name << " text " << i << " " << weft::test::first_difference(want[i].ids, ids));
    if (tok.encode(texts[i], true) == want[i].with_special) ++special_exact;
    if (tok.decode(want[i].ids) == want[i].decoded) ++decoded_exact;
    if (want[i].decoded == texts[i]) {
      ++reference_round_trips;
      if (tok.decode(ids) == texts[i]) ++round_trips;
    }
  }
  INFO(name << ": " << exact << "/" << texts.size() << " ids exact");
  CHECK(exact == texts.size());
  CHECK(special_exact == texts.size());
  CHECK(decoded_exact == texts.size());
  CHECK(round_trips == reference_round_trips);
  MESSAGE(name << ": ids " << exact << "/" << texts.size() << ", with special tokens " << special_exact << ", decode "
               << decoded_exact << ", round trips " << round_trips << "/" << reference_round_trips);
}

}  // namespace

TEST_CASE("every committed tokenizer gives the reference's ids, special tokens and decode on the corpus") {
  const fs::path dir = WEFT_TOKENIZER_GOLDENS_DIR;
  const auto files = weft::test::named_files(dir, ".tokenizer.json");
  for (const auto& [name, file] : files)
    SUBCASE(name.c_str()) { check_tokenizer(name, file, weft::test::existing_maybe_xz(dir / (name + ".ids.jsonl"))); }
  CHECK(files.size() >= 4);
}

TEST_CASE("tokenizers outside the repository are checked when WEFT_TOKENIZER_GOLDENS_EXTRA names them") {
  const fs::path extra = weft::test::extra_goldens_dir();
  if (extra.empty()) return;
  for (const auto& [name, file] : weft::test::named_files(extra, ".tokenizer.json"))
    if (fs::exists(weft::test::existing_maybe_xz(extra / (name + ".ids.jsonl"))))
      SUBCASE(name.c_str()) { check_tokenizer(name, file, weft::test::existing_maybe_xz(extra / (name + ".ids.jsonl"))); }
}
