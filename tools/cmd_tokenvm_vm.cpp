// weft tokenvm run|bench: the token VM (workloads/token_vm/vm) over a compiled workflow.
//
//   weft tokenvm run WORKFLOW.json [--batch B] [--steps N] [--tokens scripted FILE|random|sampler]
//                    [--seed S] [--steps-per-submit N] [--feed TEXT] [--backend device|cpu] [--device SEL]
//     runs the workflow over B streams and prints, per stream, its status, the zones visited,
//     what the model saw and the extractions.
//   weft tokenvm bench [--device SEL] [--steps N] [--reps R]   (= weft bench tokenvm)
//     JSON lines: GPU-timestamp cost per step at B = 64, 256, 1024, 4096, one step per
//     submission and N steps per submission (scripted tokens, and the device sampler), against
//     the CPU reference in the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "device_vm.h"
#include "machine.h"
#include "random_workflow.h"
#include "reference.h"
#include "serialize.h"
#include "test_tokenizer.h"

namespace {

using namespace weft;
using namespace weft::token_vm;

const char* kUsage =
    "usage: weft tokenvm run WORKFLOW.json [--batch B] [--steps N] [--tokens scripted FILE|random|sampler]\n"
    "                        [--seed S] [--steps-per-submit N] [--feed TEXT] [--backend device|cpu] [--device SEL]\n"
    "       weft tokenvm bench [--device SEL] [--steps N] [--reps R]\n"
    "  run: B streams (default 4) for N steps (default 256) or until every stream is DONE.\n"
    "    --tokens scripted FILE: each line is what one stream's model writes (lines reused cyclically,\n"
    "        each line from its start again when used up); it advances only on steps that sample,\n"
    "        so it runs one step per submission, like a host model would.\n"
    "    --tokens random (default): seeded tokens biased to spell the workflow's patterns, given\n"
    "        --steps-per-submit steps at a time (default 8).\n"
    "    --tokens sampler: the device samples each step from fixed seeded logits (quantized\n"
    "        sampling), --steps-per-submit steps per submission with no host round trip.\n"
    "    Tools: 'calc' answers the sum of the integers in its captured text; any other tool echoes\n"
    "        its text. Answers end with a newline. --feed TEXT queues one input message per stream.\n"
    "    The tokenizer is a byte-level stand-in (token = byte, pad = 256).\n"
    "  bench: JSON lines, per-step cost at B = 64, 256, 1024, 4096 vs the CPU reference\n";

uint32_t u32(const cli::Args& a, const char* name, uint32_t fallback) {
  const uint64_t v = a.get_uint(name, fallback);
  if (v > 0xFFFFFFFFu) fail(ErrorCode::BadInput, std::string("--") + name + " is too large");
  return uint32_t(v);
}

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

std::string calc(const std::string& text) {
  long long sum = 0, cur = 0;
  bool in = false;
  for (char c : text) {
    if (c >= '0' && c <= '9') {
      cur = std::min<long long>(cur * 10 + (c - '0'), 1000000000000LL);
      in = true;
    } else if (in) {
      sum += cur;
      cur = 0;
      in = false;
    }
  }
  if (in) sum += cur;
  return std::to_string(sum) + "\n";
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream f(path);
  if (!f) fail(ErrorCode::BadInput, path + ": cannot open");
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);)
    if (!l.empty()) lines.push_back(l);
  if (lines.empty()) fail(ErrorCode::BadInput, path + ": no non-empty line (one line of model text per stream)");
  return lines;
}

