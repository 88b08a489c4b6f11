// A built-in tool for examples and the CLI: integer arithmetic on the text a model wrote.
#pragma once

#include <string>

#include "machine.h"

namespace weft::token_vm {

// Evaluates the arithmetic expression that `text` starts with (after leading spaces): integers,
// + - * /, unary minus and parentheses, with the usual precedence; division truncates. The
// expression ends at the end of the text or at the first '[' (where a zone pattern such as
// "[EOS]" begins). Answers the value in decimal followed by "\n", or "error: WHY\n" for
// anything else (no expression, a stray character, division by zero, a 64-bit overflow):
// a model's bad expression is a normal answer, not a failure of the run.
std::string calculator(const std::string& text);

// The tools the command line offers a workflow: `calculator` (or `calc`) is calculator();
// any other name echoes what the model wrote, one line.
ToolFn builtin_tool(const std::string& name);

}  // namespace weft::token_vm
