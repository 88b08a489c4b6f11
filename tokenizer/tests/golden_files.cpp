#include "golden_files.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <lzma.h>

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

}  // namespace weft::test
