#include "golden_files.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <lzma.h>
#include <nlohmann/json.hpp>

namespace weft::test {

std::string read_maybe_xz(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::ostringstream raw;
  raw << in.rdbuf();
  const std::string bytes = raw.str();
  if (path.extension() != ".xz") return bytes;
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, 0) != LZMA_OK) throw std::runtime_error("lzma_stream_decoder failed");
  std::string out;
  stream.next_in = reinterpret_cast<const uint8_t*>(bytes.data());
  stream.avail_in = bytes.size();
  char buffer[1 << 16];
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK) {
    stream.next_out = reinterpret_cast<uint8_t*>(buffer);
    stream.avail_out = sizeof buffer;
    ret = lzma_code(&stream, LZMA_FINISH);
    out.append(buffer, sizeof buffer - stream.avail_out);
  }
  lzma_end(&stream);
  if (ret != LZMA_STREAM_END) throw std::runtime_error(path.string() + ": not a valid .xz file");
  return out;
}

std::filesystem::path existing_maybe_xz(const std::filesystem::path& plain) {
  if (std::filesystem::exists(plain)) return plain;
  return plain.string() + ".xz";
}

std::vector<std::pair<std::string, std::filesystem::path>> named_files(const std::filesystem::path& dir, const std::string& marker) {
  std::vector<std::pair<std::string, std::filesystem::path>> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (const auto at = file.find(marker); at != std::string::npos) out.emplace_back(file.substr(0, at), entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::filesystem::path extra_goldens_dir() {
  const char* extra = std::getenv("WEFT_TOKENIZER_GOLDENS_EXTRA");
  return extra ? std::filesystem::path(extra) : std::filesystem::path();
}

std::vector<std::string> golden_corpus() {
  std::vector<std::string> texts;
  std::istringstream in(read_maybe_xz(std::filesystem::path(WEFT_TOKENIZER_GOLDENS_DIR) / "corpus.jsonl"));
  for (std::string line; std::getline(in, line);) texts.push_back(nlohmann::json::parse(line).get<std::string>());
  return texts;
}

std::string first_difference(const std::vector<uint32_t>& want, const std::vector<uint32_t>& got) {
  size_t k = 0;
  while (k < want.size() && k < got.size() && want[k] == got[k]) ++k;
  const auto show = [&](const std::vector<uint32_t>& v) {
    std::string s;
    for (size_t i = k; i < v.size() && i < k + 6; ++i) s += std::to_string(v[i]) + " ";
    return s;
  };
  return "at id " + std::to_string(k) + ": reference " + show(want) + "| weft " + show(got);
}

}  // namespace weft::test
