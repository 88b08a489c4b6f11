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

// Rewrites TOML text so that no byte above 0x7F reaches the parser, meaning the same: strings
// become basic strings with \u escapes, comments lose their non-ASCII bytes (they mean nothing).
class TomlAscii {
 public:
  TomlAscii(const std::string& text, const std::string& path) : text_(text), path_(path) { out_.reserve(text.size()); }

  std::string run() {
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '#') comment();
      else if (c == '"' || c == '\'') string(c);
      else if (high(c)) refuse("a non-ASCII character outside a string or comment");
      else out_ += c, ++i_;
    }
    return std::move(out_);
  }

 private:
  static bool high(char c) { return static_cast<unsigned char>(c) >= 0x80; }

  [[noreturn]] void refuse(const char* what) const {
    size_t line = 1, column = 1;
    for (size_t k = 0; k < i_; ++k) text_[k] == '\n' ? (++line, column = 1) : ++column;
    fail(ErrorCode::BadInput, path_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": TOML syntax error: " + what);
  }

  size_t run_of(char quote) const {
    size_t r = 0;
    while (i_ + r < text_.size() && text_[i_ + r] == quote) ++r;
    return r;
  }

  void comment() {
    for (; i_ < text_.size() && text_[i_] != '\n'; ++i_) out_ += high(text_[i_]) ? '?' : text_[i_];
  }

  void code_point() {
    const long cp = utf8_code_point(text_, i_);
    if (cp < 0) refuse("malformed UTF-8 in a string");
    char escape[16];
    std::snprintf(escape, sizeof escape, cp > 0xFFFF ? "\\U%08lX" : "\\u%04lX", cp);
    out_ += escape;
    ++i_;
  }

  // One string, written as a basic string (a literal one's backslashes and double quotes escaped).
  void string(char quote) {
    const bool multi = run_of(quote) >= 3, literal = quote == '\'';
    out_ += multi ? "\"\"\"" : "\"";
    i_ += multi ? 3 : 1;
    while (i_ < text_.size()) {
      const char c = text_[i_];
      if (c == '\n' && !multi) return;  // unterminated: the parser reports it
      if (c == quote && (!multi || run_of(quote) >= 3)) {
        // A multi-line string may end with up to two quotes of its own before the delimiter.
        const size_t own = multi ? std::min<size_t>(run_of(quote) - 3, 2) : 0;
        out_ += std::string(own, literal ? '\'' : '"') + (multi ? "\"\"\"" : "\"");
        i_ += own + (multi ? 3 : 1);
        return;
      }
      if (high(c)) code_point();
      else if (literal && (c == '\\' || c == '"')) out_ += '\\', out_ += c, ++i_;
      else if (!literal && c == '\\' && i_ + 1 < text_.size()) {
        ++i_;
        if (high(text_[i_])) refuse("a backslash before a non-ASCII character is not an escape");
        out_ += c, out_ += text_[i_++];
      } else out_ += c, ++i_;
    }
  }

  const std::string& text_;
  const std::string& path_;
  std::string out_;
  size_t i_ = 0;
};

}  // namespace

std::string toml_text_for_parser(const std::string& text, const std::string& path) { return TomlAscii(text, path).run(); }

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
