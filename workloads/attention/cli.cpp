// weft attention: the llama decoder workload (workloads/attention) from a GGUF file.
//
//   weft attention generate MODEL.gguf --prompt TEXT -n N [--temperature T] [--top-k K] [--seed S]
//        [--tokens ID,ID,...] [--context C] [--batch B] [--norm-limit X] [--damp F] [--check]
//        [--weights auto|window|far]
//     prefill the prompt, then N decode steps, sampling on the device; --check runs the CPU
//     reference beside it and compares every step's logits and token.
//   weft attention generate MODEL.gguf --workflow PROMPTS.toml|DIR|W.json [--program FLOW.toml]
//        [--resource NAME=VALUE ...] [--match token|byte] [--steps-per-submit K] [-n N] [--check]
//     a token VM workflow steering the model on the device, K steps per submit (compose.h's
//     SteeredModel); --check replays the run on the CPU references.
//   weft attention demo      the seeded model, written to a temp dir, generated and checked
//   weft attention bench     prefill / decode tokens/s, decode vs the memory-bandwidth bound
//   weft attention write-model PATH [--dim D --layers L --heads H --kv-heads K --ffn F
//        --context C --seed S --tied --attn-type T --ffn-type T --embd-type T --output-type T
//        --arch llama|qwen2|qwen3 --head-dim H --rope-base B --rope-linear F --rope-freqs llama3|F,F,...]
//        [--vocab tokenizer.json [--pre NAME]]
//     the seeded test model as a GGUF file, with the byte-level vocabulary or the given
//     tokenizer.json's (as llama.cpp's converter writes it; --pre names a byte-level BPE's
//     pre-tokenizer, e.g. llama-bpe, qwen2, tekken, gpt-4o)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <weft/weft.h>

#include "attention.h"
#include "bench.h"
#include "cli.h"
#include "compose.h"
#include "source.h"
#include "node_peer.h"
#include "conformance.h"

