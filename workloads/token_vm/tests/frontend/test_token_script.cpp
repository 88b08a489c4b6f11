// Token scripts (`weft token-vm run --tokens scripted FILE`): what the run command feeds its
// streams, and its refusal of a script with no line of model text.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <weft/error.h>

#include "token_script.h"

using weft::token_vm::parse_token_script;

TEST_CASE("token script: one line per stream, comments and blank lines skipped, \\n a newline") {
  const std::vector<std::string> lines =
      parse_token_script("# a comment\n first[EOS]\n\nsecond\\nline\\\nlast \\n", "model.txt");
  CHECK(lines == std::vector<std::string>{" first[EOS]", "second\nline\\", "last \n"});
  // A '#' only starts a comment at the start of a line; a line without a newline at the end counts.
  CHECK(parse_token_script("a # b\nc", "m.txt") == std::vector<std::string>{"a # b", "c"});
}

TEST_CASE("token script: no line of model text is bad input naming the file") {
  for (const std::string text : {"", "\n\n", "# only\n#comments\n"}) {
    CAPTURE(text);
    try {
      parse_token_script(text, "empty.txt");
      FAIL("accepted");
    } catch (const weft::Error& e) {
      CHECK(e.code() == weft::ErrorCode::BadInput);
      CHECK(std::string(e.what()).find("empty.txt: no line of model text (one line per stream; '#' starts a comment)") !=
            std::string::npos);
    }
  }
}
