#include "source.h"

#include <cstring>

#include <weft/error.h>

#include "model_tokenizer.h"
#include "byte_tokenizer.h"
#include "flow_file.h"
#include "serialize.h"
#include "udpl.h"

namespace weft::token_vm::cli_source {

std::vector<char*> take_resources(int argc, char** argv, std::vector<std::pair<std::string, std::string>>& resources) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    std::string value;
    if (!std::strcmp(argv[i], "--resource")) {
      if (i + 1 >= argc) fail(ErrorCode::BadInput, "--resource needs a value NAME=VALUE");
      value = argv[++i];
    } else if (!std::strncmp(argv[i], "--resource=", 11)) {
      value = argv[i] + 11;
    } else {
      rest.push_back(argv[i]);
      continue;
    }
    resources.push_back(resource_of(value));
  }
  return rest;
}

std::pair<std::string, std::string> resource_of(const std::string& value) {
  const size_t eq = value.find('=');
  if (eq == std::string::npos || eq == 0) fail(ErrorCode::BadInput, "--resource expects NAME=VALUE, got '" + value + "'");
  return {value.substr(0, eq), value.substr(eq + 1)};
}

Source source_from(const weft::cli::Args& a, std::vector<std::pair<std::string, std::string>> resources) {
  if (a.positional.size() < 2) fail(ErrorCode::BadInput, "missing the prompt file, folder or WORKFLOW.json");
  return source_from(a, a.positional[1], std::move(resources));
}

Source source_from(const weft::cli::Args& a, const std::string& path, std::vector<std::pair<std::string, std::string>> resources) {
  Source s;
  s.path = path;
  s.program = a.get("program");
  s.tokenizer = a.get("tokenizer");
  s.resources = std::move(resources);
  s.match = a.get("match");
  if (!s.match.empty() && s.match != "token" && s.match != "byte")
    fail(ErrorCode::BadInput, "--match expects token or byte, got '" + s.match + "'");
  if (a.options.count("pad")) {
    const std::string p = a.get("pad");
    if (p.empty() || p.size() > 9 || p.find_first_not_of("0123456789") != std::string::npos)
      fail(ErrorCode::BadInput, "--pad expects a token id, got '" + p + "'");
    s.pad = Token(std::stoul(p));
  }
  return s;
}

bool is_saved_workflow(const std::string& path) { return path.size() > 5 && path.compare(path.size() - 5, 5, ".json") == 0; }

Loaded load(const Source& s, std::unique_ptr<Tokenizer> tokenizer) {
  Loaded out;
  if (tokenizer && !s.tokenizer.empty())
    fail(ErrorCode::BadInput, "--tokenizer " + s.tokenizer + ": the workflow is made with the model's own tokenizer");
  if (tokenizer) out.tokenizer = std::move(tokenizer);
  else if (s.tokenizer.empty()) out.tokenizer = std::make_unique<ByteTokenizer>();
  else out.tokenizer = std::make_unique<ModelTokenizer>(ModelTokenizer::load(s.tokenizer));
  if (is_saved_workflow(s.path)) {
    const char* unused = !s.program.empty() ? "--program" : !s.resources.empty() ? "--resource" : !s.match.empty() ? "--match"
                         : s.pad ? "--pad" : nullptr;
    if (unused) fail(ErrorCode::BadInput, std::string(unused) + " applies to UDPL prompts, not to the saved workflow " + s.path);
    out.workflow = load_workflow(s.path);
    check_runs_with(out.workflow, *out.tokenizer, s.path);
    return out;
  }
  auto prompts = std::make_shared<const Prompts>(load_udpl(s.path));
  out.warnings = prompts->warnings;
  const Program program = s.program.empty() ? default_program(prompts) : load_flow(s.program, prompts);
  Resources resources;
  for (const auto& [name, value] : s.resources) resources.standard[name] = resources.arguments[name] = value;
  CompileOptions options;
  options.match_mode = s.match == "byte" ? MatchMode::Byte : MatchMode::Token;
  options.pad_token = s.pad;
  out.workflow = program.compile(*out.tokenizer, resources, options, &out.warnings);
  return out;
}

}  // namespace weft::token_vm::cli_source