namespace {

using weft::conformance::compare;

using namespace weft;
using namespace weft::attention;

// Sizes end up in signed int arithmetic in the model code: keep them below 2^31.
uint32_t int_arg(const cli::Args& a, const char* name, uint32_t fallback) { return cli::u32(a, name, fallback, 0x7FFFFFFFu); }
using cli::f32;

// `weft help` lines of this command.
const char* const kHelpLines =
    "  attention generate MODEL.gguf --prompt TEXT -n N [--temperature T --top-k K --seed S]\n"
    "  attention generate MODEL.gguf --workflow PROMPTS.toml [--program FLOW.toml]  a workflow steering the model\n"
    "  attention demo|bench|write-model|compare  llama decoder from GGUF vs its CPU reference and llama.cpp\n";

const char* kUsage =
    "usage: weft attention generate MODEL.gguf --prompt TEXT -n N [--temperature T] [--top-k K] [--seed S]\n"
    "                      [--tokens ID,ID,...] [--context C] [--batch B] [--norm-limit X] [--damp F] [--check]\n"
    "                      [--weights auto|window|far]\n"
    "       weft attention generate MODEL.gguf --workflow PROMPTS.toml|DIR|W.json [--program FLOW.toml]\n"
    "                      [--resource NAME=VALUE ...] [--match token|byte] [--steps-per-submit K] [-n N]\n"
    "                      [--temperature T --top-k K --seed S] [--context C] [--check]\n"
    "       weft attention demo  [-n N] [--prompt TEXT] [--device SEL] [--validation] [--weights auto|window|far]\n"
    "       weft attention bench [MODEL.gguf] [--dim D --layers L --heads H --kv-heads K --ffn F --context C]\n"
    "                      [--batch B] [--runs R] [--copy-mib M] [--weights auto|window|far]\n"
    "       weft attention write-model PATH [--dim D --layers L --heads H --kv-heads K --ffn F --context C\n"
    "                      --seed S --tied --attn-type T --ffn-type T --embd-type T --output-type T\n"
    "                      --arch llama|qwen2|qwen3 --head-dim H --rope-base B --rope-linear F\n"
    "                      --rope-freqs llama3|F,F,...]\n"
    "                      [--vocab tokenizer.json [--pre NAME]]\n"
    "       weft attention compare MODEL.gguf [--prompt TEXT | --tokens IDS] [-n N]\n"
    "  generate: a llama GGUF (F32/F16/Q8_0/Q4_0 weights) decoded on the device; greedy unless a\n"
    "            temperature is given; top-k <= 64; --check compares every step with the CPU reference\n"
    "  --weights: where the weights go: auto (default) the storage-buffer window when they fit it, else\n"
    "            far (a far segment per matrix: any size, needs bufferDeviceAddress); window or far forces one\n"
    "  demo: the seeded test model (written to a temp dir), greedy generation checked against the\n"
    "        CPU reference, GPU time per operation\n"
    "  bench: JSON lines: prefill and decode tokens/s, decode bandwidth vs a copy kernel's, CPU reference\n"
    "  compare: the CPU reference's greedy path against llama.cpp (npm node-llama-cpp in build/peers or\n"
    "            WEFT_PEERS_DIR): teacher-forced probability differences and the first greedy divergence\n"
    "  write-model: seeded weights in the given ggml types (defaults: Q8_0 attention, Q4_0 MLP, F16\n"
    "            embeddings, F32 head; F32 F16 BF16 Q8_0 Q4_0 Q4_1 Q5_0 Q5_1 Q2_K..Q6_K, the K-quants\n"
    "            need rows of a multiple of 256); --vocab carries a tokenizer.json's vocabulary (byte-level BPE files\n"
    "            need --pre, the tokenizer.ggml.pre name llama.cpp knows them by)\n";

// --attn-type Q4_K and the like: a ggml type name (any case) the writer can encode.
uint32_t type_arg(const cli::Args& a, const char* name, uint32_t fallback) {
  if (!a.options.count(name)) return fallback;
  std::string want = a.get(name);
  std::transform(want.begin(), want.end(), want.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  for (uint32_t t = 0; t < 64; ++t)
    if (supported_weight_type(t) && gguf::type_name(t) == want) return t;
  fail(ErrorCode::BadInput, std::string("--") + name + " " + a.get(name) + ": not a weight type Weft writes (" + supported_weight_type_names() + ")");
}

SeededOptions seeded_options(const cli::Args& a, SeededOptions o = {}) {
  o.dim = int_arg(a, "dim", o.dim);
  o.layers = int_arg(a, "layers", o.layers);
  o.heads = int_arg(a, "heads", o.heads);
  o.kv_heads = int_arg(a, "kv-heads", o.kv_heads);
  o.ffn = int_arg(a, "ffn", o.ffn);
  o.context = int_arg(a, "context", o.context);
  o.seed = int_arg(a, "seed", o.seed);
  o.tied = a.flag("tied");
  o.arch = a.get("arch", o.arch);
  o.head_dim = int_arg(a, "head-dim", o.head_dim);
  o.attn_type = type_arg(a, "attn-type", o.attn_type);
  o.ffn_type = type_arg(a, "ffn-type", o.ffn_type);
  o.embd_type = type_arg(a, "embd-type", o.embd_type);
  o.output_type = type_arg(a, "output-type", o.output_type);
  o.rope_base = f32(a, "rope-base", o.rope_base);
  o.rope_linear_factor = f32(a, "rope-linear", 0.0f);
  if (a.options.count("rope-freqs")) {
    const uint32_t hd = o.head_dim ? o.head_dim : (o.heads ? o.dim / o.heads : 0);
    const std::string v = a.get("rope-freqs");
    o.rope_freq_factors = v == "llama3" ? llama3_rope_factors(hd, o.rope_base) : cli::floats(v, "--rope-freqs");
  }
  if (a.options.count("vocab")) o.vocabulary = tokenizer::gguf_vocabulary_from_tokenizer_file(a.get("vocab"), a.get("pre", ""));
  else if (a.options.count("pre")) fail(ErrorCode::BadInput, "--pre names the pre-tokenizer of a --vocab tokenizer.json; give --vocab too");
  return o;
}

// --weights, and the placement a Decoder made of it (stderr: the user sees why a model runs slower).
WeightPlacement weights_arg(const cli::Args& a) { return parse_placement(a.get("weights", "auto")); }
void print_placement(const Decoder& dec) {
  std::fprintf(stderr, "weights: %s\n", dec.program().weights == WeightPlacement::Far
                                            ? "far (a far segment per matrix; they exceed the storage-buffer window or were asked to)"
                                            : "in the storage-buffer window");
}

std::vector<uint32_t> parse_ids(const std::string& s) {
  std::vector<uint32_t> ids;
  size_t i = 0;
  while (i < s.size()) {
    const size_t j = std::min(s.find(',', i), s.size());
    const std::string t = s.substr(i, j - i);
    if (t.empty() || t.size() > 9 || t.find_first_not_of("0123456789") != std::string::npos)
      fail(ErrorCode::BadInput, "--tokens: '" + t + "' at character " + std::to_string(i + 1) + " is not a token id");
    ids.push_back(uint32_t(std::stoul(t)));
    i = j + 1;
  }
  return ids;
}

std::string printable(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    if (c == '\n') o += "\\n";
    else if (c < 32 || c == 127) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      o += b;
    } else o += char(c);
  }
  return o;
}

struct GenerateResult {
  std::vector<uint32_t> generated;
  double worst_logit_error = 0;  // with --check
  uint32_t token_mismatches = 0;
  double prefill_gpu_ns = 0, decode_gpu_ns = 0;
  uint32_t anomalies = 0;
};

