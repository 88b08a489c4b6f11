// weft: the command line. The engine's own commands (info, conformance, run, bench engine) are
// here; every workload's command comes from the registry its CMakeLists registered it in.
#include <cstdio>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "registry.h"

namespace weft {

int cmd_info(int argc, char** argv);
int cmd_conformance(int argc, char** argv);
int cmd_run(int argc, char** argv);
int cmd_tokenize(int argc, char** argv);
int cmd_bench_tokenizer(int argc, char** argv);

namespace {

const char* kEngineUsage =
    "weft — a dispatch-graph executor on fixed Vulkan bindings\n"
    "\n"
    "usage: weft <command> [options]\n"
    "  info [--device SEL] [--json]            devices, limits, features and the default choice\n"
    "  conformance [--device SEL|all] [--group NAME] [--filter TEXT] [--report FILE.json] [--junit FILE.xml]\n"
    "              [--validation] [--list]     run the conformance cases and print a table\n"
    "  bench engine|WORKLOAD [--device SEL] [--stages N] [--reps N] [--copy-mib N] [--submits N]\n"
    "                                          benchmarks as JSON lines (WORKLOAD: a command below with bench)\n"
    "  bench tokenizer --tokenizer TOKENIZER.json [--text CORPUS] [--reps N]\n"
    "                                          encoding speed against Hugging Face's tokenizers (npm)\n"
    "  bench all [--out DIR] [--device SEL] [--only A,B] [--skip A,B] [--tokenizer FILE] [--limit-s S] [--list]\n"
    "                                          every bench above, JSON lines + report.md + plots in DIR\n"
    "  run MANIFEST.toml [--device SEL] [--out DIR] [--runs N] [--dry-run]\n"
    "                                          run a workload manifest (no C++ needed)\n"
    "  tokenize TOKENIZER.json [--text TEXT | --file FILE | --decode \"ID ...\"] [--special] [--json]\n"
    "                                          ids of a text (or text of ids) with a tokenizer.json\n";

std::string usage() {
  std::string u = kEngineUsage;
  for (const cli::Command& c : registry::commands()) u += c.usage;
  u += "\nSEL is a device index or a name substring; WEFT_DEVICE sets the default the same way.\n";
  return u;
}

int cmd_bench(int argc, char** argv) {
  if (argc > 2)
    if (const cli::Command* c = registry::find_command(argv[2]); c && c->has_bench()) {
      std::vector<char*> forwarded = {argv[2], const_cast<char*>("bench")};
      for (int i = 3; i < argc; ++i) forwarded.push_back(argv[i]);
      return c->dispatch(int(forwarded.size()), forwarded.data());
    }
  if (argc > 2 && std::string(argv[2]) == "tokenizer") return cmd_bench_tokenizer(argc, argv);
  if (argc > 2 && std::string(argv[2]) == "all") return bench::bench_all(argc, argv);
  cli::Args args = cli::parse(argc, argv, 2, {"device", "stages", "reps", "copy-mib", "submits"}, {});
  const std::string which = args.positional.empty() ? "engine" : args.positional[0];
  if (which == "engine") return bench::bench_engine(*cli::open_device(args), args);
  std::string known = "all, engine, tokenizer";
  for (const cli::Command& c : registry::commands())
    if (c.has_bench()) known += ", " + c.name;
  fail(ErrorCode::BadInput, "unknown benchmark '" + which + "' (known: " + known + ")");
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) {
  using namespace weft;
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(usage().c_str(), argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "info") return cmd_info(argc, argv);
    if (command == "conformance") return cmd_conformance(argc, argv);
    if (command == "bench") return cmd_bench(argc, argv);
    if (command == "run") return cmd_run(argc - 1, argv + 1);
    if (command == "tokenize") return cmd_tokenize(argc, argv);
    if (const cli::Command* c = registry::find_command(command)) return c->dispatch(argc - 1, argv + 1);
    if (command == "--version" || command == "version") {
      std::printf("weft %s\n", WEFT_VERSION);
      return 0;
    }
    std::fprintf(stderr, "weft: unknown command '%s'\n\n%s", command.c_str(), usage().c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "weft %s: %s\n", command.c_str(), e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    // Not a bug to report but a size to change: name it as the C ABI does.
    std::fprintf(stderr, "weft %s: out of host memory: an allocation failed (smaller inputs, or the WEFT_MAX_* limits)\n",
                 command.c_str());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft %s: unexpected error: %s\n", command.c_str(), e.what());
    return 1;
  }
}
