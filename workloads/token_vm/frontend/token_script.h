// Token scripts: the model text `weft token-vm run --tokens scripted FILE` feeds its streams
// (stream b takes line b modulo the line count). One line of model text per stream; blank lines
// and lines starting with '#' are skipped; "\n" in a line stands for a newline.
#pragma once

#include <string>
#include <vector>

namespace weft::token_vm {

// The script's lines of model text, in order. BadInput "<path>: no line of model text ..." when
// none is left; `path` names the text in that error.
std::vector<std::string> parse_token_script(const std::string& text, const std::string& path);

}  // namespace weft::token_vm
