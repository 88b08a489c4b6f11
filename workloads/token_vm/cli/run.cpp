// weft token-vm run: a workflow (UDPL prompts + flow, or a saved JSON workflow) over a batch of
// streams with a scripted, seeded-random or device-sampled token source; prints per stream the
// decisions, what the model saw and the extractions.
// weft token-vm fuzz-diff: the randomized device-vs-reference check (differential.h) at scale.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include <weft/weft.h>

#include "calculator.h"
#include "cli.h"
#include "device_vm.h"
#include "differential.h"
#include "machine.h"
#include "random_workflow.h"
#include "reference.h"
#include "token_script.h"
#include "token_vm_cli.h"
#include "source.h"

namespace weft::token_vm::cli_commands {
namespace {

using cli::u32;

std::string quoted(const std::string& s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') o += std::string("\\") + char(c);
    else if (c == '\n') o += "\\n";
    else if (c < 32 || c >= 127) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      o += buf;
    } else o += char(c);
  }
  return o + "\"";
}

// One line of model text per stream (frontend/token_script.h).
std::vector<std::string> read_script(const std::string& path) {
  if (path.empty()) fail(ErrorCode::BadInput, "--tokens scripted needs a FILE");
  return parse_token_script(read_text_file(path, "cannot open"), path);
}

// `--tokens scripted FILE`: the file follows the mode word; give it its own option.
std::vector<char*> split_scripted(std::vector<char*> args, std::vector<std::string>& storage) {
  storage.reserve(2);
  for (size_t i = 0; i + 2 < args.size(); ++i)
    if (std::string(args[i]) == "--tokens" && std::string(args[i + 1]) == "scripted" && std::string(args[i + 2]).rfind("--", 0) != 0) {
      storage = {"--tokens-file", args[i + 2]};
      args[i + 2] = storage[1].data();
      args.insert(args.begin() + long(i) + 2, storage[0].data());
      break;
    }
  return args;
}

void print_results(Machine& m, const Workflow& w) {
  const auto ex = m.extract();
  const auto seq = m.generative_sequence();
  const auto dec = m.decisions();
  const auto st = m.stream_status();
  static const char* const kStatus[] = {"RUNNING", "WAIT_TOOL", "DONE"};
  for (uint32_t b = 0; b < m.batch(); ++b) {
    std::printf("stream %u: %s\n  decisions:", b, kStatus[std::min<uint32_t>(st[b], 2)]);
    for (uint32_t z : dec[b]) {
      const Zone& zone = w.zones[z];
      std::printf(" %u", z);
      if (zone.sequence < w.sequences.size()) std::printf("(%s)", w.sequences[zone.sequence].c_str());
    }
    std::printf("\n  model saw: %s\n", quoted(seq[b]).c_str());
    for (const auto& [name, text] : ex[b]) std::printf("  %s: %s\n", name.c_str(), quoted(text).c_str());
  }
}

}  // namespace

