#include "input_file.h"

#include <algorithm>
#include <cstdio>
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

namespace {

// The code point of the UTF-8 sequence at text[i] (advancing i past it), or -1 if malformed.
long utf8_code_point(const std::string& text, size_t& i) {
  const auto byte = [&](size_t k) { return k < text.size() ? static_cast<unsigned char>(text[k]) : 0u; };
  const unsigned lead = byte(i);
  const int extra = lead >= 0xF0 && lead < 0xF5 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC2 ? 1 : -1;
  if (extra < 0 || lead >= 0xF5) return -1;
  long cp = lead & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if ((extra == 2 && cp < 0x800) || (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
  i += size_t(extra);
  return cp;
}

}  // namespace

std::string toml_text_for_parser(const std::string& text, const std::string& path) {
  enum { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } state = Code;
  std::string out;
  out.reserve(text.size());
  size_t line = 1, column = 1;
  const auto refuse = [&](const char* what) {
    fail(ErrorCode::BadInput, path + ":" + std::to_string(line) + ":" + std::to_string(column) + ": TOML syntax error: " + what);
  };
  // The character a backslash escapes, copied as it is (an escape is ASCII or it is no escape).
  const auto escaped = [&](size_t& at) {
    if (at + 1 >= text.size()) return;
    if (static_cast<unsigned char>(text[at + 1]) >= 0x80) refuse("a backslash before a non-ASCII character is not an escape");
    if (text[at + 1] == '\n') line += 1, column = 0;
    out += text[++at];
    ++column;
  };
  for (size_t i = 0; i < text.size(); ++i, ++column) {
    const char c = text[i];
    const bool triple = i + 2 < text.size() && text[i + 1] == c && text[i + 2] == c;
    const size_t take = triple && (c == '"' || c == '\'') && (state == Code || state == MultiBasic || state == MultiLiteral) ? 3 : 1;
    if (c == '\n') line += 1, column = 0;
    if ((state == Basic || state == MultiBasic) && static_cast<unsigned char>(c) >= 0x80) {
      const long cp = utf8_code_point(text, i);
      if (cp < 0) refuse("malformed UTF-8 in a string");
      char escape[16];
      std::snprintf(escape, sizeof escape, cp > 0xFFFF ? "\\U%08lX" : "\\u%04lX", cp);
      out += escape;
      continue;
    }
    out.append(text, i, take);
    switch (state) {
      case Code:
        if (c == '#') state = Comment;
        else if (c == '"') state = take == 3 ? MultiBasic : Basic;
        else if (c == '\'') state = take == 3 ? MultiLiteral : Literal;
        else if (static_cast<unsigned char>(c) >= 0x80) refuse("a non-ASCII character outside a string or comment");
        break;
      case Comment: if (c == '\n') state = Code; break;
      case Basic:
        if (c == '\\') escaped(i);
        else if (c == '"' || c == '\n') state = Code;
        break;
      case Literal: if (c == '\'' || c == '\n') state = Code; break;
      case MultiBasic:
        if (c == '\\') escaped(i);
        else if (take == 3 && c == '"') state = Code;
        break;
      case MultiLiteral: if (take == 3 && c == '\'') state = Code; break;
    }
    i += take - 1, column += take - 1;
  }
  return out;
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
