// Input files and limits (engine/input_file.h): what a hostile or mistaken path or size gets.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <doctest/doctest.h>

#include <weft/error.h>
#include <weft/input_file.h>

#include "device_under_test.h"

using namespace weft;

namespace {

// The message of the BadInput error `f` throws.
template <class F>
std::string bad_input(F&& f) {
  CHECK(test::error_code_of(f) == ErrorCode::BadInput);
  return test::error_message_of(f);
}


struct TempFile {
  std::string path = (std::filesystem::temp_directory_path() / ("weft-input-" + std::to_string(::getpid()))).string();
  explicit TempFile(const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
  ~TempFile() { std::filesystem::remove(path); }
};

}  // namespace

TEST_CASE("a device file such as /dev/zero is refused before anything is read") {
  const std::string msg = bad_input([] { read_text_file("/dev/zero", "cannot read the manifest"); });
  CHECK(test::contains(msg, "/dev/zero: cannot read the manifest (not a regular file"));
  CHECK(test::contains(bad_input([] { read_binary_file("/dev/zero"); }), "not a regular file"));
}

TEST_CASE("a directory and a missing file are refused, naming the path and why") {
  const std::string dir = std::filesystem::temp_directory_path().string();
  CHECK(test::contains(bad_input([&] { read_binary_file(dir, "cannot open the model"); }), dir + ": cannot open the model (it is a directory)"));
  CHECK(test::contains(bad_input([] { read_text_file("/nonexistent/x.toml"); }), "/nonexistent/x.toml: cannot open the file (no such file)"));
}

TEST_CASE("a file over the size limit is refused, naming the limit and the variable that raises it") {
  const TempFile f(std::string(100, 'x'));
  const test::ScopedEnv e("WEFT_MAX_TEXT_FILE_BYTES", "64");
  const std::string msg = bad_input([&] { read_text_file(f.path); });
  CHECK(test::contains(msg, "text file size 100 is over the limit of 64"));
  CHECK(test::contains(msg, "WEFT_MAX_TEXT_FILE_BYTES"));
}

TEST_CASE("a file within the limit is read whole") {
  const TempFile f("hello\nworld");
  const test::ScopedEnv e("WEFT_MAX_TEXT_FILE_BYTES", "11");
  CHECK(read_text_file(f.path) == "hello\nworld");
  CHECK(read_binary_file(f.path).size() == 11);
}

TEST_CASE("a malformed limit variable is an error, not a silent default") {
  const test::ScopedEnv e("WEFT_MAX_TEXT_FILE_BYTES", "lots");
  CHECK(test::contains(bad_input([] { input_limit(kTextFileBytes); }), "WEFT_MAX_TEXT_FILE_BYTES='lots'"));
}

TEST_CASE("JSON nested past the limit is refused with its line and column; strings do not count") {
  const std::string deep = "{\"a\":\n" + std::string(300, '[') + std::string(300, ']') + "}";
  CHECK(test::contains(bad_input([&] { check_json_nesting(deep, "m.json"); }), "m.json:2:256: nesting deeper than 256 levels"));
  CHECK(test::contains(bad_input([&] { check_json_nesting(deep, "m.json", 8); }), "nesting deeper than 8 levels"));
  const std::string quoted = "{\"a\": \"" + std::string(1000, '[') + "\\\"[[[\"}";
  CHECK_NOTHROW(check_json_nesting(quoted, "q.json"));
  const test::ScopedEnv e("WEFT_MAX_NESTING_DEPTH", "1000");
  CHECK_NOTHROW(check_json_nesting(deep, "m.json"));
}

// Debian 12's toml++ 3.3 reaches __builtin_unreachable() on some non-ASCII characters (found by
// fuzzing the manifest parser), so TOML reaches it as ASCII text that means the same.
TEST_CASE("TOML text reaches the parser as ASCII that means the same") {
  using weft::toml_text_for_parser;
  CHECK(toml_text_for_parser("x = \"caf\xc3\xa9 \xf0\x9f\x99\x82\"\n", "t.toml") == "x = \"caf\\u00E9 \\U0001F642\"\n");
  CHECK(toml_text_for_parser("x = 'a\\b\"\xc3\xa9'\n", "t.toml") == "x = \"a\\\\b\\\"\\u00E9\"\n");  // literal -> basic
  CHECK(toml_text_for_parser("x = '''a\n\\''''\n", "t.toml") == "x = \"\"\"a\n\\\\'\"\"\"\n");     // its own quote kept
  CHECK(toml_text_for_parser("x = \"\"\"\\\n  \xc3\xa9\"\"\"\"\n", "t.toml") == "x = \"\"\"\\\n  \\u00E9\"\"\"\"\n");
  CHECK(toml_text_for_parser("# caf\xc3\xa9\nx = 1 # \xce\xa2\n", "t.toml") == "# caf??\nx = 1 # ??\n");
  CHECK(toml_text_for_parser("x = 1\n", "t.toml") == "x = 1\n");
  for (const auto& [text, where] : {std::pair<const char*, const char*>{"x = 1\ny = 1.\xce\xa2\n", "t.toml:2:7:"},
                                   {"x = \"\xc3\x28\"\n", "t.toml:1:6:"},
                                   {"x = \"\\\xc3\xa9\"\n", "t.toml:1:7:"}}) {
    INFO(text);
    try {
      toml_text_for_parser(text, "t.toml");
      FAIL("accepted");
    } catch (const weft::Error& e) {
      CHECK(e.code() == weft::ErrorCode::BadInput);
      CHECK(std::string(e.what()).find(where) != std::string::npos);
    }
  }
}