// Prefill + n steps; with a reference, every step's logits and token are compared.
GenerateResult generate(Decoder& dec, const Model& m, const std::vector<uint32_t>& prompt, uint32_t n, const Sampling& s,
                        Reference* ref, bool verbose) {
  GenerateResult r;
  dec.set_sampling(s);
  std::vector<float> logits = dec.prefill(prompt);
  r.prefill_gpu_ns = dec.gpu_ns();  // of the last chunk
  auto check = [&](const std::vector<double>& rl) {
    const double e = compare(logits, rl).normalized_max();
    r.worst_logit_error = std::max(r.worst_logit_error, e);
    // The reference's choice from the device's own logits: the device sampler must agree.
    const float u = ref::sample_uniform(s.seed, dec.position());
    if (ref::sample(logits, s, u) != dec.sampled()) ++r.token_mismatches;
  };
  if (ref) check(ref->forward(prompt));
  for (uint32_t step = 0; step < n; ++step) {
    const uint32_t tok = dec.sampled();
    for (const LayerMetrics& lm : dec.layer_metrics()) r.anomalies += lm.status == WEFT_STATUS_ANOMALY;
    r.generated.push_back(tok);
    if (verbose) {
      std::printf("%s", printable(token_text(m.vocab, tok)).c_str());
      std::fflush(stdout);
    }
    if (step + 1 == n || dec.position() >= dec.context()) break;
    logits = dec.step(tok);
    r.decode_gpu_ns += dec.gpu_ns();
    if (ref) {
      const uint32_t one[1] = {tok};
      check(ref->forward(one));
    }
  }
  return r;
}

Sampling sampling_arg(const cli::Args& a) {
  Sampling s;
  s.temperature = f32(a, "temperature", 0.0f);
  s.top_k = int_arg(a, "top-k", 0);
  s.seed = int_arg(a, "seed", 0);
  return s;
}

// generate --workflow: the token VM steers the model on the device, K steps per submit, until
// every zone is done or N steps; tool calls are answered between submits (calculator/calc, else
// echo); --check replays the run on the CPU references.
int run_steered(const cli::Args& a, const Model& m) {
  for (const char* unused : {"prompt", "tokens", "batch", "norm-limit", "damp"})
    if (a.options.count(unused)) fail(ErrorCode::BadInput, std::string("--") + unused + " does not apply to generate --workflow");
  std::vector<std::pair<std::string, std::string>> resources;
  for (const std::string& r : a.get_all("resource")) resources.push_back(token_vm::cli_source::resource_of(r));
  const token_vm::cli_source::Source src = token_vm::cli_source::source_from(a, a.get("workflow"), std::move(resources));
  const token_vm::cli_source::Loaded l =
      token_vm::cli_source::load(src, std::make_unique<token_vm::ModelTokenizer>(compose::steered_tokenizer(m)));
  for (const std::string& warning : l.warnings) std::fprintf(stderr, "warning: %s\n", warning.c_str());
  const token_vm::Workflow& w = l.workflow;
  const token_vm::VmConfig vc = compose::steered_vm_config(w, *l.tokenizer);
  compose::SteeredOptions o;
  o.steps_per_submit = int_arg(a, "steps-per-submit", 8);
  o.sampling = sampling_arg(a);
  o.context = int_arg(a, "context", 0);
  o.weights = weights_arg(a);
  const uint32_t n = int_arg(a, "n", 256);
  auto dev = open_device(a);
  std::fprintf(stderr, "device: %s\nmodel: %s, %u layers, vocab %u; workflow %s: %zu zones, %s matching\n", dev->info().name.c_str(),
               a.positional[1].c_str(), m.config.layers, m.config.vocab, src.path.c_str(), w.zones.size(),
               w.match_mode == token_vm::MatchMode::Byte ? "byte" : "token");
  auto backend = std::make_unique<compose::SteeredModel>(*dev, m, w, vc, o);
  compose::SteeredModel& steered = *backend;
  token_vm::Machine machine(w, *l.tokenizer, std::move(backend));
  std::map<std::string, token_vm::ToolFn> tools;
  for (const std::string& t : w.tools) machine.set_tool(t, tools[t] = token_vm::builtin_tool(t));
  double gpu_ns = 0;
  uint32_t submits = 0, tool_calls = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (!machine.done() && machine.steps_taken() < n) {
    if (!steered.fits_another_submit()) {
      std::fprintf(stderr, "stopped at position %u: the next submit would pass the context of %u positions\n", steered.position(), steered.context());
      break;
    }
    machine.run_source(o.steps_per_submit);
    gpu_ns += steered.last_gpu_ns();
    ++submits;
    if (machine.callbacks_ready()) tool_calls += uint32_t(machine.resolve_callbacks());
  }
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const uint64_t steps = machine.steps_taken();
  std::printf("%s\n", printable(machine.generative_sequence()[0]).c_str());
  const auto extractions = machine.extract();
  for (const auto& [name, text] : extractions[0]) std::printf("%s: %s\n", name.c_str(), printable(text).c_str());
  std::fprintf(stderr, "%s after %llu steps in %u submits (%u per submit), %u tool calls; %.1f steps/s wall, %.3f ms GPU per step\n",
               machine.done() ? "done" : "not done", (unsigned long long)steps, submits, o.steps_per_submit, tool_calls, steps / wall_s,
               steps ? gpu_ns / double(steps) * 1e-6 : 0.0);
  if (!a.flag("check")) return machine.done() ? 0 : 2;
  const compose::SteeredCheck c = compose::check_steered(m, w, *l.tokenizer, vc, o, steered.sampled(), machine.status()[0], tools);
  std::fprintf(stderr, "check vs CPU references: %u records, model picks %u/%u agree%s%s\n", c.steps, c.picks_agreeing, c.picks_checked,
               c.ok() ? "" : "; DIFFERENT: ", c.first_difference.c_str());
  return c.ok() ? 0 : 1;
}

