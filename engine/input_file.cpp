#include "input_file.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "error.h"

namespace weft {

uint64_t input_limit(const InputLimit& limit) {
  const char* v = std::getenv(limit.variable);
  if (!v || !*v) return limit.fallback;
  const std::string s = v;
  if (s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos)
    fail(ErrorCode::BadInput, std::string(limit.variable) + "='" + s + "' is not a non-negative integer");
  const uint64_t n = std::stoull(s);
  return n == 0 ? UINT64_MAX : n;
}

void check_input_limit(const InputLimit& limit, uint64_t value, const std::string& where) {
  const uint64_t max = input_limit(limit);
  if (value > max)
    fail(ErrorCode::BadInput, where + ": " + limit.what + " " + std::to_string(value) + " is over the limit of " + std::to_string(max) +
                                  " (raise it with " + limit.variable + ")");
}

uint64_t checked_file_size(const std::string& path, const std::string& cannot, const InputLimit& limit) {
  namespace fs = std::filesystem;
  auto refuse = [&](const std::string& why) { fail(ErrorCode::BadInput, path + ": " + cannot + " (" + why + ")"); };
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) refuse("no such file");
  if (fs::is_directory(st)) refuse("it is a directory");
  if (!fs::is_regular_file(st)) refuse("not a regular file: a device, pipe or socket has no size to check");
  const uint64_t size = fs::file_size(path, ec);
  if (ec) refuse("its size cannot be read: " + ec.message());
  check_input_limit(limit, size, path);
  return size;
}

namespace {

template <class Container>
Container read_whole(const std::string& path, const std::string& cannot, const InputLimit& limit) {
  const uint64_t size = checked_file_size(path, cannot, limit);
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(ErrorCode::BadInput, path + ": " + cannot + " (no permission to read it)");
  Container out(size, 0);
  f.read(reinterpret_cast<char*>(out.data()), std::streamsize(size));
  if (uint64_t(f.gcount()) != size) fail(ErrorCode::BadInput, path + ": read " + std::to_string(f.gcount()) + " of " + std::to_string(size) + " bytes");
  return out;
}

}  // namespace

std::string read_text_file(const std::string& path, const std::string& cannot, const InputLimit& limit) {
  return read_whole<std::string>(path, cannot, limit);
}

std::vector<uint8_t> read_binary_file(const std::string& path, const std::string& cannot, const InputLimit& limit) {
  return read_whole<std::vector<uint8_t>>(path, cannot, limit);
}

MappedFile::MappedFile(const std::string& path, const std::string& cannot, const InputLimit& limit) {
  size_ = checked_file_size(path, cannot, limit);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(ErrorCode::BadInput, path + ": " + cannot + " (" + std::strerror(errno) + ")");
  if (size_ == 0) {
    ::close(fd);
    return;
  }
  void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the file
  if (p == MAP_FAILED) fail(ErrorCode::BadInput, path + ": " + cannot + " (cannot map it: " + std::strerror(err) + ")");
  data_ = static_cast<const uint8_t*>(p);
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(const_cast<uint8_t*>(data_), size_);
}

void check_json_nesting(std::string_view json, const std::string& where, uint64_t max_depth) {
  const uint64_t max = max_depth ? max_depth : input_limit(kNestingDepth);
  uint64_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max) {
        const size_t line_start = json.rfind('\n', i);
        const size_t line = 1 + size_t(std::count(json.begin(), json.begin() + i, '\n'));
        const size_t column = i - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
        fail(ErrorCode::BadInput, where + ":" + std::to_string(line) + ":" + std::to_string(column) + ": nesting deeper than " +
                                      std::to_string(max) + " levels" +
                                      (max_depth ? std::string() : std::string(" (raise the limit with ") + kNestingDepth.variable + ")"));
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

}  // namespace weft
