// The verbs of `weft token-vm` (dispatched by cli.cpp), each called with argv[0] =
// "token-vm" and argv[1] = the verb.
#pragma once

namespace weft::token_vm::cli_commands {

extern const char* const kUsage;

int compile(int argc, char** argv);    // compile.cpp
int run(int argc, char** argv);        // run.cpp
int fuzz_diff(int argc, char** argv);  // run.cpp
int bench(int argc, char** argv);      // bench.cpp

}  // namespace weft::token_vm::cli_commands