int run_generate(const cli::Args& a) {
  if (a.positional.size() < 2) fail(ErrorCode::BadInput, "generate needs a MODEL.gguf path");
  const Model m = Model::load(a.positional[1]);
  if (a.options.count("workflow")) return run_steered(a, m);
  const uint32_t n = int_arg(a, "n", 32);
  const Sampling s = sampling_arg(a);
  std::vector<uint32_t> prompt = a.options.count("tokens") ? parse_ids(a.get("tokens")) : tokenize(m.vocab, a.get("prompt", ""));
  if (prompt.empty()) fail(ErrorCode::BadInput, "the prompt is empty (give --prompt TEXT or --tokens IDS)");
  DecoderOptions o;
  o.context = int_arg(a, "context", 0);
  o.max_batch = int_arg(a, "batch", 0);
  o.rules.norm_limit = f32(a, "norm-limit", o.rules.norm_limit);
  o.rules.damp = f32(a, "damp", o.rules.damp);
  o.weights = weights_arg(a);
  auto dev = open_device(a);
  const Config& c = m.config;
  std::fprintf(stderr, "device: %s\nmodel: %s: dim %u, %u layers, %u heads / %u KV heads, ffn %u, vocab %u%s; %.2f MiB of weights\n",
               dev->info().name.c_str(), a.positional[1].c_str(), c.dim, c.layers, c.heads, c.kv_heads, c.ffn, c.vocab,
               m.tied ? ", tied output" : "", m.weight_bytes() / 1048576.0);
  Decoder dec(*dev, m, o);
  print_placement(dec);
  // The last generated token is sampled at position P + n - 2 and needs no position of its own.
  if (uint64_t(prompt.size()) + n > uint64_t(dec.context()) + 1)
    fail(ErrorCode::BadInput, "-n " + std::to_string(n) + ": the prompt's " + std::to_string(prompt.size()) + " tokens and " +
                                  std::to_string(n) + " generated ones need more than the context's " + std::to_string(dec.context()) +
                                  " positions (give a smaller -n or a larger --context)");
  std::unique_ptr<Reference> ref;
  // The reference splits the prompt as the decoder does: the norm rule acts per run.
  if (a.flag("check")) ref = std::make_unique<Reference>(m, dec.context(), o.rules, dec.program().max_batch);
  std::fprintf(stderr, "prompt: %zu tokens\n", prompt.size());
  std::printf("%s", printable(detokenize(m.vocab, prompt)).c_str());
  const GenerateResult r = generate(dec, m, prompt, n, s, ref.get(), true);
  std::printf("\n");
  std::fprintf(stderr, "generated %zu tokens; mean decode step %.3f ms GPU; %u anomaly flags\n", r.generated.size(),
               r.generated.size() > 1 ? r.decode_gpu_ns / double(r.generated.size() - 1) * 1e-6 : 0.0, r.anomalies);
  if (ref) {
    std::fprintf(stderr, "check vs CPU reference: worst normalized logit error %.3e, sampler mismatches %u\n", r.worst_logit_error,
                 r.token_mismatches);
    return r.token_mismatches == 0 && r.worst_logit_error < 1e-2 ? 0 : 1;
  }
  return 0;
}

// Bound on the normalized logit error of the demo model (see workloads/attention/conformance.cpp:
// f32 accumulation over ~2 layers of K <= 128 products, f16 rounding of nothing: the weights are
// read exactly as stored).
constexpr double kLogitBound = 1e-4;

