// weft: the command line: info, conformance, bench, and the subcommands in kSubcommands.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"

// Workload and authoring commands, each called with argv[0] = its own name.
int weft_cmd_run(int argc, char** argv);
int weft_cmd_monty(int argc, char** argv);
int weft_cmd_gnn(int argc, char** argv);
int weft_cmd_dsp(int argc, char** argv);
int weft_cmd_game(int argc, char** argv);
int weft_cmd_physics(int argc, char** argv);
int weft_cmd_db(int argc, char** argv);
int weft_cmd_tokenvm(int argc, char** argv);
int weft_cmd_attention(int argc, char** argv);
int weft_cmd_volumetric(int argc, char** argv);
int weft_cmd_compose(int argc, char** argv);

namespace {

struct Subcommand {
  const char* name;
  int (*run)(int, char**);
  bool has_bench;  // `weft bench NAME ...` is `weft NAME bench ...`
};
const Subcommand kSubcommands[] = {
    {"run", weft_cmd_run, false},
    {"monty", weft_cmd_monty, true},
    {"gnn", weft_cmd_gnn, true},
    {"dsp", weft_cmd_dsp, true},
    {"game", weft_cmd_game, true},
    {"physics", weft_cmd_physics, true},
    {"db", weft_cmd_db, true},
    {"tokenvm", weft_cmd_tokenvm, true},
    {"attention", weft_cmd_attention, true},
    {"volumetric", weft_cmd_volumetric, true},
    {"compose", weft_cmd_compose, true},
};

const Subcommand* find_subcommand(const std::string& name) {
  for (const Subcommand& c : kSubcommands)
    if (name == c.name) return &c;
  return nullptr;
}

}  // namespace

namespace weft {
int cmd_info(int argc, char** argv);
int cmd_conformance(int argc, char** argv);

namespace {

const char* kUsage =
    "weft — a dispatch-graph executor on fixed Vulkan bindings\n"
    "\n"
    "usage: weft <command> [options]\n"
    "  info [--device SEL] [--json]            devices, limits, features and the default choice\n"
    "  conformance [--device SEL|all] [--filter TEXT] [--report FILE.json] [--junit FILE.xml]\n"
    "              [--validation] [--list]     run the conformance cases and print a table\n"
    "  bench engine|WORKLOAD [--device SEL] [--stages N] [--reps N] [--copy-mib N] [--submits N]\n"
    "                                          benchmarks as JSON lines (WORKLOAD: a command below with bench)\n"
    "  run MANIFEST.toml [--device SEL] [--out DIR] [--runs N] [--dry-run]\n"
    "                                          run a workload manifest (no C++ needed)\n"
    "  dsp demo|bench [--channels C --frame N --frames F]\n"
    "                                          streaming FFT filter chain vs FFTW\n"
    "  attention generate MODEL.gguf --prompt TEXT -n N [--temperature T --top-k K --seed S]\n"
    "  attention demo|bench|write-model       llama decoder from GGUF vs its CPU reference\n"
    "  gnn demo|bench [--nodes N --edges E --features F --layers L --seed S]\n"
    "                                          graph neural network vs its CPU reference\n"
    "  game demo|bench|solve|play [--board WxH --depth D --roots B]\n"
    "                                          batched connect-four search vs an exhaustive solver\n"
    "  physics demo|bench [--model lj|sph|both --particles N --steps S --sizes N1,N2]\n"
    "                                          particles (LJ gas, SPH dam break) vs their CPU reference\n"
    "  db query --table NAME=FILE.csv ... \"SQL\" [--format table|csv] [--header] [--explain] [--check]\n"
    "  db demo|bench [--orders N] [--rows N,N]  SQL on CSV tables on the device, checked against SQLite\n"
    "  tokenvm compile PROMPTS.toml|DIR [--program FLOW.toml] [--resource NAME=VALUE] [--tokenizer tokenizer.json]\n"
    "              [--match token|byte] [--dump] [--dot FILE] [--out WORKFLOW.json]\n"
    "                                          UDPL prompts + flow -> token VM zone table (lint, dump, DOT, save)\n"
    "  tokenvm run PROMPTS.toml|DIR|WORKFLOW.json [--program FLOW.toml] [--batch B] [--steps N]\n"
    "              [--tokens scripted FILE|random|sampler] [--seed S] [--steps-per-submit N] [--backend device|cpu]\n"
    "                                          run a workflow over a batch, print extractions and decisions\n"
    "  tokenvm fuzz-diff [--runs N] [--seed S] device vs CPU reference on random workflows and tokens\n"
    "  volumetric run MODEL.json|dna MODEL.json|bench [--passes N --ticks T --train STEPS --save FILE]\n"
    "                                          grid-of-layers networks in 21 numeric types vs the CPU reference\n"
    "  compose NAME|bench [--only NAME --runs R]  workloads composed into one program, one submit\n"
    "                                          (NAME: game-physics, dsp-llm, gnn-db, agent-retrieval,\n"
    "                                          model-tokenvm), vs the parts host-orchestrated\n"
    "  monty replay RUN_DIR [--objects DIR] [--backend cpu|vulkan]\n"
    "                                          replay a Monty fixture run, print errors per step\n"
    "\n"
    "SEL is a device index or a name substring; WEFT_DEVICE sets the default the same way.\n";

int cmd_bench(int argc, char** argv) {
  if (argc > 2)
    if (const Subcommand* c = find_subcommand(argv[2]); c && c->has_bench) {
      std::vector<char*> forwarded = {argv[2], const_cast<char*>("bench")};
      for (int i = 3; i < argc; ++i) forwarded.push_back(argv[i]);
      return c->run(int(forwarded.size()), forwarded.data());
    }
  cli::Args args = cli::parse(argc, argv, 2, {"device", "stages", "reps", "copy-mib", "submits"}, {});
  const std::string which = args.positional.empty() ? "engine" : args.positional[0];
  DeviceOptions o;
  o.select = args.get("device");
  auto dev = Device::open(o);
  if (which == "engine") return bench::bench_engine(*dev, args);
  std::string known = "engine";
  for (const Subcommand& c : kSubcommands)
    if (c.has_bench) known += std::string(", ") + c.name;
  fail(ErrorCode::BadInput, "unknown benchmark '" + which + "' (known: " + known + ")");
}

}  // namespace
}  // namespace weft

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "help") || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(weft::kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string command = argv[1];
  try {
    if (command == "info") return weft::cmd_info(argc, argv);
    if (command == "conformance") return weft::cmd_conformance(argc, argv);
    if (command == "bench") return weft::cmd_bench(argc, argv);
    if (const Subcommand* c = find_subcommand(command)) return c->run(argc - 1, argv + 1);
    if (command == "--version" || command == "version") {
      std::printf("weft %s\n", WEFT_VERSION);
      return 0;
    }
    std::fprintf(stderr, "weft: unknown command '%s'\n\n%s", command.c_str(), weft::kUsage);
    return 2;
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "weft %s: %s\n", command.c_str(), e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "weft %s: unexpected error: %s\n", command.c_str(), e.what());
    return 1;
  }
}
