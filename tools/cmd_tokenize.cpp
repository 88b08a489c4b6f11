// weft tokenize: a tokenizer.json applied to text from the command line, and `weft bench
// tokenizer`: encoding speed against Hugging Face's reference, measured in the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <unistd.h>
#include <fstream>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include <weft/error.h>
#include <weft/input_file.h>

#include "bench.h"
#include "cli.h"
#include "node_peer.h"
#include "tokenizer.h"

namespace weft {
namespace {

namespace fs = std::filesystem;
using tokenizer::Tokenizer;
using tokenizer::TokenId;

std::vector<TokenId> parse_ids(const std::string& text) {
  std::vector<TokenId> ids;
  std::istringstream in(text);
  for (std::string word; in >> word;) {
    if (word.find_first_not_of("0123456789") != std::string::npos || word.size() > 10)
      fail(ErrorCode::BadInput, "--decode expects token ids separated by spaces, got '" + word + "'");
    ids.push_back(TokenId(std::stoull(word)));
  }
  return ids;
}

// The corpus lines repeated until `bytes` (cut back to a whole UTF-8 character).
std::string mixed_text(const std::vector<std::string>& lines, size_t bytes) {
  std::string out;
  while (out.size() < bytes)
    for (const std::string& l : lines) {
      out += l;
      out += '\n';
      if (out.size() >= bytes) break;
    }
  out.resize(bytes);
  while (!out.empty() && (uint8_t(out.back()) & 0xC0) == 0x80) out.pop_back();
  if (!out.empty() && uint8_t(out.back()) >= 0xC0) out.pop_back();
  return out;
}

std::vector<std::string> corpus_lines(const std::string& path) {
  std::vector<std::string> lines;
  std::istringstream in(read_text_file(path, "cannot open the bench corpus"));
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    lines.push_back(path.ends_with(".jsonl") ? nlohmann::json::parse(line).get<std::string>() : line);
  }
  if (lines.empty()) fail(ErrorCode::BadInput, path + ": the bench corpus is empty");
  return lines;
}

std::string fnv1a_ids(const std::vector<TokenId>& ids) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (TokenId id : ids)
    for (int k = 0; k < 4; ++k) h = (h ^ ((id >> (8 * k)) & 255)) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

double best_ms(int reps, const std::function<void()>& work) {
  double best = 1e300;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    work();
    best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

// The reference run by node on the same text; an object with "missing" when it cannot run.
nlohmann::json run_peer(const std::string& tokenizer_path, const std::string& text, int reps) {
  const fs::path text_file = fs::temp_directory_path() / ("weft-bench-tokenizer-" + std::to_string(::getpid()) + ".txt");
  std::ofstream(text_file, std::ios::binary) << text;
  nlohmann::json answer = cli::run_node_peer(WEFT_TOKENIZER_PEER_SCRIPT, {tokenizer_path, text_file.string(), std::to_string(reps)}, "",
                                             "TOKENIZERS_PARALLELISM=false");
  fs::remove(text_file);
  return answer;
}

int bench_tokenizer(const cli::Args& args) {
  const std::string path = args.get("tokenizer");
  if (path.empty()) fail(ErrorCode::BadInput, "weft bench tokenizer needs --tokenizer FILE (a tokenizer.json)");
  const Tokenizer tok = Tokenizer::load(path);
  const auto lines = corpus_lines(args.get("text", WEFT_TOKENIZER_CORPUS));
  const int reps = int(std::max<uint64_t>(1, args.get_uint("reps", 3)));
  for (const size_t bytes : {size_t(256) << 10, size_t(1) << 20, size_t(4) << 20}) {
    const std::string text = mixed_text(lines, bytes);
    std::vector<TokenId> ids;
    const double ms = best_ms(reps, [&] { ids = tok.encode(text); });
    const nlohmann::json peer = run_peer(path, text, reps);
    bench::Line line("tokenizer.encode", "cpu", "host");
    line.str("tokenizer", path).num("bytes", double(text.size())).num("ids", double(ids.size()));
    line.num("threads", 1).num("weft_ms", ms).num("weft_mib_per_s", double(text.size()) / (1 << 20) / (ms / 1e3));
    if (peer.contains("missing")) {
      line.str("peer", "missing: " + peer["missing"].get<std::string>());
    } else {
      const auto peer_ms = peer["ms"].get<std::vector<double>>();
      const double best_peer = *std::min_element(peer_ms.begin(), peer_ms.end());
      line.str("peer", "huggingface tokenizers " + peer["version"].get<std::string>() + " (npm, Rust)")
          .num("peer_ms", best_peer)
          .num("speedup_vs_peer", best_peer / ms)
          .boolean("ids_match_peer", peer["ids_fnv1a"].get<std::string>() == fnv1a_ids(ids) && peer["ids"] == ids.size());
    }
    line.print();
  }
  // Batch: the corpus lines to 4 MiB, one text each, over every hardware thread.
  std::vector<std::string> batch;
  for (size_t total = 0; total < (size_t(4) << 20);)
    for (const auto& l : lines) batch.push_back(l), total += l.size();
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  const double one = best_ms(reps, [&] { tok.encode_batch(batch, false, 1); });
  const double all = best_ms(reps, [&] { tok.encode_batch(batch, false, threads); });
  bench::Line("tokenizer.encode_batch", "cpu", "host")
      .str("tokenizer", path)
      .num("texts", double(batch.size()))
      .num("threads", threads)
      .num("one_thread_ms", one)
      .num("all_threads_ms", all)
      .num("thread_speedup", one / all)
      .str("peer", "missing: batch encoding is compared thread against thread only")
      .print();
  return 0;
}

}  // namespace

int cmd_tokenize(int argc, char** argv) {
  const cli::Args args = cli::parse(argc, argv, 2, {"text", "file", "decode"}, {"special", "json"});
  if (args.positional.empty())
    fail(ErrorCode::BadInput, "usage: weft tokenize TOKENIZER.json [--text TEXT | --file FILE | --decode \"ID ...\"] [--special] [--json]");
  const Tokenizer tok = Tokenizer::load(args.positional[0]);
  if (args.options.count("decode")) {
    std::printf("%s\n", tok.decode(parse_ids(args.get("decode"))).c_str());
    return 0;
  }
  const std::string text = args.options.count("file") ? read_text_file(args.get("file")) : args.get("text");
  const auto ids = tok.encode(text, args.flag("special"));
  if (args.flag("json")) {
    nlohmann::json pieces = nlohmann::json::array();
    for (TokenId id : ids) pieces.push_back({{"id", id}, {"token", tok.id_to_token(id).value_or("")}});
    std::printf("%s\n", pieces.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
    return 0;
  }
  std::string out;
  for (TokenId id : ids) out += (out.empty() ? "" : " ") + std::to_string(id);
  std::printf("%s\n", out.c_str());
  return 0;
}

int cmd_bench_tokenizer(int argc, char** argv) {
  return bench_tokenizer(cli::parse(argc, argv, 3, {"tokenizer", "text", "reps"}, {}));
}

}  // namespace weft