int run_demo(const cli::Args& a) {
  auto dev = open_device(a);
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("weft-attention-demo-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "seeded.gguf").string();
  SeededOptions so;
  write_seeded_model(path, so);
  const Model m = Model::load(path);
  const Config& c = m.config;
  std::printf("device: %s\nmodel: %s (seeded): dim %u, %u layers, %u heads / %u KV heads, ffn %u, vocab %u, context %u\n",
              dev->info().name.c_str(), path.c_str(), c.dim, c.layers, c.heads, c.kv_heads, c.ffn, c.vocab, c.context);
  std::printf("weights: token_embd %s, attention %s, MLP %s, norms F32, output %s\n", gguf::type_name(m.token_embd.type).c_str(),
              gguf::type_name(m.layers[0].wq.type).c_str(), gguf::type_name(m.layers[0].gate.type).c_str(),
              gguf::type_name(m.output.type).c_str());
  const std::string prompt_text = a.get("prompt", "Hello, weft");
  const std::vector<uint32_t> prompt = tokenize(m.vocab, prompt_text);
  const uint32_t n = int_arg(a, "n", 16);
  DecoderOptions o;
  o.weights = weights_arg(a);
  Decoder dec(*dev, m, o);
  print_placement(dec);
  Reference ref(m, dec.context(), o.rules, dec.program().max_batch);
  std::printf("prompt: \"%s\" (%zu tokens with BOS)\ngreedy output: ", printable(prompt_text).c_str(), prompt.size());
  const GenerateResult r = generate(dec, m, prompt, n, Sampling{}, &ref, true);
  std::printf("\ntokens:");
  for (uint32_t t : r.generated) std::printf(" %u", t);
  std::printf("\n\nGPU time per operation (last decode step, timestamps):\n");
  for (const KindTime& t : dec.stage_times()) std::printf("  %-14s %9.3f ms\n", t.kind.c_str(), t.ns * 1e-6);
  std::printf("  %-14s %9.3f ms\n", "total", dec.gpu_ns() * 1e-6);
  const bool ok = r.token_mismatches == 0 && r.worst_logit_error <= kLogitBound;
  std::printf("\nvs CPU reference (f64): worst normalized logit error %.3e (bound %.0e), sampler disagreements %u: %s\n",
              r.worst_logit_error, kLogitBound, r.token_mismatches, ok ? "ok" : "FAIL");
  fs::remove_all(dir);
  return ok ? 0 : 1;
}

template <class F>
double median_of(uint32_t runs, F&& f) {
  std::vector<double> v;
  for (uint32_t r = 0; r < runs; ++r) v.push_back(f());
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// llama.cpp on the same file in the same run (npm node-llama-cpp): its CPU backend on one thread
// and on every core (lavapipe's share), and its Vulkan backend on the device Weft ran on. Wall
// time per llama_decode call, against Weft's GPU timestamps; a missing peer is said so.
void print_llama_cpp_lines(const Device& dev, const std::string& path, const std::string& label, const std::vector<uint32_t>& prompt,
                           uint32_t steps, uint32_t runs, double weft_prefill_ns, double weft_decode_ns) {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  struct Backend {
    std::string name;
    unsigned threads;
  };
  for (const Backend& b : {Backend{"cpu", 1}, Backend{"cpu", cores}, Backend{"vulkan", cores}}) {
    if (b.name == "cpu" && b.threads == 1 && cores == 1) continue;
    const nlohmann::json request = {{"model", path}, {"backend", b.name}, {"threads", b.threads}, {"prompt", prompt},
                                    {"steps", steps}, {"runs", runs}};
    // ggml-vulkan lists lavapipe only when asked for it by index.
    const std::string env = b.name == "vulkan" && dev.info().type == "cpu" ? "GGML_VK_VISIBLE_DEVICES=0" : "";
    const nlohmann::json peer = cli::run_node_peer(WEFT_ATTENTION_LLAMA_CPP_SPEED_PEER, {}, request.dump(), env);
    bench::Line line("attention.llama_cpp", dev);
    line.str("model", label).str("backend", b.name).num("threads", b.threads);
    if (peer.contains("missing")) {
      line.str("peer", "missing: " + peer["missing"].get<std::string>() + " (npm install --prefix build/peers node-llama-cpp)");
    } else {
      const double prefill_ms = peer["prefill_ms"].get<double>(), decode_ms = peer["decode_ms_per_token"].get<double>();
      line.str("peer", "llama.cpp " + peer["llama_cpp"].get<std::string>() + " (node-llama-cpp) on " + peer["device"].get<std::string>())
          .num("prefill_tokens", double(prompt.size()))
          .num("peer_prefill_ms", prefill_ms)
          .num("peer_decode_ms_per_token", decode_ms)
          .num("weft_decode_speedup", decode_ms / (weft_decode_ns * 1e-6))
          .num("weft_prefill_speedup", prefill_ms / (weft_prefill_ns * 1e-6));
    }
    line.print();
  }
}

// Steered generation (the model-token-vm composition's built-in workflow, 16 steps per submit)
// against the same model's unconstrained decode measured in this run (one submit per token).
void print_steered_line(Device& dev, const Model& m, const std::string& label, const DecoderOptions& o, double decode_gpu_ns,
                        double decode_wall_ns) {
  bench::Line line("attention.steered", dev);
  line.str("model", label);
  if (!m.vocab.tokenizer || !m.vocab.bos) {
    line.str("steered", "missing: the model has no vocabulary or BOS token").print();
    return;
  }
  const token_vm::ModelTokenizer tokenizer = compose::steered_tokenizer(m);
  auto prompts = std::make_shared<const token_vm::Prompts>(token_vm::parse_udpl(compose::model_token_vm_default_prompts(), "<built-in prompts>"));
  const token_vm::Workflow w = token_vm::default_program(prompts).compile(tokenizer);
  const token_vm::VmConfig vc = compose::steered_vm_config(w, tokenizer);
  compose::SteeredOptions so;
  so.steps_per_submit = 16;
  so.context = o.context;
  so.weights = o.weights;
  auto backend = std::make_unique<compose::SteeredModel>(dev, m, w, vc, so);
  compose::SteeredModel& steered = *backend;
  token_vm::Machine machine(w, tokenizer, std::move(backend));
  double gpu_ns = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (!machine.done() && steered.fits_another_submit()) {
    machine.run_source(so.steps_per_submit);
    gpu_ns += steered.last_gpu_ns();
  }
  const double wall_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  const double steps = double(machine.steps_taken());
  line.num("steps", steps)
      .num("steps_per_submit", so.steps_per_submit)
      .num("steered_gpu_ms_per_step", gpu_ns / steps * 1e-6)
      .num("steered_wall_ms_per_step", wall_ns / steps * 1e-6)
      .num("steered_tokens_per_s", steps / (wall_ns * 1e-9))
      .num("decode_gpu_ms_per_token", decode_gpu_ns * 1e-6)
      .num("decode_wall_ms_per_token", decode_wall_ns * 1e-6)
      .num("decode_tokens_per_s", 1e9 / decode_wall_ns)
      .num("steered_vs_decode_wall", decode_wall_ns / (wall_ns / steps));
  // GPU ms per operation over the last submit's steps (the decoder's, handoff, vm_step, feedback).
  for (const KindTime& t : stage_times_by_kind(steered.executable().program(), steered.executable().timings()))
    line.num((t.kind + "_ms_per_step").c_str(), t.ns * 1e-6 / so.steps_per_submit);
  line.print();
}

int run_bench(const cli::Args& a) {
  auto dev = open_device(a);
  const bool cpu = dev->info().type == "cpu";
  namespace fs = std::filesystem;
  std::string path, label;
  fs::path dir;
  if (a.positional.size() >= 2) {
    path = label = a.positional[1];
  } else {
    // Default: a seeded model big enough that the weights, not dispatch overhead, could
    // dominate on a GPU, small enough for lavapipe.
    SeededOptions so;
    so.dim = 256, so.layers = 4, so.heads = 8, so.kv_heads = 4, so.ffn = 768, so.context = 256;
    so = seeded_options(a, so);
    dir = fs::temp_directory_path() / ("weft-attention-bench-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    path = (dir / "seeded.gguf").string();
    write_seeded_model(path, so);
    label = "seeded";
  }
  const Model m = Model::load(path);
  const Config& c = m.config;
  const uint32_t runs = std::max(1u, int_arg(a, "runs", 5));
  DecoderOptions o;
  o.context = std::min(c.context, int_arg(a, "context", 256));
  o.max_batch = std::min(o.context / 2, int_arg(a, "batch", 32));
  o.weights = weights_arg(a);
  Decoder dec(*dev, m, o);
  std::vector<uint32_t> prompt(o.max_batch);
  for (uint32_t t = 0; t < o.max_batch; ++t) prompt[t] = (t * 37 + 5) % c.vocab;

  dec.prefill(prompt);  // warm-up (pipelines, first touch)
  const double prefill_ns = median_of(runs, [&] {
    dec.reset();
    dec.prefill(prompt);
    return dec.gpu_ns();
  });
  const std::vector<KindTime> prefill_ops = dec.stage_times();
  // Decode steps at positions max_batch .. max_batch + steps - 1.
  const uint32_t steps = std::min(16u, o.context - o.max_batch);
  std::vector<double> step_ns, step_wall_ns;
  for (uint32_t r = 0; r < std::max(1u, runs / 2); ++r) {
    dec.reset();
    dec.prefill(prompt);
    for (uint32_t s = 0; s < steps; ++s) {
      const auto w0 = std::chrono::steady_clock::now();
      dec.step(dec.sampled());
      step_wall_ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - w0).count());
      step_ns.push_back(dec.gpu_ns());
    }
  }
  const std::vector<KindTime> decode_ops = dec.stage_times();
  std::sort(step_ns.begin(), step_ns.end());
  const double decode_ns = step_ns[step_ns.size() / 2];
  const double bytes_per_token = double(m.weight_bytes());
  const double copy_gbs = bench::copy_bound_gb_per_s(*dev, uint64_t(int_arg(a, "copy-mib", cpu ? 16 : 256)) << 20, runs);
  const double decode_gbs = bytes_per_token / decode_ns;

  // Peer: the CPU reference (double, one thread) on the same tokens in the same run.
  Reference ref(m, o.context, o.rules);
  auto t0 = std::chrono::steady_clock::now();
  ref.forward(prompt);
  const double cpu_prefill_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  t0 = std::chrono::steady_clock::now();
  const uint32_t cpu_steps = 4;
  for (uint32_t s = 0; s < cpu_steps; ++s) {
    const uint32_t tok[1] = {(s * 11 + 3) % c.vocab};
    ref.forward(tok);
  }
  const double cpu_decode_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / cpu_steps;

  bench::Line("attention.decode", *dev)
      .str("model", label)
      .num("dim", c.dim)
      .num("layers", c.layers)
      .num("heads", c.heads)
      .num("kv_heads", c.kv_heads)
      .num("ffn", c.ffn)
      .num("vocab", c.vocab)
      .num("weight_bytes_per_token", bytes_per_token)
      .str("weights", placement_name(dec.program().weights))
      .num("prefill_tokens", o.max_batch)
      .num("prefill_gpu_ms", prefill_ns * 1e-6)
      .num("prefill_tokens_per_s", o.max_batch / (prefill_ns * 1e-9))
      .num("decode_gpu_ms_per_token", decode_ns * 1e-6)
      .num("decode_tokens_per_s", 1e9 / decode_ns)
      .num("decode_weight_gb_per_s", decode_gbs)
      .num("copy_kernel_gb_per_s", copy_gbs)
      .num("decode_fraction_of_bandwidth_bound", decode_gbs / copy_gbs)
      .str("peer", "cpu_reference_f64_1thread")
      .num("cpu_prefill_tokens_per_s", o.max_batch / (cpu_prefill_ns * 1e-9))
      .num("cpu_decode_tokens_per_s", 1e9 / cpu_decode_ns)
      .num("decode_speedup_vs_cpu", cpu_decode_ns / decode_ns)
      .num("prefill_speedup_vs_cpu", cpu_prefill_ns / prefill_ns)
      .print();
  // Where the time goes: GPU ms per operation of one prefill run and of one decode step.
  for (const auto& [phase, ops] : {std::pair{"prefill", &prefill_ops}, std::pair{"decode", &decode_ops}}) {
    bench::Line line("attention.ops", *dev);
    line.str("model", label).str("phase", phase);
    for (const KindTime& t : *ops) line.num((t.kind + "_ms").c_str(), t.ns * 1e-6);
    line.print();
  }
  print_llama_cpp_lines(*dev, path, label, prompt, steps, runs, prefill_ns, decode_ns);
  print_steered_line(*dev, m, label, o, decode_ns, bench::median(step_wall_ns));
  if (!dir.empty()) fs::remove_all(dir);
  return 0;
}

// ---- compare: the CPU reference against llama.cpp on the same file ---------------------------

// Softmax probabilities of a logit row (the peer's nulls, if any, count as -inf).
std::vector<double> probabilities(const std::vector<double>& logits) {
  const double top = *std::max_element(logits.begin(), logits.end());
  std::vector<double> p(logits.size());
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += p[i] = std::isfinite(logits[i]) ? std::exp(logits[i] - top) : 0.0;
  for (double& x : p) x /= sum;
  return p;
}

uint32_t argmax(const std::vector<double>& v) { return uint32_t(std::max_element(v.begin(), v.end()) - v.begin()); }

int run_compare(const cli::Args& a) {
  if (a.positional.size() < 2) fail(ErrorCode::BadInput, "compare needs a MODEL.gguf path");
  const std::string path = a.positional[1];
  const Model m = Model::load(path);
  const uint32_t n = int_arg(a, "n", 64);
  if (n == 0) fail(ErrorCode::BadInput, "compare needs -n of at least 1 position");
  const std::vector<uint32_t> prompt = a.options.count("tokens") ? parse_ids(a.get("tokens")) : tokenize(m.vocab, a.get("prompt", "Hello, weft"));
  if (prompt.empty()) fail(ErrorCode::BadInput, "the prompt is empty (give --prompt TEXT or --tokens IDS)");
  if (m.config.vocab > 32768) fail(ErrorCode::BadInput, "compare moves every logit row through JSON: use a model with at most 32768 tokens");
  // Weft's greedy path, teacher-forced logits at each position.
  Reference ref(m, uint32_t(prompt.size()) + n + 1);
  std::vector<std::vector<double>> weft_logits = {ref.forward(prompt)};
  std::vector<uint32_t> tokens = prompt;
  for (uint32_t i = 1; i < n; ++i) {
    tokens.push_back(argmax(weft_logits.back()));
    const uint32_t one[1] = {tokens.back()};
    weft_logits.push_back(ref.forward(one));
  }
  tokens.push_back(argmax(weft_logits.back()));
  const nlohmann::json request = {{"model", path}, {"tokens", std::vector<uint32_t>(tokens.begin(), tokens.end() - 1)},
                                  {"prompt_len", prompt.size()}, {"n", n}};
  const nlohmann::json peer = cli::run_node_peer(WEFT_ATTENTION_LLAMA_CPP_PEER, {}, request.dump());
  bench::Line line("attention.compare_llama_cpp", "CPU reference (f64)", "cpu");
  line.str("model", path).num("vocab", m.config.vocab).num("prompt_tokens", double(prompt.size())).num("positions", n);
  if (peer.contains("missing")) {
    line.str("peer", "missing: " + peer["missing"].get<std::string>() + " (npm install --prefix build/peers node-llama-cpp)");
    line.print();
    return 0;
  }
  // An answer of another shape (llama.cpp counting the vocabulary differently) is refused, not read past.
  const nlohmann::json rows = peer.value("logits", nlohmann::json::array());
  const bool shaped = rows.is_array() && rows.size() == n && peer.value("greedy", nlohmann::json()).is_array() &&
                      std::all_of(rows.begin(), rows.end(), [&](const nlohmann::json& r) { return r.is_array() && r.size() == m.config.vocab; });
  if (!shaped)
    fail(ErrorCode::BadInput, path + ": llama.cpp answered " + std::to_string(rows.size()) + " logit rows (the first of " +
                                  std::to_string(rows.is_array() && !rows.empty() ? rows[0].size() : 0) + "); expected " +
                                  std::to_string(n) + " rows of " + std::to_string(m.config.vocab) + " (the model's vocabulary)");
  double worst = 0, sum = 0;
  uint32_t top_agree = 0;
  for (uint32_t i = 0; i < n; ++i) {
    std::vector<double> theirs;
    for (const auto& x : rows[i]) theirs.push_back(x.is_null() ? -INFINITY : x.get<double>());
    const std::vector<double> pw = probabilities(weft_logits[i]), pl = probabilities(theirs);
    double d = 0;
    for (size_t k = 0; k < pw.size(); ++k) d = std::max(d, std::fabs(pw[k] - pl[k]));
    worst = std::max(worst, d), sum += d;
    top_agree += argmax(weft_logits[i]) == argmax(theirs);
  }
  const auto greedy = peer["greedy"].get<std::vector<uint32_t>>();
  uint32_t diverge = 0;
  while (diverge < n && diverge < greedy.size() && greedy[diverge] == tokens[prompt.size() + diverge]) ++diverge;
  line.str("peer", "llama.cpp " + peer.value("llama_cpp", std::string("?")) + " (node-llama-cpp, CPU backend, 1 thread)")
      .num("max_prob_diff", worst)
      .num("mean_max_prob_diff", sum / n)
      .num("argmax_agree", top_agree)
      .num("greedy_agree_tokens", diverge);
  line.print();
  return 0;
}

int run_write_model(const cli::Args& a) {
  if (a.positional.size() < 2) fail(ErrorCode::BadInput, "write-model needs an output path");
  const SeededOptions o = seeded_options(a);
  write_seeded_model(a.positional[1], o);
  const Model m = Model::load(a.positional[1]);
  std::printf("wrote %s: dim %u, %u layers, %u heads / %u KV heads, ffn %u, vocab %u, context %u%s, %llu bytes\n",
              a.positional[1].c_str(), m.config.dim, m.config.layers, m.config.heads, m.config.kv_heads, m.config.ffn,
              m.config.vocab, m.config.context, m.tied ? ", tied output" : "", (unsigned long long)m.file.file_size());
  return 0;
}

}  // namespace

WEFT_CLI_COMMAND(attention) {
  return {.name = "attention", .options = {"prompt", "n", "temperature", "top-k", "seed", "tokens", "context", "batch", "norm-limit",
              "damp", "device", "dim", "layers", "heads", "kv-heads", "ffn", "runs", "copy-mib", "weights", "vocab", "pre", "attn-type", "ffn-type", "embd-type", "output-type", "arch", "head-dim",
              "workflow", "program", "match", "resource", "steps-per-submit",
              "rope-base", "rope-linear", "rope-freqs"},
          .flags = {"check", "validation", "tied"}, .verbs = {{"generate", run_generate}, {"demo", run_demo}, {"bench", run_bench},
              {"write-model", run_write_model}, {"compare", run_compare}},
          .usage = kHelpLines, .help = kUsage, .short_options = {{"-n", "--n"}}};
}
