// weft tokenvm compile: UDPL prompt files (+ a flow file) -> the compiled workflow, printed zone
// by zone (--dump) and/or drawn as Graphviz (--dot FILE). Lint failures throw weft::Error,
// which main() prints and turns into exit status 1; lint warnings go to stderr.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <weft/error.h>

#include "bpe_tokenizer.h"
#include "byte_tokenizer.h"
#include "flow_file.h"
#include "render.h"
#include "udpl.h"

namespace {

using namespace weft;
using namespace weft::token_vm;

const char* kCompileUsage =
    "usage: weft tokenvm compile PROMPTS.toml|DIR [--program FLOW.toml] [--resource NAME=VALUE ...]\n"
    "                            [--tokenizer tokenizer.json] [--match token|byte] [--pad ID]\n"
    "                            [--dump] [--dot FILE.dot]\n"
    "  Without --program every declared sequence runs once, in order. --resource supplies the\n"
    "  standard and argument placeholders (custom resources need the C++ API). Without --tokenizer\n"
    "  the byte-level tokenizer is used.\n";

struct CompileArgs {
  std::string prompts, program, tokenizer, dot;
  std::vector<std::pair<std::string, std::string>> resources;
  MatchMode match = MatchMode::Token;
  std::optional<Token> pad;
  bool dump = false;
};

CompileArgs parse_args(int argc, char** argv) {
  CompileArgs a;
  auto value = [&](int& i, const char* name) -> std::string {
    const std::string s = argv[i];
    const size_t eq = s.find('=');
    if (eq != std::string::npos && s.rfind("--", 0) == 0) return s.substr(eq + 1);
    if (i + 1 >= argc) fail(ErrorCode::BadInput, std::string("--") + name + " needs a value");
    return argv[++i];
  };
  for (int i = 2; i < argc; ++i) {
    const std::string s = argv[i];
    const std::string name = s.rfind("--", 0) == 0 ? s.substr(2, s.find('=') == std::string::npos ? std::string::npos : s.find('=') - 2) : "";
    if (name.empty()) {
      if (!a.prompts.empty()) fail(ErrorCode::BadInput, "one prompt file or folder, got '" + a.prompts + "' and '" + s + "'");
      a.prompts = s;
    } else if (name == "program") {
      a.program = value(i, "program");
    } else if (name == "tokenizer") {
      a.tokenizer = value(i, "tokenizer");
    } else if (name == "dot") {
      a.dot = value(i, "dot");
    } else if (name == "resource") {
      const std::string r = value(i, "resource");
      const size_t eq = r.find('=');
      if (eq == std::string::npos || eq == 0) fail(ErrorCode::BadInput, "--resource expects NAME=VALUE, got '" + r + "'");
      a.resources.push_back({r.substr(0, eq), r.substr(eq + 1)});
    } else if (name == "match") {
      const std::string m = value(i, "match");
      if (m == "token") a.match = MatchMode::Token;
      else if (m == "byte") a.match = MatchMode::Byte;
      else fail(ErrorCode::BadInput, "--match expects token or byte, got '" + m + "'");
    } else if (name == "pad") {
      const std::string p = value(i, "pad");
      if (p.empty() || p.size() > 9 || p.find_first_not_of("0123456789") != std::string::npos)
        fail(ErrorCode::BadInput, "--pad expects a token id, got '" + p + "'");
      a.pad = Token(std::stoul(p));
    } else if (name == "dump" && s.find('=') == std::string::npos) {
      a.dump = true;
    } else {
      fail(ErrorCode::BadInput, "unknown option " + s + "\n" + kCompileUsage);
    }
  }
  if (a.prompts.empty()) fail(ErrorCode::BadInput, std::string("missing the prompt file or folder\n") + kCompileUsage);
  return a;
}

int compile(int argc, char** argv) {
  const CompileArgs a = parse_args(argc, argv);
  auto prompts = std::make_shared<const Prompts>(load_udpl(a.prompts));
  std::vector<std::string> warnings = prompts->warnings;
  const Program program = a.program.empty() ? default_program(prompts) : load_flow(a.program, prompts);

  std::unique_ptr<Tokenizer> tokenizer;
  if (a.tokenizer.empty()) tokenizer = std::make_unique<ByteTokenizer>();
  else tokenizer = std::make_unique<BpeTokenizer>(BpeTokenizer::load(a.tokenizer));

  Resources resources;
  for (const auto& [name, value] : a.resources) resources.standard[name] = resources.arguments[name] = value;
  CompileOptions options;
  options.match_mode = a.match;
  options.pad_token = a.pad;
  const Workflow w = program.compile(*tokenizer, resources, options, &warnings);

  for (const std::string& warning : warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  if (a.dump) std::fputs(dump_workflow(w, *tokenizer).c_str(), stdout);
  if (!a.dot.empty()) {
    std::ofstream out(a.dot, std::ios::binary);
    out << workflow_dot(w, *tokenizer);
    if (!out) fail(ErrorCode::BadInput, a.dot + ": cannot write the DOT file");
  }
  if (!a.dump)
    std::printf("%s: %zu zones, %zu forced tokens, %zu loops, %zu extractions%s\n", a.prompts.c_str(), w.zones.size(),
                w.token_data.size(), w.loops.size(), w.extractions.size(), a.dot.empty() ? "" : (", DOT in " + a.dot).c_str());
  return 0;
}

}  // namespace

int weft_cmd_tokenvm_vm(int argc, char** argv);

// `weft tokenvm VERB ...`, argv[0] = "tokenvm". The VM's verbs (run, bench) are in cmd_tokenvm_vm.cpp.
int weft_cmd_tokenvm(int argc, char** argv) {
  const std::string verb = argc > 1 ? argv[1] : "";
  if (verb == "compile") return compile(argc, argv);
  if (verb == "run" || verb == "bench") return weft_cmd_tokenvm_vm(argc, argv);
  if (verb == "help" || verb == "--help" || verb.empty()) {
    std::fputs(kCompileUsage, verb.empty() ? stderr : stdout);
    return verb.empty() ? 2 : 0;
  }
  weft::fail(weft::ErrorCode::BadInput, "unknown tokenvm command '" + verb + "' (known: compile, run, bench)");
}
