// The files users hand to Weft (manifests, models, tables, prompts, workflows, fixtures) and the
// limits that keep a hostile or mistaken input from growing memory or recursion without bound.
// One place defines every input limit; each can be raised by the environment variable the
// error names (an integer; 0 means no limit).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

struct InputLimit {
  const char* what;      // "text file size", for the error
  const char* variable;  // the environment variable that overrides it
  uint64_t fallback;     // the default
};

// Text inputs (TOML, JSON, UDPL, token scripts) are read whole and parsed in memory.
inline constexpr InputLimit kTextFileBytes{"text file size", "WEFT_MAX_TEXT_FILE_BYTES", uint64_t(256) << 20};
// Binary inputs (GGUF models, .npy arrays, checkpoints) and CSV tables.
inline constexpr InputLimit kDataFileBytes{"data file size", "WEFT_MAX_DATA_FILE_BYTES", uint64_t(64) << 30};
// What one input may expand to (repeated blocks of a prompt file, for instance).
inline constexpr InputLimit kExpandedTextBytes{"expanded text size", "WEFT_MAX_EXPANDED_TEXT_BYTES", uint64_t(256) << 20};
// Nesting of JSON / TOML documents and of the structures built from them (model containers).
inline constexpr InputLimit kNestingDepth{"nesting depth", "WEFT_MAX_NESTING_DEPTH", 256};

// The limit in force: the variable when set, else the default. BadInput for a malformed value.
uint64_t input_limit(const InputLimit& limit);

// BadInput naming `where`, the value, the limit and its variable when `value` exceeds the limit.
void check_input_limit(const InputLimit& limit, uint64_t value, const std::string& where);

// The whole file. BadInput "PATH: <cannot> (why)" when it is missing, cannot be opened or is not
// a regular file (a directory, a device such as /dev/zero, a pipe), and naming the limit when it
// is larger than the limit allows. `cannot` says what failed in the caller's words.
std::string read_text_file(const std::string& path, const std::string& cannot = "cannot open the file",
                           const InputLimit& limit = kTextFileBytes);
std::vector<uint8_t> read_binary_file(const std::string& path, const std::string& cannot = "cannot open the file",
                                      const InputLimit& limit = kDataFileBytes);
// The size of a regular file, checked the same way (for readers that stream it).
uint64_t checked_file_size(const std::string& path, const std::string& cannot, const InputLimit& limit);

// A regular file mapped read-only (large inputs go to the device without a host copy). The
// same checks and errors as read_binary_file; an empty file maps to no bytes.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path, const std::string& cannot = "cannot open the file",
                      const InputLimit& limit = kDataFileBytes);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const uint8_t* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  const uint8_t* data_ = nullptr;
  uint64_t size_ = 0;
};

// The nesting of [ ] and { } in a JSON text (outside strings), checked before a recursive parser
// or printer sees it: against `max_depth` when a format allows less, else kNestingDepth. The
// error names the line and column where the limit is passed.
void check_json_nesting(std::string_view json, const std::string& where, uint64_t max_depth = 0);

// TOML text as Debian 12's toml++ 3.3 can parse it safely: that version reaches
// __builtin_unreachable() when it asks whether a character in U+00A1..U+0499 is whitespace
// (found by fuzzing: after a number, and where a line-ending backslash trims a multi-line string).
// So no byte above 0x7F reaches it: a non-ASCII character outside a string or comment, never
// valid TOML, is BadInput naming `path`, line and column; every string becomes a basic string
// whose non-ASCII characters are \uXXXX / \UXXXXXXXX escapes (a literal string's backslashes
// and double quotes escaped too), so the parsed values are unchanged; comments lose their
// non-ASCII bytes. Malformed UTF-8 in a string and a backslash before a non-ASCII character are
// BadInput.
std::string toml_text_for_parser(const std::string& text, const std::string& path);

}  // namespace weft
