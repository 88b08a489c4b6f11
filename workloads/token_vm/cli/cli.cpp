// weft token-vm compile|run|fuzz-diff|bench: the token VM workload from the command line.
#include <cstdio>
#include <string>

#include <weft/error.h>

#include "cli.h"
#include "token_vm_cli.h"

namespace weft::token_vm::cli_commands {

const char* const kUsage =
    "usage: weft token-vm compile PROMPTS.toml|DIR [--program FLOW.toml] [--resource NAME=VALUE ...]\n"
    "                            [--tokenizer tokenizer.json] [--match token|byte] [--pad ID]\n"
    "                            [--dump] [--dot FILE.dot] [--out WORKFLOW.json]\n"
    "       weft token-vm run PROMPTS.toml|DIR|WORKFLOW.json [compile's --program/--resource/--tokenizer/--match/--pad]\n"
    "                        [--batch B] [--steps N] [--tokens scripted FILE|random|sampler] [--seed S]\n"
    "                        [--steps-per-submit N] [--feed TEXT] [--backend device|cpu] [--check-reference]\n"
    "                        [--device SEL]\n"
    "       weft token-vm fuzz-diff [--runs N] [--batch B] [--steps N] [--seed S] [--device SEL]\n"
    "       weft token-vm bench [--device SEL] [--steps N] [--reps R] [--vocab V] [--batches B,B,...]   (also: weft bench token-vm)\n"
    "  compile: without --program every declared sequence runs once, in order. --resource supplies\n"
    "    the standard and argument placeholders. Without --tokenizer the byte-level tokenizer is used.\n"
    "    --out saves the compiled workflow as JSON (what run also accepts).\n"
    "  run: B streams (default 4) for N steps (default 2048) or until every stream is DONE; prints\n"
    "    per stream its status, the zones it decided on, what the model saw and the extractions.\n"
    "    --tokens scripted FILE: line i is what stream i's model writes (lines reused cyclically when\n"
    "        B exceeds them; \\n in a line is a newline; a used-up line starts again); it advances\n"
    "        only on steps that sample, one step per submission, like a host model.\n"
    "    --tokens random (default): seeded tokens biased to spell the workflow's patterns,\n"
    "        --steps-per-submit steps at a time (default 8).\n"
    "    --tokens sampler: the device samples every step from fixed seeded logits,\n"
    "        --steps-per-submit steps per submission with no host round trip.\n"
    "    Tools: 'calculator' and 'calc' evaluate integer arithmetic (+ - * / parentheses); any other\n"
    "        tool echoes its text. --feed TEXT queues one input message per stream.\n"
    "    --check-reference: the CPU reference runs alongside the device with the same host calls;\n"
    "        exits 1 unless every step's record and the final state are identical.\n"
    "  fuzz-diff: N random workflows (default 500) x B streams (64) x steps (64), alternately\n"
    "    token and byte matching, 1/4/16 steps per submission, every 4th run with tokens drawn by the\n"
    "    samplers (both device kernels in turn): device vs the CPU reference,\n"
    "    bit-exact per step and final state; exits 1 on the first difference.\n"
    "  bench: JSON lines, per-step cost at B = 64, 1024, 4096, 16384 (--batches) vs the CPU reference; the sampler\n"
    "    rows use V logits per stream (default 256), with each sampler kernel.\n";

}  // namespace weft::token_vm::cli_commands

// `weft token-vm VERB ...`, argv[0] = "token-vm".
static int weft_cmd_token_vm(int argc, char** argv) {
  using namespace weft::token_vm::cli_commands;
  const std::string verb = argc > 1 ? argv[1] : "";
  if (verb == "compile") return compile(argc, argv);
  if (verb == "run") return run(argc, argv);
  if (verb == "fuzz-diff") return fuzz_diff(argc, argv);
  if (verb == "bench") return bench(argc, argv);
  if (verb == "help" || verb == "--help" || verb.empty()) {
    std::fputs(kUsage, verb.empty() ? stderr : stdout);
    return verb.empty() ? 2 : 0;
  }
  weft::fail(weft::ErrorCode::BadInput, "unknown token-vm command '" + verb + "' (known: compile, run, fuzz-diff, bench)\n" + kUsage);
}

// `weft help` lines of this command.
const char* const kHelpLines =
    "  token-vm compile PROMPTS.toml|DIR [--program FLOW.toml] [--resource NAME=VALUE] [--tokenizer tokenizer.json]\n"
    "              [--match token|byte] [--dump] [--dot FILE] [--out WORKFLOW.json]\n"
    "                                          UDPL prompts + flow -> token VM zone table (lint, dump, DOT, save)\n"
    "  token-vm run PROMPTS.toml|DIR|WORKFLOW.json [--program FLOW.toml] [--batch B] [--steps N]\n"
    "              [--tokens scripted FILE|random|sampler] [--seed S] [--steps-per-submit N] [--backend device|cpu]\n"
    "                                          run a workflow over a batch, print extractions and decisions\n"
    "  token-vm fuzz-diff [--runs N] [--seed S] device vs CPU reference on random workflows and tokens (alias: tokenvm)\n";

WEFT_CLI_COMMAND(token_vm) {
  // Each verb parses its own options (argv[1] is the verb).
  return {.name = "token-vm", .aliases = {"tokenvm"},
          .usage = kHelpLines, .run = weft_cmd_token_vm, .bench = true};
}