int run(int argc, char** argv) {
  std::vector<std::pair<std::string, std::string>> resources;
  std::vector<std::string> storage;
  std::vector<char*> rest = split_scripted(cli_source::take_resources(argc, argv, resources), storage);
  const cli::Args a = cli::parse(int(rest.size()), rest.data(), 1,
                                 {"program", "tokenizer", "match", "pad", "batch", "steps", "tokens", "tokens-file", "seed",
                                  "steps-per-submit", "feed", "backend", "device"},
                                 {"check-reference"});
  if (a.positional.size() != 2) fail(ErrorCode::BadInput, std::string("run takes one prompt file, folder or WORKFLOW.json\n") + kUsage);
  const cli_source::Loaded l = cli_source::load(cli_source::source_from(a, resources));
  for (const std::string& warning : l.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  const Workflow& w = l.workflow;
  const Tokenizer& tok = *l.tokenizer;

  VmConfig c;
  c.batch = u32(a, "batch", 4);
  if (c.batch == 0) fail(ErrorCode::BadInput, "--batch must be at least 1");
  if (w.match_mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(tok);
  const uint32_t steps = u32(a, "steps", 2048), seed = u32(a, "seed", 1);
  const std::string source = a.get("tokens", "random");
  const std::string backend = a.get("backend", "device");
  if (source != "scripted" && source != "random" && source != "sampler")
    fail(ErrorCode::BadInput, "--tokens must be scripted, random or sampler, got '" + source + "'");
  const uint32_t per_submit = source == "scripted" ? 1 : u32(a, "steps-per-submit", 8);
  if (per_submit == 0) fail(ErrorCode::BadInput, "--steps-per-submit must be at least 1");
  const std::vector<std::string> script = source == "scripted" ? read_script(a.get("tokens-file")) : std::vector<std::string>{};

  std::unique_ptr<weft::Device> dev;
  std::unique_ptr<Backend> be;
  if (backend == "device") {
    weft::DeviceOptions o;
    o.select = a.get("device");
    dev = weft::Device::open(o);
    be = std::make_unique<DeviceVm>(*dev, w, c, DeviceVmOptions{per_submit, source == "sampler" ? tok.vocab_size() : 0});
  } else if (backend == "cpu") {
    be = std::make_unique<Reference>(w, c);
  } else {
    fail(ErrorCode::BadInput, "--backend must be device or cpu, got '" + backend + "'");
  }
  const char* backend_name = be->name();
  Machine m(w, tok, std::move(be));
  // --check-reference: the CPU reference gets every host call the device gets, and must end
  // with the same per-step records and state.
  const bool check = a.flag("check-reference");
  if (check && backend != "device") fail(ErrorCode::BadInput, "--check-reference compares the device backend with the CPU reference");
  std::unique_ptr<Machine> ref = check ? std::make_unique<Machine>(w, tok, std::make_unique<Reference>(w, c)) : nullptr;
  const auto both = [&](auto&& call) {
    call(m);
    if (ref) call(*ref);
  };
  both([&](Machine& x) {
    for (const std::string& t : w.tools) x.set_tool(t, builtin_tool(t));
    if (a.options.count("feed"))
      for (uint32_t b = 0; b < c.batch; ++b) x.feed(b, a.get("feed"));
  });

  uint64_t tool_calls = 0;
  const auto resolve = [&] {
    tool_calls += m.resolve_callbacks();
    if (ref) ref->resolve_callbacks();
  };
  if (source == "scripted") {
    std::vector<std::vector<Token>> lines;
    for (const std::string& s : script) {
      lines.push_back(tok.encode(s));
      if (lines.back().empty()) fail(ErrorCode::BadInput, a.get("tokens-file") + ": a line encodes to no token");
    }
    std::vector<size_t> cursor(c.batch, 0);
    for (uint32_t done = 0; done < steps && !m.done(); ++done) {
      std::vector<Token> t(c.batch);
      for (uint32_t b = 0; b < c.batch; ++b) {
        const std::vector<Token>& l = lines[b % lines.size()];
        t[b] = l[cursor[b] % l.size()];
      }
      both([&](Machine& x) { x.step(t); });
      for (uint32_t b = 0; b < c.batch; ++b) {
        const uint32_t src = m.status()[b].back().source();
        if (src == TVM_SRC_SAMPLED || src == TVM_SRC_TIMEOUT) ++cursor[b];
      }
      resolve();
    }
  } else if (source == "random") {
    std::mt19937 rng(seed);
    const RandomWorkflow rw{w, {}};
    for (uint32_t done = 0; done < steps && !m.done(); done += per_submit) {
      const uint32_t k = std::min(per_submit, steps - done);
      const std::vector<Token> t = random_tokens(rng, rw, c.batch, k);
      both([&](Machine& x) { x.run(t, k); });
      resolve();
    }
  } else {
    // Fixed logits favouring the workflow's pattern tokens and some text; the seed varies the
    // draws. The pad token is never drawn (more than 16 octaves below the maximum).
    const uint32_t V = tok.vocab_size();
    std::vector<float> logits(size_t(c.batch) * V, -4.0f);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 2.0f);
    const std::vector<Token> text = tok.encode("abc 0123456789+*");
    for (uint32_t b = 0; b < c.batch; ++b) {
      for (Token t : w.pattern_tokens)
        if (t < V) logits[size_t(b) * V + t] = u(rng);
      for (Token t : text) logits[size_t(b) * V + t] = u(rng);
      if (w.pad_token < V) logits[size_t(b) * V + w.pad_token] = -1e30f;
    }
    for (uint32_t done = 0; done < steps && !m.done(); done += per_submit) {
      const uint32_t k = std::min(per_submit, steps - done);
      both([&](Machine& x) { x.run_sampler(logits, V, SamplerConfig{TVM_SAMPLE_QUANTIZED, seed, 23.0831f}, k); });
      resolve();
    }
  }

  std::printf("workflow %s: %zu zones, %u streams, %s backend, %s tokens, %llu steps, %llu tool calls\n", a.positional[1].c_str(),
              w.zones.size(), c.batch, backend_name, source.c_str(), (unsigned long long)m.steps_taken(),
              (unsigned long long)tool_calls);
  print_results(m, w);
  if (ref) {
    if (const std::string diff = difference(*ref, m); !diff.empty()) {
      std::printf("reference check: DIFFERENT: %s\n", diff.c_str());
      return 1;
    }
    std::printf("reference check: the CPU reference took the same %llu steps, identical records and final state\n",
                (unsigned long long)ref->steps_taken());
  }
  return 0;
}

int fuzz_diff(int argc, char** argv) {
  const cli::Args a = cli::parse(argc, argv, 2, {"runs", "batch", "steps", "seed", "device"}, {});
  const uint32_t runs = u32(a, "runs", 500), batch = u32(a, "batch", 64), steps = u32(a, "steps", 64), seed = u32(a, "seed", 1);
  if (batch == 0 || steps == 0) fail(ErrorCode::BadInput, "--batch and --steps must be at least 1");
  weft::DeviceOptions o;
  o.select = a.get("device");
  auto dev = weft::Device::open(o);
  DifferentialStats stats;
  uint32_t sampler_runs = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (uint32_t k = 0; k < runs; ++k) {
    // Runs 6 and 7 of every 8 (token and byte matching) draw their tokens with the samplers,
    // the device kernel alternating every 8 runs.
    DifferentialRun run{seed + k, k % 2 ? MatchMode::Byte : MatchMode::Token, batch, steps, std::array<uint32_t, 3>{1, 4, 16}[k % 3]};
    run.sampler = k % 8 >= 6;
    run.sampler_kernel = (k / 8) % 2 ? SamplerKernel::PerRow : SamplerKernel::PerStream;
    sampler_runs += run.sampler;
    if (const std::string diff = differential_run(*dev, run, &stats); !diff.empty()) {
      std::printf("DIFFERENT: run %u (seed %u, %s matching, %u steps per submission, %s): %s\n", k, run.seed,
                  run.mode == MatchMode::Byte ? "byte" : "token", run.steps_per_submit,
                  !run.sampler ? "given tokens" : run.sampler_kernel == SamplerKernel::PerStream ? "per-stream sampler" : "per-row sampler",
                  diff.c_str());
      return 1;
    }
    if ((k + 1) % 500 == 0) std::fprintf(stderr, "  %u/%u runs equal\n", k + 1, runs);
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%u random workflows (%u with sampled tokens) x %u streams x %u steps (seeds %u..%u) on %s: device == reference bit-exact\n"
              "  %llu stream runs, %llu zones, %llu transitions, %llu tool calls, %llu feed tokens, %llu waiting steps; %.1f s\n",
              runs, sampler_runs, batch, steps, seed, seed + runs - 1, dev->info().name.c_str(), (unsigned long long)stats.streams,
              (unsigned long long)stats.zones, (unsigned long long)stats.transitions, (unsigned long long)stats.calls,
              (unsigned long long)stats.feed_tokens, (unsigned long long)stats.waits, s);
  return 0;
}

}  // namespace weft::token_vm::cli_commands
