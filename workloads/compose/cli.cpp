// weft compose NAME | bench: compositions of workloads as ONE program, one submit
// (workloads/compose).
//
//   weft compose game-physics [--root MOVES] [--steps S] [--particles N] [--depth D] [--device SEL] [--validation]
//     the AI picks a move, physics flies the disc, the column it lands over is played, the AI
//     evaluates the outcome: one submit, checked against the host-orchestrated run (three
//     submits) and the CPU references.
//   weft compose dsp-llm [--tokens T] [--frame N] [--device SEL] [--validation]
//     T DSP channels filtered (one hop each), each hop projected to one input row of a seeded
//     llama decoder (in place of token embeddings), prefill and greedy sampling: one submit,
//     checked against the host-orchestrated run (two submits, projection on the host) and the
//     CPU references (FFTW, the decoder reference).
//   weft compose model-token-vm [--streams B] [--steps N] [--prompts UDPL.toml] [--device SEL] [--validation]
//     B seeded llama decoders + samplers + a token VM (forced prompts, generated answers), N
//     steps in one submit, the VM's emitted token fed back to the decoders each step; checked
//     against the host stepping the parts (2N submits) and the CPU reference VM.
//   weft compose gnn-db [--nodes N] [--edges E] [--query SQL] [--device SEL] [--validation]
//     a SQL scan over a nodes table selects node ids, an adapter masks the graph to them, the
//     GNN runs on the induced subgraph: one submit, checked against the host-orchestrated run
//     (two submits) and SQLite + the GNN reference on the induced subgraph.
//   weft compose agent-retrieval [--prompt P] [--docs N] [--k K] [--where SQL] [--device SEL] [--validation]
//     a decoder prefills a prompt, its last hidden row retrieves the top-k documents (dot product)
//     from a DB table, a decoder with the same KV cache continues with the retrieved rows: one
//     submit, checked against the host-orchestrated run (three submits) and the CPU references.
//   weft compose bench [--only NAME] [--runs R] [--device SEL]   (also: weft bench compose)
//     JSON lines per composition: host-orchestrated vs single-submit, GPU-timestamp and wall
//     time, and their ratio.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "compose.h"

