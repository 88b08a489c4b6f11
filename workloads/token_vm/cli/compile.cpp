// weft token-vm compile: UDPL prompt files (+ a flow file) -> the compiled workflow, printed zone
// by zone (--dump), drawn as Graphviz (--dot FILE) and/or saved as JSON for `weft token-vm run`
// (--out FILE). Lint failures throw weft::Error, which main() prints and turns into exit status 1;
// lint warnings go to stderr.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <weft/error.h>

#include "render.h"
#include "serialize.h"
#include "token_vm_cli.h"
#include "source.h"

namespace weft::token_vm::cli_commands {

int compile(int argc, char** argv) {
  std::vector<std::pair<std::string, std::string>> resources;
  std::vector<char*> rest = cli_source::take_resources(argc, argv, resources);
  const cli::Args a = cli::parse(int(rest.size()), rest.data(), 1, {"program", "tokenizer", "match", "pad", "dot", "out"}, {"dump"});
  if (a.positional.size() != 2) fail(ErrorCode::BadInput, std::string("compile takes one prompt file or folder\n") + kUsage);
  const cli_source::Source source = cli_source::source_from(a, resources);
  if (cli_source::is_saved_workflow(source.path))
    fail(ErrorCode::BadInput, source.path + " is a compiled workflow already; compile takes UDPL prompts (.toml or a folder)");
  const cli_source::Loaded l = cli_source::load(source);
  const Workflow& w = l.workflow;

  for (const std::string& warning : l.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  if (a.flag("dump")) std::fputs(dump_workflow(w, *l.tokenizer).c_str(), stdout);
  const std::string dot = a.get("dot"), out = a.get("out");
  if (!dot.empty()) {
    std::ofstream f(dot, std::ios::binary);
    f << workflow_dot(w, *l.tokenizer);
    if (!f) fail(ErrorCode::BadInput, dot + ": cannot write the DOT file");
  }
  if (!out.empty()) save_workflow(w, out);
  if (!a.flag("dump"))
    std::printf("%s: %zu zones, %zu forced tokens, %zu loops, %zu extractions%s%s\n", source.path.c_str(), w.zones.size(),
                w.token_data.size(), w.loops.size(), w.extractions.size(), dot.empty() ? "" : (", DOT in " + dot).c_str(),
                out.empty() ? "" : (", workflow in " + out).c_str());
  return 0;
}

}  // namespace weft::token_vm::cli_commands
