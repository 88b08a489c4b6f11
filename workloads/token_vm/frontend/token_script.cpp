#include "token_script.h"

#include <sstream>

#include <weft/error.h>

namespace weft::token_vm {

namespace {

// The line with each "\n" (backslash, n) turned into a newline.
std::string unescape_newlines(const std::string& line) {
  std::string text;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'n') {
      text += '\n';
      ++i;
    } else {
      text += line[i];
    }
  }
  return text;
}

}  // namespace

std::vector<std::string> parse_token_script(const std::string& text, const std::string& path) {
  std::istringstream f(text);
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);) {
    if (l.empty() || l[0] == '#') continue;
    lines.push_back(unescape_newlines(l));
  }
  if (lines.empty()) fail(ErrorCode::BadInput, path + ": no line of model text (one line per stream; '#' starts a comment)");
  return lines;
}

}  // namespace weft::token_vm