namespace {

using namespace weft;
using namespace weft::compose;

// `weft help` lines of this command.
const char* const kHelpLines =
    "  compose NAME|bench [--only NAME --runs R]  workloads composed into one program, one submit\n"
    "                                          (NAME: game-physics, dsp-llm, gnn-db, agent-retrieval,\n"
    "                                          model-token-vm), vs the parts host-orchestrated\n";

const char* kComposeUsage =
    "usage: weft compose NAME [--root MOVES] [--steps S] [--particles N] [--depth D] [--device SEL] [--validation]\n"
    "       weft compose bench [--only NAME] [--runs R] [--device SEL]\n"
    "       weft compose dsp-llm [--tokens T] [--frame N] [--device SEL] [--validation]\n"
    "       weft compose model-token-vm [--streams B] [--steps N] [--prompts UDPL.toml] [--device SEL] [--validation]\n"
    "       weft compose gnn-db [--nodes N] [--edges E] [--query SQL] [--device SEL] [--validation]\n"
    "       weft compose agent-retrieval [--prompt P] [--docs N] [--k K] [--where SQL] [--device SEL] [--validation]\n"
    "  NAME: game-physics, dsp-llm, model-token-vm, gnn-db, agent-retrieval\n"
    "  NAME:  run the composition as one submit, compare with the host-orchestrated parts and CPU references\n"
    "  bench: JSON lines, host-orchestrated vs single-submit time (GPU timestamps and wall clock)\n";

GamePhysicsConfig game_physics_config(const cli::Args& a) {
  GamePhysicsConfig c = game_physics_default();
  c.root_moves = a.get("root", c.root_moves);
  c.steps = uint32_t(a.get_uint("steps", c.steps));
  c.particles = uint32_t(a.get_uint("particles", c.particles));
  c.search.depth = uint32_t(a.get_uint("depth", c.search.depth));
  return c;
}

bool same(const GamePhysicsResult& x, const GamePhysicsResult& y, bool exact_physics) {
  double w = 0;
  for (size_t i = 0; i < x.pos.size() && i < y.pos.size(); ++i) w = std::max(w, double(std::abs(x.pos[i] - y.pos[i])));
  return x.action == y.action && x.played == y.played && x.after == y.after && x.evaluation == y.evaluation &&
         x.pos.size() == y.pos.size() && (exact_physics ? w == 0 : w <= 1e-3);
}

int demo_game_physics(const cli::Args& a) {
  auto dev = open_device(a);
  const GamePhysicsConfig cfg = game_physics_config(a);
  GamePhysicsComposed one(*dev, cfg);
  GamePhysicsOrchestrated host(*dev, cfg);
  const GamePhysicsResult r = one.run(), h = host.run(), ref = game_physics_reference(cfg);
  const game::Board& b = cfg.board;
  const GamePhysicsSetup setup(cfg);
  std::printf("game-physics on %s: one program, %zu stages, %zu instances, 1 submit\n", dev->info().name.c_str(),
              one.program().stages().size(), one.program().instances().size());
  std::printf("root (%ux%u board, moves '%s'):\n%s", b.width, b.height, cfg.root_moves.c_str(), game::render(b, setup.root).c_str());
  std::printf("AI (depth %u): column %d, score %d, confidence %d\n", cfg.search.depth, r.action.move + 1, r.action.score,
              r.action.confidence);
  std::printf("physics: disc launched toward column %u, %u LJ particles, %u steps -> lands over column %u%s; played column %u\n",
              r.intended + 1, cfg.particles, cfg.steps, setup.landed_column(r.pos[0]) + 1, r.fell_back ? " (full: fell back)" : "",
              r.played + 1);
  std::printf("after the move:\n%s", game::render(b, r.after).c_str());
  std::printf("AI evaluates the outcome (opponent to move): best reply column %d, score %d\n", r.evaluation.move + 1,
              r.evaluation.score);
  std::printf("outcome adapter message (R30): played %u, intended %u, fell back %u, physics step %u (its inbox: the last step's R30)\n",
              r.outcome_message[0] + 1, r.outcome_message[1] + 1, r.outcome_message[2], r.outcome_message[3]);
  const bool ok_host = same(r, h, true), ok_ref = same(r, ref, false);
  std::printf("single submit %.3f ms GPU vs host-orchestrated (%u submits) %.3f ms GPU\n", r.gpu_ns * 1e-6, h.submits, h.gpu_ns * 1e-6);
  std::printf("matches host-orchestrated run: %s; matches CPU references: %s\n", ok_host ? "yes" : "NO", ok_ref ? "yes" : "NO");
  return ok_host && ok_ref ? 0 : 1;
}

template <class Run>
void time_runs(Run&& run, uint32_t runs, double& gpu_ms, double& wall_ms) {
  run();  // warm-up
  std::vector<double> g, w;
  for (uint32_t i = 0; i < runs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = run();
    w.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    g.push_back(r.gpu_ns * 1e-6);
  }
  std::sort(g.begin(), g.end());
  std::sort(w.begin(), w.end());
  gpu_ms = g[g.size() / 2];
  wall_ms = w[w.size() / 2];
}

DspLlmConfig dsp_llm_config(const cli::Args& a) {
  DspLlmConfig c;
  c.tokens = uint32_t(a.get_uint("tokens", c.tokens));
  c.frame = uint32_t(a.get_uint("frame", c.frame));
  return c;
}

double max_abs_diff(const std::vector<float>& x, const std::vector<float>& y) {
  if (x.size() != y.size()) return INFINITY;
  double w = 0;
  for (size_t i = 0; i < x.size(); ++i) w = std::max(w, double(std::abs(x[i] - y[i])));
  return w;
}

int demo_dsp_llm(const cli::Args& a) {
  auto dev = open_device(a);
  const DspLlmConfig cfg = dsp_llm_config(a);
  DspLlmComposed one(*dev, cfg);
  DspLlmOrchestrated host(*dev, cfg);
  const DspLlmResult r = one.run(), h = host.run(), ref = dsp_llm_reference(cfg);
  std::printf("dsp-llm on %s: one program, %zu stages, %zu instances, 1 submit\n", dev->info().name.c_str(),
              one.program().stages().size(), one.program().instances().size());
  std::printf("DSP: %u channels, frame %u (hop %u), seeded filters; each filtered hop -> projection -> one decoder input row\n",
              cfg.tokens, cfg.frame, cfg.frame / 2);
  std::printf("decoder: seeded llama, dim %u, %u layers; prefill of %u rows, greedy next token %u\n", cfg.model.dim, cfg.model.layers,
              cfg.tokens, r.sampled);
  const double d_host = max_abs_diff(r.logits, h.logits);
  std::vector<float> ref_logits(ref.logits.begin(), ref.logits.end());
  const double d_ref = max_abs_diff(r.logits, ref_logits);
  std::printf("logits: max |one submit - host-orchestrated| %.3g, max |one submit - CPU reference| %.3g\n", d_host, d_ref);
  std::printf("sampled: one submit %u, host-orchestrated %u, CPU reference argmax %u\n", r.sampled, h.sampled, ref.sampled);
  std::printf("single submit %.3f ms GPU vs host-orchestrated (%u submits) %.3f ms GPU\n", r.gpu_ns * 1e-6, h.submits, h.gpu_ns * 1e-6);
  const bool ok = r.dsp_out == h.dsp_out && d_host <= 1e-3 && d_ref <= 1e-2 && r.sampled == h.sampled && r.sampled == ref.sampled;
  std::printf("matches host-orchestrated run and CPU references: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}

ModelTokenVmConfig model_token_vm_config(const cli::Args& a) {
  ModelTokenVmConfig c;
  c.streams = uint32_t(a.get_uint("streams", c.streams));
  c.steps = uint32_t(a.get_uint("steps", c.steps));
  const std::string path = a.get("prompts");
  if (!path.empty()) {
    c.prompts_toml = read_text_file(path, "compose model-token-vm: cannot read the prompts file");
    c.prompts_path = path;
  }
  return c;
}

std::string printable(const std::string& t) {
  std::string o;
  for (unsigned char ch : t) o += (ch >= 32 && ch < 127) ? std::string(1, char(ch)) : (ch == '\n' ? std::string("\\n") : std::string("."));
  return o;
}

int demo_model_token_vm(const cli::Args& a) {
  auto dev = open_device(a);
  const ModelTokenVmConfig cfg = model_token_vm_config(a);
  ModelTokenVmComposed one(*dev, cfg);
  ModelTokenVmOrchestrated host(*dev, cfg);
  const ModelTokenVmResult r = one.run(), h = host.run();
  const ModelTokenVmReplay ref = model_token_vm_replay(one.setup(), r.sampled);
  std::printf("model-token-vm on %s: one program, %zu stages, %zu instances, 1 submit (%u streams x %u steps)\n", dev->info().name.c_str(),
              one.program().stages().size(), one.program().instances().size(), cfg.streams, cfg.steps);
  std::printf("decoder: seeded llama, dim %u, %u layers, byte vocabulary; sampling temperature %.2f top-k %u\n", cfg.model.dim,
              cfg.model.layers, cfg.sampling.temperature, cfg.sampling.top_k);
  bool records_ok = true;
  for (uint32_t b = 0; b < cfg.streams; ++b) {
    std::string sampled, emitted;
    for (uint32_t i = 0; i < cfg.steps; ++i) {
      sampled += one.setup().tokenizer.decode(std::vector<token_vm::Token>{r.sampled[size_t(i) * cfg.streams + b]});
      const token_vm::TraceRecord d = token_vm::trace_record(r.trace, cfg.streams, i, b);
      emitted += one.setup().tokenizer.decode(std::vector<token_vm::Token>{d.token});
      records_ok = records_ok && ref.records[b].size() == cfg.steps && d == ref.records[b][i];
    }
    std::printf("stream %u sampled: \"%s\"\n", b, printable(sampled).c_str());
    std::printf("stream %u emitted: \"%s\"\n", b, printable(emitted).c_str());
    for (const auto& [k, v] : ref.extractions[b]) std::printf("stream %u extraction %s: \"%s\"\n", b, k.c_str(), printable(v).c_str());
  }
  std::printf("single submit %.3f ms GPU vs host-orchestrated (%u submits) %.3f ms GPU\n", r.gpu_ns * 1e-6, h.submits, h.gpu_ns * 1e-6);
  const bool ok_host = r.sampled == h.sampled && r.trace == h.trace && r.vm_state == h.vm_state;
  std::printf("matches host-orchestrated run: %s; VM records match the CPU reference VM: %s\n", ok_host ? "yes" : "NO",
              records_ok ? "yes" : "NO");
  return ok_host && records_ok ? 0 : 1;
}

GnnDbConfig gnn_db_config(const cli::Args& a) {
  GnnDbConfig c;
  c.nodes = uint32_t(a.get_uint("nodes", c.nodes));
  c.edges = uint32_t(a.get_uint("edges", c.edges));
  c.query = a.get("query", c.query);
  return c;
}

int demo_gnn_db(const cli::Args& a) {
  auto dev = open_device(a);
  const GnnDbConfig cfg = gnn_db_config(a);
  GnnDbComposed one(*dev, cfg);
  GnnDbOrchestrated host(*dev, cfg);
  const GnnDbResult r = one.run(), h = host.run(), ref = gnn_db_reference(cfg);
  std::printf("gnn-db on %s: one program, %zu stages, %zu instances, 1 submit\n", dev->info().name.c_str(),
              one.program().stages().size(), one.program().instances().size());
  std::printf("query: %s\n", cfg.query.c_str());
  std::printf("selected %zu of %u nodes (SQLite: %zu); GNN: %u features, %u layers, %u edge types x %u edges, on the induced subgraph\n",
              r.selected.size(), cfg.nodes, ref.selected.size(), cfg.features, cfg.layers, cfg.edge_types, cfg.edges);
  std::vector<float> ref_emb(ref.embeddings.begin(), ref.embeddings.end());
  const double d_host = max_abs_diff(r.embeddings, h.embeddings), d_ref = max_abs_diff(r.embeddings, ref_emb);
  std::printf("embeddings: max |one submit - host-orchestrated| %.3g, max |one submit - CPU reference| %.3g\n", d_host, d_ref);
  std::printf("single submit %.3f ms GPU vs host-orchestrated (%u submits) %.3f ms GPU\n", r.gpu_ns * 1e-6, h.submits, h.gpu_ns * 1e-6);
  const bool ok = r.bad_ids == 0 && r.selected == h.selected && r.selected == ref.selected && d_host == 0 && d_ref <= 1e-4;
  std::printf("matches host-orchestrated run and CPU references: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}

AgentRetrievalConfig agent_retrieval_config(const cli::Args& a) {
  AgentRetrievalConfig c;
  c.prompt = uint32_t(a.get_uint("prompt", c.prompt));
  c.docs = uint32_t(a.get_uint("docs", c.docs));
  c.k = uint32_t(a.get_uint("k", c.k));
  c.where = a.get("where", c.where);
  return c;
}

int demo_agent_retrieval(const cli::Args& a) {
  auto dev = open_device(a);
  const AgentRetrievalConfig cfg = agent_retrieval_config(a);
  AgentRetrievalComposed one(*dev, cfg);
  AgentRetrievalOrchestrated host(*dev, cfg);
  const AgentRetrievalResult r = one.run(), h = host.run(), ref = agent_retrieval_reference(cfg);
  std::printf("agent-retrieval on %s: one program, %zu stages, %zu instances, 1 submit\n", dev->info().name.c_str(),
              one.program().stages().size(), one.program().instances().size());
  std::printf("agent: seeded llama dim %u, %u layers, prompt of %u tokens; docs: %u rows, filter '%s'; top %u by dot product\n",
              cfg.model.dim, cfg.model.layers, cfg.prompt, cfg.docs, cfg.where.c_str(), cfg.k);
  for (size_t i = 0; i < r.picks.size(); ++i)
    std::printf("  pick %zu: doc %u, score %.6g (host %u, reference %u)\n", i, r.picks[i], r.scores[i], i < h.picks.size() ? h.picks[i] : 0u,
                i < ref.picks.size() ? ref.picks[i] : 0u);
  std::vector<float> ref_logits(ref.logits.begin(), ref.logits.end());
  const double d_host = max_abs_diff(r.logits, h.logits), d_ref = max_abs_diff(r.logits, ref_logits);
  std::printf("continuation at positions %u..%u; next token %u (host %u, reference argmax %u)\n", cfg.prompt, cfg.prompt + cfg.k - 1,
              r.sampled, h.sampled, ref.sampled);
  std::printf("logits: max |one submit - host-orchestrated| %.3g, max |one submit - CPU reference| %.3g\n", d_host, d_ref);
  std::printf("single submit %.3f ms GPU vs host-orchestrated (%u submits) %.3f ms GPU\n", r.gpu_ns * 1e-6, h.submits, h.gpu_ns * 1e-6);
  const bool ok = r.picks == h.picks && r.picks == ref.picks && r.rows == h.rows && d_host <= 1e-3 && d_ref <= 1e-2 &&
                  r.sampled == h.sampled && r.sampled == ref.sampled;
  std::printf("matches host-orchestrated run and CPU references: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}

int run_bench(const cli::Args& a) {
  auto dev = open_device(a);
  const uint32_t runs = std::max<uint32_t>(1, uint32_t(a.get_uint("runs", 5)));
  const std::string only = a.get("only");
  for (const std::string& name : names()) {
    if (!only.empty() && name != only) continue;
    if (!built(name)) {
      bench::Line("compose." + name, *dev).str("composition", name).boolean("built", false).print();
      continue;
    }
    double g1 = 0, w1 = 0, gh = 0, wh = 0;
    size_t stages = 0;
    uint32_t host_submits = 0;
    bench::Line line("compose." + name, *dev);
    line.str("composition", name).boolean("built", true).num("runs", runs);
    if (name == "game-physics") {
      const GamePhysicsConfig cfg = game_physics_config(a);
      GamePhysicsComposed one(*dev, cfg);
      GamePhysicsOrchestrated host(*dev, cfg);
      time_runs([&] { return one.run(); }, runs, g1, w1);
      time_runs([&] { return host.run(); }, runs, gh, wh);
      stages = one.program().stages().size();
      host_submits = 3;
      line.num("particles", cfg.particles).num("steps", cfg.steps).num("search_depth", cfg.search.depth);
    } else if (name == "model-token-vm") {
      const ModelTokenVmConfig cfg = model_token_vm_config(a);
      ModelTokenVmComposed one(*dev, cfg);
      ModelTokenVmOrchestrated host(*dev, cfg);
      time_runs([&] { return one.run(); }, runs, g1, w1);
      time_runs([&] { return host.run(); }, runs, gh, wh);
      stages = one.program().stages().size();
      host_submits = 2 * cfg.steps;
      line.num("streams", cfg.streams).num("steps", cfg.steps).num("model_dim", cfg.model.dim).num("layers", cfg.model.layers);
      line.num("single_barriers", double(one.barriers())).num("host_decoder_barriers_per_step", double(host.decoder_barriers()));
    } else if (name == "gnn-db") {
      const GnnDbConfig cfg = gnn_db_config(a);
      GnnDbComposed one(*dev, cfg);
      GnnDbOrchestrated host(*dev, cfg);
      time_runs([&] { return one.run(); }, runs, g1, w1);
      time_runs([&] { return host.run(); }, runs, gh, wh);
      stages = one.program().stages().size();
      host_submits = 2;
      line.num("nodes", cfg.nodes).num("edges", cfg.edges).num("features", cfg.features).num("layers", cfg.layers);
    } else if (name == "agent-retrieval") {
      const AgentRetrievalConfig cfg = agent_retrieval_config(a);
      AgentRetrievalComposed one(*dev, cfg);
      AgentRetrievalOrchestrated host(*dev, cfg);
      time_runs([&] { return one.run(); }, runs, g1, w1);
      time_runs([&] { return host.run(); }, runs, gh, wh);
      stages = one.program().stages().size();
      host_submits = 3;
      line.num("prompt", cfg.prompt).num("docs", cfg.docs).num("k", cfg.k).num("model_dim", cfg.model.dim).num("layers", cfg.model.layers);
    } else {
      const DspLlmConfig cfg = dsp_llm_config(a);
      DspLlmComposed one(*dev, cfg);
      DspLlmOrchestrated host(*dev, cfg);
      time_runs([&] { return one.run(); }, runs, g1, w1);
      time_runs([&] { return host.run(); }, runs, gh, wh);
      stages = one.program().stages().size();
      host_submits = 2;
      line.num("channels", cfg.tokens).num("frame", cfg.frame).num("model_dim", cfg.model.dim).num("layers", cfg.model.layers);
    }
    line.num("stages", double(stages))
        .num("single_submits", 1)
        .num("host_submits", host_submits)
        .num("single_gpu_ms", g1)
        .num("host_gpu_ms", gh)
        .num("single_wall_ms", w1)
        .num("host_wall_ms", wh)
        .num("gpu_ratio_host_over_single", gh / g1)
        .num("wall_ratio_host_over_single", wh / w1)
        .print();
  }
  return 0;
}

}  // namespace

WEFT_CLI_COMMAND(compose) {
  return {.name = "compose", .options = {"root", "steps", "particles", "depth", "device", "only", "runs", "tokens", "frame", "streams",
              "prompts", "nodes", "edges", "query", "prompt", "docs", "k", "where"},
          .flags = {"validation"}, .verbs = {{"game-physics", demo_game_physics}, {"gnn-db", demo_gnn_db}, {"dsp-llm", demo_dsp_llm},
              {"agent-retrieval", demo_agent_retrieval}, {"model-token-vm", demo_model_token_vm, {"model-tokenvm"}}, {"bench",
              run_bench}},
          .usage = kHelpLines, .help = kComposeUsage};
}
