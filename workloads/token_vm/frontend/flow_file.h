// The flow file: a program (flow.h) written as TOML, for the CLI and manifests.
//
//   flow = [
//     { run = "intro" },
//     { loop = "decide", min = 1, max = 3, body = [ { run = "think" } ] },
//     { when = "check", then = [ { run = "accept" } ], else = [ { run = "revise" } ] },
//     { capture = "ask", tool = "calc" },
//     { feed = "answer" },
//     { subroutine = "wrap_up" },
//     { extract = "final", tags = ["answer"] },
//   ]
//   [subroutines]
//   wrap_up = [ { run = "summary" } ]
//
// Errors throw weft::Error(BadInput) naming the file, the line and the step (flow[2].body[0]).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "flow.h"

namespace weft::token_vm {

Program parse_flow(std::string_view text, const std::string& path, std::shared_ptr<const Prompts> prompts);
Program load_flow(const std::string& path, std::shared_ptr<const Prompts> prompts);

}  // namespace weft::token_vm
