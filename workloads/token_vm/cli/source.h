// Where `weft token-vm compile|run` get their workflow: UDPL prompts (a file or a folder) with an
// optional flow file, compiled by the front end, or a workflow saved as JSON (workflow/serialize.h).
// Both come with the tokenizer they were (or are assumed to be) made with.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli.h"
#include "workflow.h"

namespace weft::token_vm::cli_source {

// The options this module reads; callers add them to their own cli::parse sets.
inline const char* const kValueOptions[] = {"program", "tokenizer", "match", "pad"};

struct Source {
  std::string path;  // PROMPTS.toml, a folder of them, or WORKFLOW.json
  std::string program, tokenizer;
  std::vector<std::pair<std::string, std::string>> resources;  // --resource NAME=VALUE, repeatable
  std::string match;  // "", token, byte
  std::optional<Token> pad;
};

// NAME=VALUE of one --resource; BadInput otherwise.
std::pair<std::string, std::string> resource_of(const std::string& value);

// Takes every `--resource NAME=VALUE` / `--resource=NAME=VALUE` out of argv (cli::Args keeps one
// value per option) and returns the rest.
std::vector<char*> take_resources(int argc, char** argv, std::vector<std::pair<std::string, std::string>>& resources);

// The source options of parsed arguments; `path` is the first positional after the verb.
Source source_from(const weft::cli::Args& args, std::vector<std::pair<std::string, std::string>> resources);
// The same with the path given (e.g. `weft attention generate MODEL --workflow PATH`).
Source source_from(const weft::cli::Args& args, const std::string& path, std::vector<std::pair<std::string, std::string>> resources);

bool is_saved_workflow(const std::string& path);  // a .json file

struct Loaded {
  Workflow workflow;
  std::unique_ptr<Tokenizer> tokenizer;  // BPE with --tokenizer, else the byte-level tokenizer
  std::vector<std::string> warnings;     // lint warnings of the UDPL files
};

// Compiles or loads. BadInput naming the file (and line/field) for anything malformed, and for
// options that do not apply (--program, --resource, --match or --pad with a saved workflow).
// With `tokenizer` (a model's own), the workflow is made with it and --tokenizer is refused.
Loaded load(const Source& source, std::unique_ptr<Tokenizer> tokenizer = nullptr);

}  // namespace weft::token_vm::cli_source