int run(const cli::Args& a) {
  if (a.positional.size() != 2) fail(ErrorCode::BadInput, std::string("tokenvm run needs one WORKFLOW.json\n") + kUsage);
  const Workflow w = load_workflow(a.positional[1]);
  const TableTokenizer tok;
  VmConfig c;
  c.batch = u32(a, "batch", 4);
  if (w.match_mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(tok);
  const uint32_t steps = u32(a, "steps", 256), seed = u32(a, "seed", 1);
  const std::string source = a.get("tokens", "random");
  const std::string backend = a.get("backend", "device");
  if (source != "scripted" && source != "random" && source != "sampler")
    fail(ErrorCode::BadInput, "--tokens must be scripted, random or sampler, got '" + source + "'");
  const uint32_t per_submit = source == "scripted" ? 1 : u32(a, "steps-per-submit", 8);
  if (per_submit == 0) fail(ErrorCode::BadInput, "--steps-per-submit must be at least 1");
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
  for (const std::string& t : w.tools)
    m.set_tool(t, [t](const std::string& text) { return t == "calc" ? calc(text) : text + "\n"; });
  if (a.options.count("feed"))
    for (uint32_t b = 0; b < c.batch; ++b) m.feed(b, a.get("feed"));

  uint32_t done_steps = 0;
  if (source == "scripted") {
    const std::vector<std::string> lines = read_lines(a.get("tokens-file", a.positional.size() > 2 ? a.positional[2] : ""));
    std::vector<size_t> cursor(c.batch, 0);
    for (; done_steps < steps && !m.done(); ++done_steps) {
      std::vector<Token> t(c.batch);
      for (uint32_t b = 0; b < c.batch; ++b) {
        const std::string& l = lines[b % lines.size()];
        t[b] = uint8_t(l[cursor[b] % l.size()]);
      }
      m.step(t);
      for (uint32_t b = 0; b < c.batch; ++b) {
        const uint32_t src = m.status()[b].back().source();
        if (src == TVM_SRC_SAMPLED || src == TVM_SRC_TIMEOUT) ++cursor[b];
      }
      m.resolve_callbacks();
    }
  } else if (source == "random") {
    std::mt19937 rng(seed);
    const RandomWorkflow rw{w, {}};
    for (; done_steps < steps && !m.done(); done_steps += per_submit) {
      const uint32_t k = std::min(per_submit, steps - done_steps);
      const std::vector<Token> t = random_tokens(rng, rw, c.batch, k);
      m.run(t, k);
      m.resolve_callbacks();
    }
  } else {
    // Fixed logits favouring the workflow's pattern symbols; the seed varies the draws.
    const uint32_t V = tok.vocab_size();
    std::vector<float> logits(size_t(c.batch) * V, -4.0f);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 2.0f);
    for (uint32_t b = 0; b < c.batch; ++b) {
      for (uint8_t ch : w.pattern_bytes) logits[size_t(b) * V + ch] = u(rng);
      for (const char* s = "abc 0123456789+"; *s; ++s) logits[size_t(b) * V + uint8_t(*s)] = u(rng);
    }
    for (; done_steps < steps && !m.done(); done_steps += per_submit) {
      m.run_sampler(logits, V, SamplerConfig{TVM_SAMPLE_QUANTIZED, seed, 23.0831f}, std::min(per_submit, steps - done_steps));
      m.resolve_callbacks();
    }
  }

  std::printf("workflow %s: %zu zones, %u streams, %s backend, %s tokens, %llu steps\n", a.positional[1].c_str(), w.zones.size(),
              c.batch, backend_name, source.c_str(), (unsigned long long)m.steps_taken());
  const auto ex = m.extract();
  const auto seq = m.generative_sequence();
  const auto dec = m.decisions();
  const auto st = m.stream_status();
  static const char* const kStatus[] = {"RUNNING", "WAIT_TOOL", "DONE"};
  for (uint32_t b = 0; b < c.batch; ++b) {
    std::printf("stream %u: %s\n  decisions:", b, kStatus[std::min<uint32_t>(st[b], 2)]);
    for (uint32_t z : dec[b]) {
      const Zone& zone = w.zones[z];
      std::printf(" %u", z);
      if (zone.sequence < w.sequences.size()) std::printf("(%s)", w.sequences[zone.sequence].c_str());
    }
    std::printf("\n  model saw: %s\n", quoted(seq[b]).c_str());
    for (const auto& [name, text] : ex[b]) std::printf("  %s: %s\n", name.c_str(), quoted(text).c_str());
  }
  return 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

int run_bench(const cli::Args& a) {
  weft::DeviceOptions o;
  o.select = a.get("device");
  auto dev = weft::Device::open(o);
  const uint32_t steps = std::max<uint32_t>(1, u32(a, "steps", 32)), reps = std::max<uint32_t>(1, u32(a, "reps", 5));
  std::mt19937 rng(7);
  RandomWorkflow rw;
  do rw = random_workflow(rng, MatchMode::Token, 8);
  while (rw.workflow.zones.size() < 6);
  const TableTokenizer tok;
  const uint32_t V = 256;
  for (uint32_t B : {64u, 256u, 1024u, 4096u}) {
    VmConfig c;
    c.batch = B;
    c.feed_capacity = 16;
    const std::vector<Token> tokens = random_tokens(rng, rw, B, steps);
    const std::vector<uint32_t> init = initial_state(StateLayout(rw.workflow, resolve_config(rw.workflow, c)));
    // CPU reference: wall clock around `steps` steps from the initial state.
    std::vector<double> cpu;
    for (uint32_t r = 0; r < reps; ++r) {
      Reference ref(rw.workflow, c);
      std::vector<uint32_t> trace;
      const auto t0 = std::chrono::steady_clock::now();
      ref.run(tokens, steps, trace);
      cpu.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / steps);
    }
    const double cpu_ns = median(cpu);
    struct Variant {
      const char* mode;
      uint32_t per_submit;
      bool sampler;
    };
    for (const Variant& v : {Variant{"single_step", 1, false}, Variant{"n_steps_scripted", steps, false},
                             Variant{"n_steps_sampler", steps, true}}) {
      DeviceVm vm(*dev, rw.workflow, c, DeviceVmOptions{v.per_submit, v.sampler ? V : 0});
      std::vector<uint32_t> trace;
      vm.run(std::span<const Token>(tokens).first(size_t(v.per_submit) * B), v.per_submit, trace);  // uploads the tokens
      if (v.sampler) {
        std::vector<float> logits(size_t(B) * V);
        std::normal_distribution<float> normal(0.0f, 2.0f);
        for (float& x : logits) x = normal(rng);
        vm.set_logits(logits, V);
        const uint32_t params[TVM_P_WORDS] = {TVM_SAMPLE_QUANTIZED, 1u, f32_bits(2.0f), 0u};
        vm.executable().write_segment(Binding::Globals, "sampler", params, sizeof(params));
      }
      std::vector<double> gpu, wall;
      for (uint32_t r = 0; r < reps; ++r) {
        vm.write_state(0, init);
        double gpu_sum = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (uint32_t done = 0; done < steps; done += v.per_submit) {
          vm.replay(v.per_submit, v.sampler);
          gpu_sum += vm.last_gpu_ns();
        }
        wall.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / steps);
        gpu.push_back(gpu_sum / steps);
      }
      const double gpu_ns = median(gpu);
      bench::Line("tokenvm.step", *dev)
          .str("mode", v.mode)
          .num("batch", B)
          .num("steps", steps)
          .num("steps_per_submit", v.per_submit)
          .num("zones", double(rw.workflow.zones.size()))
          .num("gpu_ns_per_step", gpu_ns)
          .num("gpu_ns_per_stream_step", gpu_ns / B)
          .num("wall_ns_per_step", median(wall))
          .num("cpu_reference_ns_per_step", cpu_ns)
          .num("cpu_reference_ns_per_stream_step", cpu_ns / B)
          .num("speedup_vs_cpu_reference", cpu_ns / gpu_ns)
          .print();
    }
  }
  return 0;
}

}  // namespace

int weft_cmd_tokenvm_vm(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "help") {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const std::string verb = argv[1];
  // `--tokens scripted FILE`: the file follows the mode word; move it to its own option.
  std::vector<char*> args(argv, argv + argc);
  std::vector<std::string> storage;
  for (size_t i = 0; i + 2 < args.size(); ++i)
    if (std::string(args[i]) == "--tokens" && std::string(args[i + 1]) == "scripted" && std::string(args[i + 2]).rfind("--", 0) != 0) {
      storage = {"--tokens-file", args[i + 2]};
      args[i + 2] = storage[1].data();
      args.insert(args.begin() + long(i) + 2, storage[0].data());
      break;
    }
  const cli::Args a = cli::parse(int(args.size()), args.data(), 1,
                                 {"batch", "steps", "tokens", "tokens-file", "seed", "steps-per-submit", "feed", "backend",
                                  "device", "reps"},
                                 {});
  if (verb == "run") return run(a);
  if (verb == "bench") return run_bench(a);
  fail(ErrorCode::BadInput, "unknown tokenvm command '" + verb + "'\n" + kUsage);
}
