// Compositions: one program / one submit against the same parts run host-orchestrated (several
// submits, the host carrying each part's result to the next) and against the parts' CPU
// references chained the same way.
#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <sstream>

#include "compose.h"
#include "conformance.h"

namespace weft::conformance {

namespace {

using namespace weft::compose;

double worst_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double w = 0;
  for (size_t i = 0; i < a.size(); ++i) w = std::max(w, double(std::fabs(a[i] - b[i])));
  return w;
}

std::string describe(const GamePhysicsResult& r) {
  std::ostringstream s;
  s << "move " << r.action.move << " (score " << r.action.score << "), landed/played " << r.played << " (intended " << r.intended
    << (r.fell_back ? ", fell back" : "") << "), reply " << r.evaluation.move << " (score " << r.evaluation.score << ")";
  return s.str();
}

Result game_physics_case(Device& dev, const std::string& root) {
  GamePhysicsConfig cfg = game_physics_default();
  cfg.root_moves = root;
  GamePhysicsComposed one(dev, cfg);
  GamePhysicsOrchestrated host(dev, cfg);
  const GamePhysicsResult a = one.run(), h = host.run(), ref = game_physics_reference(cfg);
  // Same kernels, same data, same order on the same device: the physics state is bit-identical.
  if (!(a.action == h.action)) return Result::fail("first search differs: one submit " + describe(a) + " / host " + describe(h));
  if (a.intended != h.intended || a.played != h.played || a.fell_back != h.fell_back || !(a.after == h.after))
    return Result::fail("outcome differs: one submit " + describe(a) + " / host " + describe(h));
  if (!(a.evaluation == h.evaluation)) return Result::fail("second search differs: one submit " + describe(a) + " / host " + describe(h));
  const double dev_diff = std::max(worst_diff(a.pos, h.pos), worst_diff(a.vel, h.vel));
  if (dev_diff != 0) return Result::fail("physics state differs between one submit and host-orchestrated", dev_diff);
  const GamePhysicsSetup setup(cfg);
  if (a.pos.size() != 3 * size_t(cfg.particles) || a.pos[0] == setup.scenario.state.pos[0] || a.vel[0] == setup.scenario.state.vel[0])
    return Result::fail("the disc did not fly: its position or velocity is unchanged");
  if (a.played != setup.landed_column(a.pos[0]) && !a.fell_back) return Result::fail("played column is not where the disc landed");
  if (a.outcome_message[3] != cfg.steps) return Result::fail("outcome adapter's inbox (last physics step) says step " + std::to_string(a.outcome_message[3]));
  // Against the CPU references: searches exact; physics to f32 rounding (device FMA).
  if (!(a.action == ref.action)) return Result::fail("first search differs from the CPU reference: " + describe(ref));
  const double ref_diff = worst_diff(a.pos, ref.pos);
  if (ref_diff > 1e-3) return Result::fail("physics positions differ from the CPU reference", ref_diff);
  if (a.played != ref.played || !(a.evaluation == ref.evaluation))
    return Result::fail("outcome / second search differ from the CPU reference: " + describe(ref));
  return Result::pass(describe(a) + "; positions vs reference " + std::to_string(ref_diff), ref_diff);
}

// Normalized mean squared error sum (a-b)^2 / sum b^2.
Result dsp_llm_case(Device& dev, uint32_t tokens) {
  DspLlmConfig cfg;
  cfg.tokens = tokens;
  DspLlmComposed one(dev, cfg);
  DspLlmOrchestrated host(dev, cfg);
  const DspLlmResult a = one.run(), h = host.run(), ref = dsp_llm_reference(cfg);
  // The DSP part is the same kernels on the same data: bit-identical across the two paths.
  if (a.dsp_out != h.dsp_out) return Result::fail("DSP outputs differ between one submit and host-orchestrated");
  // The projection: the adapter kernel vs the host's f32 loop in the same order (FMA may differ).
  const double e_rows = compare(a.rows, h.rows).nmse(), e_logits = compare(a.logits, h.logits).nmse();
  if (!(e_rows <= 1e-10)) return Result::fail("input rows vs host projection: NMSE " + std::to_string(e_rows), e_rows);
  if (!(e_logits <= 1e-8)) return Result::fail("logits vs host-orchestrated: NMSE " + std::to_string(e_logits), e_logits);
  const double margin = top_margin(a.logits);
  if (margin > 1e-3 && a.sampled != h.sampled) return Result::fail("sampled token differs from host-orchestrated");
  // Against the CPU references (FFTW in double, the decoder reference in double).
  const double e_dsp = compare(a.dsp_out, ref.dsp_out).nmse(), e_ref_rows = compare(a.rows, ref.rows).nmse(), e_ref = compare(a.logits, ref.logits).nmse();
  if (!(e_dsp <= 1e-10)) return Result::fail("DSP output vs FFTW reference: NMSE " + std::to_string(e_dsp), e_dsp);
  if (!(e_ref_rows <= 1e-10)) return Result::fail("input rows vs reference: NMSE " + std::to_string(e_ref_rows), e_ref_rows);
  if (!(e_ref <= 1e-7)) return Result::fail("logits vs CPU reference: NMSE " + std::to_string(e_ref), e_ref);
  if (margin > 1e-3 && a.sampled != ref.sampled) return Result::fail("sampled token differs from the CPU reference's argmax");
  return Result::pass("token " + std::to_string(a.sampled) + "; logits NMSE vs host " + std::to_string(e_logits) + ", vs reference " +
                          std::to_string(e_ref),
                      e_ref);
}

// model-token-vm: the single submit against the host stepping the decoders and the device VM
// (reading each step's tokens back), token for token and record for record; the VM's records
// against the CPU reference VM (token_vm::Machine over token_vm::Reference) fed the same sampled
// tokens; and the workflow really ran (forced text replaced sampled tokens, the model's tokens
// filled answer zones, a zone transition happened).
Result model_token_vm_case(Device& dev, uint32_t streams, uint32_t steps, float temperature) {
  ModelTokenVmConfig cfg;
  cfg.streams = streams;
  cfg.steps = steps;
  cfg.sampling.temperature = temperature;
  ModelTokenVmComposed one(dev, cfg);
  ModelTokenVmOrchestrated host(dev, cfg);
  const ModelTokenVmResult a = one.run(), h = host.run();
  const uint32_t B = streams;
  if (a.sampled.size() != size_t(steps) * B || a.sampled != h.sampled) {
    for (size_t i = 0; i < std::min(a.sampled.size(), h.sampled.size()); ++i)
      if (a.sampled[i] != h.sampled[i])
        return Result::fail("sampled token differs from host-orchestrated at step " + std::to_string(i / B) + " stream " +
                            std::to_string(i % B) + ": " + std::to_string(a.sampled[i]) + " vs " + std::to_string(h.sampled[i]));
    return Result::fail("sampled token counts differ from host-orchestrated");
  }
  if (a.trace != h.trace) return Result::fail("token VM records differ from host-orchestrated");
  if (a.vm_state != h.vm_state) return Result::fail("token VM state after the run differs from host-orchestrated");
  const ModelTokenVmReplay ref = model_token_vm_replay(one.setup(), a.sampled);
  uint32_t forced = 0, generated = 0, replaced = 0, transitions = 0;
  for (uint32_t b = 0; b < B; ++b) {
    if (ref.records[b].size() != steps) return Result::fail("CPU reference VM made " + std::to_string(ref.records[b].size()) + " records");
    for (uint32_t i = 0; i < steps; ++i) {
      const token_vm::TraceRecord d = token_vm::trace_record(a.trace, B, i, b), r = ref.records[b][i];
      if (!(d == r))
        return Result::fail("stream " + std::to_string(b) + " step " + std::to_string(i) + ": device " + token_vm::describe(d) +
                            ", CPU reference " + token_vm::describe(r));
      forced += d.source() == TVM_SRC_FORCED;
      generated += d.source() == TVM_SRC_SAMPLED;
      replaced += d.token != a.sampled[size_t(i) * B + b];
      transitions += d.transition() != 0;
    }
  }
  // The decoders against the attention CPU reference (double) fed the tokens the VM emitted:
  // the last step's logits, and every step's pick by the reference sampler (same uniform draw)
  // where the pick is not within float noise of a tie (top-2 margin > 1e-3 for greedy).
  uint32_t checked = 0, agree = 0;
  double e_logits = 0;
  for (uint32_t b = 0; b < B; ++b) {
    attention::Reference dec(one.setup().model, one.setup().cfg.model.context, attention::Rules{}, 1);
    const attention::Sampling smp = one.setup().sampling(b);
    std::vector<float> lf;
    for (uint32_t i = 0; i < steps; ++i) {
      // A pad leaves the decoder's input as it was: the step recomputes the same position.
      if (i == 0 || !token_vm::trace_record(a.trace, B, i - 1, b).pad()) {
        const uint32_t tok = i == 0 ? cfg.first_token : a.emitted(i - 1, b, B);
        const std::vector<double> lg = dec.forward(std::vector<uint32_t>{tok});
        lf.assign(lg.begin(), lg.end());
      }
      uint32_t want = attention::ref::sample(lf, smp, attention::ref::sample_uniform(smp.seed, dec.position()));
      if (want >= one.setup().tokenizer.vocab_size()) want = token_vm::ByteTokenizer::kPad;
      if (temperature > 0 || top_margin(lf) > 1e-3) {
        ++checked;
        agree += want == a.sampled[size_t(i) * B + b];
      }
    }
    e_logits = std::max(e_logits, compare(a.logits[b], lf).nmse());
  }
  if (!(e_logits <= 1e-7)) return Result::fail("last logits vs the decoder CPU reference: NMSE " + std::to_string(e_logits), e_logits);
  if (2 * checked < steps * B) return Result::fail("too few steps away from a tie to check the decoder picks: " + std::to_string(checked));
  if (agree != checked)
    return Result::fail("reference sampler agrees on " + std::to_string(agree) + " of " + std::to_string(checked) + " steps", e_logits);
  if (a.handoff_message != a.sampled[size_t(steps - 1) * B]) return Result::fail("handoff R30 is not the last step's stream-0 token");
  if (a.feedback_message != a.emitted(steps - 1, 0, B)) return Result::fail("feedback R30 is not the last emitted stream-0 token");
  if (!forced || !generated || !replaced || !transitions)
    return Result::fail("the workflow was not exercised: forced " + std::to_string(forced) + ", sampled " + std::to_string(generated) +
                        ", replaced " + std::to_string(replaced) + ", transitions " + std::to_string(transitions));
  return Result::pass(std::to_string(steps) + " steps x " + std::to_string(B) + " streams; forced " + std::to_string(forced) +
                      ", sampled " + std::to_string(generated) + ", transitions " + std::to_string(transitions) +
                      "; decoder reference: last logits NMSE " + std::to_string(e_logits) + ", picks " + std::to_string(agree) + "/" +
                      std::to_string(checked), e_logits);
}

// ---- steered generation ----------------------------------------------------------------------
const char* const kSteeredToolPrompts = R"([config]
zone_patterns = ["[Q]", "[A]", "[EOS]"]
required_patterns = ["[Q]", "[A]"]
valid_tags = ["call", "result", "answer"]
default_max_token_length = 16
sequences = ["ask", "result", "final"]
control_pattern = "[Jump]"
escape_patterns = ["[Escape]", "[EndEscape]"]
tools = ["calculator"]

[[ask]]
text = "[Q] 6 * 7 = ? [A]"
tags = [[], ["call"]]
max_gen_tokens = 5

[[result]]
text = "[Q]=[A]"
tags = [[], ["result"]]
max_gen_tokens = 24

[[final]]
text = "[Q] So? [A]"
tags = [[], ["answer"]]
max_gen_tokens = 4
)";

// The tool prompts with a logit mask on the answer: the model may write only digits there.
const std::string steered_masked_prompts() {
  std::string p = kSteeredToolPrompts;
  const std::string at = "[[final]]\ntext = \"[Q] So? [A]\"\n";
  p.replace(p.find(at), at.size(), at + "allow = [\"0123456789\", \"[EOS]\"]\n");
  return p;
}

// A seeded model (byte vocabulary, BOS <s>) steered by `prompts`: the default program, or with
// `tool_flow` ask -> calculator -> its answer fed into `result` -> final.
struct SteeredCase {
  attention::Model model;
  token_vm::ModelTokenizer tokenizer;
  token_vm::Workflow workflow;
  token_vm::VmConfig vm;
  SteeredCase(const std::string& prompts, bool tool_flow)
      : model(attention::Model::from(gguf::File::parse(attention::seeded_model({.context = 256}).bytes(), "<seeded model>"))),
        tokenizer(steered_tokenizer(model)) {
    auto parsed = std::make_shared<const token_vm::Prompts>(token_vm::parse_udpl(prompts, "<steered prompts>"));
    token_vm::Program flow(parsed);
    if (tool_flow) flow.capture("ask", "calculator").feed("result").run("final").extract("answers", {"answer"});
    else flow = token_vm::default_program(parsed);
    workflow = flow.compile(tokenizer);
    vm = steered_vm_config(workflow, tokenizer);
  }
};

// Until DONE (at most `max_steps`), K steps per submit, tool calls answered between submits; then
// the run against the CPU references, and what it must have exercised.
Result steered_case(Device& dev, const std::string& prompts, bool tool_flow, uint32_t K, attention::Sampling sampling, uint32_t max_steps) {
  SteeredCase c(prompts, tool_flow);
  SteeredOptions o;
  o.steps_per_submit = K;
  o.sampling = sampling;
  auto backend = std::make_unique<SteeredModel>(dev, c.model, c.workflow, c.vm, o);
  SteeredModel& steered = *backend;
  token_vm::Machine m(c.workflow, c.tokenizer, std::move(backend));
  std::map<std::string, token_vm::ToolFn> tools;
  for (const std::string& t : c.workflow.tools) m.set_tool(t, tools[t] = token_vm::builtin_tool(t));
  while (!m.done() && m.steps_taken() < max_steps) {
    m.run_source(K);
    m.resolve_callbacks();
  }
  if (!m.done()) return Result::fail("not DONE after " + std::to_string(m.steps_taken()) + " steps");
  const std::vector<token_vm::TraceRecord>& records = m.status()[0];
  const SteeredCheck check = check_steered(c.model, c.workflow, c.tokenizer, c.vm, o, steered.sampled(), records, tools);
  if (!check.ok()) return Result::fail(check.first_difference);
  if (2 * check.picks_checked < check.steps) return Result::fail("too few steps away from a tie to check the picks: " + std::to_string(check.picks_checked));
  std::array<uint32_t, 6> by_source{};
  uint32_t consumed = 0;
  for (const token_vm::TraceRecord& r : records) {
    ++by_source[std::min<uint32_t>(r.source(), 5)];
    consumed += !r.pad();
  }
  // The decoder consumed every emitted token and no pad: its position on the device says so.
  if (steered.position() != consumed)
    return Result::fail("the decoder is at position " + std::to_string(steered.position()) + " after " + std::to_string(consumed) + " emitted tokens");
  const bool exercised = by_source[TVM_SRC_FORCED] && by_source[TVM_SRC_SAMPLED] &&
                         (!tool_flow || (by_source[TVM_SRC_FEED] && by_source[TVM_SRC_WAIT]));
  std::string counts = "forced " + std::to_string(by_source[TVM_SRC_FORCED]) + ", sampled " + std::to_string(by_source[TVM_SRC_SAMPLED]) +
                             ", fed " + std::to_string(by_source[TVM_SRC_FEED]) + ", waiting " + std::to_string(by_source[TVM_SRC_WAIT]) +
                             ", done pads " + std::to_string(by_source[TVM_SRC_DONE]);
  if (!exercised) return Result::fail("the workflow was not exercised: " + counts);
  // Under a logit mask the model sampled only allowed tokens (those steps, and how many).
  uint32_t under_mask = 0;
  for (size_t i = 0; i < records.size(); ++i) {
    const uint32_t z = records[i].pc;
    if (z >= c.workflow.zone_allowed.size() || c.workflow.zone_allowed[z] == token_vm::kNone) continue;
    const auto& set = c.workflow.allowed_sets[c.workflow.zone_allowed[z]];
    if (!std::binary_search(set.begin(), set.end(), steered.sampled()[i]))
      return Result::fail("step " + std::to_string(i) + ": the model sampled " + std::to_string(steered.sampled()[i]) + " outside the zone's allowed tokens");
    ++under_mask;
  }
  if (!c.workflow.zone_allowed.empty() && under_mask == 0) return Result::fail("no step ran under the logit mask");
  if (!c.workflow.zone_allowed.empty()) counts += ", under the mask " + std::to_string(under_mask);
  return Result::pass(std::to_string(records.size()) + " steps, " + std::to_string(K) + " per submit; " + counts + "; picks " +
                      std::to_string(check.picks_agreeing) + "/" + std::to_string(check.picks_checked) + " == attention reference");
}

// What the steered backend does not take is refused by name.
Result steered_bad_input(Device& dev) {
  SteeredCase c(model_token_vm_default_prompts(), false);
  auto expect = [&](const std::function<void()>& f, const std::string& needle) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      if (e.code() == ErrorCode::BadInput && std::string(e.what()).find(needle) != std::string::npos) return {};
      return "'" + needle + "': got " + e.what();
    }
    return "'" + needle + "': no error";
  };
  SteeredOptions zero;
  zero.steps_per_submit = 0;
  token_vm::VmConfig two = c.vm;
  two.batch = 2;
  SteeredModel steered(dev, c.model, c.workflow, c.vm);
  std::vector<uint32_t> trace;
  const token_vm::Token tok[1] = {5};
  for (const std::string& e : {expect([&] { SteeredModel(dev, c.model, c.workflow, c.vm, zero); }, "steps per submit must be 1.."),
                               expect([&] { SteeredModel(dev, c.model, c.workflow, two); }, "runs one stream"),
                               expect([&] { steered.run_source(3, trace); }, "whole submits of 8 steps"),
                               expect([&] { steered.run(tok, 1, trace); }, "scripted tokens are not taken")})
    if (!e.empty()) return Result::fail(e);
  return Result::pass("zero steps per submit, two streams, a partial submit, scripted tokens: BadInput");
}

// Out-of-range sizes and a malformed prompts file are BadInput naming what is wrong.
Result model_token_vm_bad_input(Device& dev) {
  auto expect = [&](const ModelTokenVmConfig& cfg, const std::string& needle) -> std::string {
    try {
      ModelTokenVmComposed one(dev, cfg);
    } catch (const Error& e) {
      if (e.code() != ErrorCode::BadInput) return std::string("wrong error code: ") + e.what();
      if (std::string(e.what()).find(needle) == std::string::npos) return std::string("message lacks '") + needle + "': " + e.what();
      return {};
    }
    return "no error for a config that needs '" + needle + "'";
  };
  ModelTokenVmConfig c;
  c.streams = 5;
  std::string why = expect(c, "streams");
  if (why.empty()) {
    c = {};
    c.steps = 0;
    why = expect(c, "steps");
  }
  if (why.empty()) {
    c = {};
    c.steps = kModelTokenVmMaxSteps + 1;
    why = expect(c, "steps");
  }
  if (why.empty()) {
    c = {};
    c.prompts_toml = "[config]\nzone_patterns = [\"[Q]\"\n";
    c.prompts_path = "bad.toml";
    why = expect(c, "bad.toml");
  }
  return why.empty() ? Result::pass("streams 5, steps 0 and 257, a malformed prompts file: BadInput") : Result::fail(why);
}

Result gnn_db_case(Device& dev, const std::string& query, gnn::Aggregation agg) {
  GnnDbConfig cfg;
  cfg.query = query;
  cfg.aggregation = agg;
  GnnDbComposed one(dev, cfg);
  GnnDbOrchestrated host(dev, cfg);
  const GnnDbResult a = one.run(), h = host.run(), ref = gnn_db_reference(cfg);
  // The selection is integer data: exact across the paths and against SQLite.
  if (a.bad_ids != 0) return Result::fail("select adapter saw " + std::to_string(a.bad_ids) + " ids outside the nodes");
  if (a.selected != h.selected) return Result::fail("selected nodes differ between one submit and host-orchestrated");
  if (a.selected != ref.selected) return Result::fail("selected nodes differ from SQLite");
  if (a.selected.empty() || a.selected.size() == cfg.nodes) return Result::fail("the query selected no node or every node: not a subgraph");
  // The masked GNN is the same kernels on the same data and mask: bit-identical across the paths.
  if (a.embeddings != h.embeddings) return Result::fail("GNN embeddings differ between one submit and host-orchestrated", worst_diff(a.embeddings, h.embeddings));
  // Against the GNN's double reference run on the induced subgraph (relabelled), f32 rounding.
  const double e = compare(a.embeddings, ref.embeddings).nmse();
  if (!(e <= 1e-10)) return Result::fail("embeddings vs the GNN reference on the induced subgraph: NMSE " + std::to_string(e), e);
  // The selection must matter: the full graph's GNN gives other embeddings for the selected nodes.
  const GnnDbSetup setup(cfg);
  const gnn::ReferenceResult full = gnn::reference_forward(setup.graph, setup.model, gnn::Rules{});
  std::vector<double> full_rows;
  for (uint32_t i : a.selected)
    full_rows.insert(full_rows.end(), full.h.back().begin() + size_t(i) * cfg.features, full.h.back().begin() + size_t(i + 1) * cfg.features);
  const double e_full = compare(a.embeddings, full_rows).nmse();
  if (!(e_full > 1e-4)) return Result::fail("the subgraph's embeddings equal the full graph's: the mask had no effect", e_full);
  return Result::pass(std::to_string(a.selected.size()) + " of " + std::to_string(cfg.nodes) + " nodes; NMSE vs reference " +
                          std::to_string(e) + " (vs the full graph " + std::to_string(e_full) + ")",
                      e);
}

Result agent_retrieval_case(Device& dev, uint32_t k, const std::string& where) {
  AgentRetrievalConfig cfg;
  cfg.k = k;
  cfg.where = where;
  AgentRetrievalComposed one(dev, cfg);
  AgentRetrievalOrchestrated host(dev, cfg);
  const AgentRetrievalResult a = one.run(), h = host.run(), ref = agent_retrieval_reference(cfg);
  // The agent is the same kernels on the same data: its query row is bit-identical; the scores
  // are the same doubles (no contraction on either side), so the picks and rows are exact.
  if (a.query != h.query) return Result::fail("agent's query row differs between one submit and host-orchestrated", worst_diff(a.query, h.query));
  if (a.picks.size() != k) return Result::fail("retrieved " + std::to_string(a.picks.size()) + " rows, not k = " + std::to_string(k));
  if (a.picks != h.picks || a.scores != h.scores) return Result::fail("retrieved ids / scores differ between one submit and host-orchestrated");
  if (a.rows != h.rows) return Result::fail("retrieved rows differ between one submit and host-orchestrated");
  const double e_host = compare(a.logits, h.logits).nmse();
  if (!(e_host <= 1e-10)) return Result::fail("logits vs host-orchestrated: NMSE " + std::to_string(e_host), e_host);
  if (a.sampled != h.sampled) return Result::fail("sampled token differs from host-orchestrated");
  // Against attention::Reference (double, its own KV cache continued) and SQLite + double top-k.
  const double e_q = compare(a.query, ref.query).nmse();
  if (!(e_q <= 1e-7)) return Result::fail("agent's query row vs the decoder reference: NMSE " + std::to_string(e_q), e_q);
  if (a.picks != ref.picks) return Result::fail("retrieved ids differ from SQLite + reference top-k");
  for (size_t i = 0; i < k; ++i)
    if (std::fabs(a.scores[i] - ref.scores[i]) > 1e-4 * std::max(1.0, std::fabs(ref.scores[i])))
      return Result::fail("retrieval score " + std::to_string(i) + " differs from the reference", std::fabs(a.scores[i] - ref.scores[i]));
  if (a.rows != ref.rows) return Result::fail("retrieved rows differ from SQLite's rows");
  const double e_ref = compare(a.logits, ref.logits).nmse();
  if (!(e_ref <= 1e-7)) return Result::fail("logits vs CPU reference: NMSE " + std::to_string(e_ref), e_ref);
  if (top_margin(a.logits) > 1e-3 && a.sampled != ref.sampled) return Result::fail("sampled token differs from the CPU reference's argmax");
  std::string ids;
  for (uint32_t id : a.picks) ids += (ids.empty() ? "" : ",") + std::to_string(id);
  return Result::pass("picks " + ids + ", token " + std::to_string(a.sampled) + "; logits NMSE vs host " + std::to_string(e_host) +
                          ", vs reference " + std::to_string(e_ref),
                      e_ref);
}

// Inputs the compositions cannot honour are refused as BadInput naming what, before any run.
Result bad_input_case(Device& dev) {
  struct Try {
    const char* what;
    std::function<void()> run;
  };
  const std::vector<Try> tries = {
      {"gnn-db with ORDER BY", [&] { GnnDbConfig c; c.query = "SELECT id FROM nodes ORDER BY id"; GnnDbComposed x(dev, c); }},
      {"gnn-db with a Float column", [&] { GnnDbConfig c; c.query = "SELECT score FROM nodes"; GnnDbComposed x(dev, c); }},
      {"gnn-db with an unknown column", [&] { GnnDbConfig c; c.query = "SELECT nope FROM nodes"; GnnDbComposed x(dev, c); }},
      {"agent-retrieval with k = 0", [&] { AgentRetrievalConfig c; c.k = 0; AgentRetrievalComposed x(dev, c); }},
      {"agent-retrieval past the context", [&] { AgentRetrievalConfig c; c.prompt = c.model.context; AgentRetrievalComposed x(dev, c); }},
      {"agent-retrieval with a GROUP BY", [&] { AgentRetrievalConfig c; c.where = "topic = 1 GROUP BY topic"; AgentRetrievalComposed x(dev, c); }},
  };
  for (const Try& t : tries) {
    try {
      t.run();
      return Result::fail(std::string(t.what) + ": accepted");
    } catch (const Error& e) {
      if (e.code() != ErrorCode::BadInput) return Result::fail(std::string(t.what) + ": not BadInput: " + e.what());
    }
  }
  return Result::pass(std::to_string(tries.size()) + " refused as BadInput", 0);
}

}  // namespace

std::vector<Case> compose_cases() {
  return {
      {"compose.game_physics.empty_board", "searches exact; physics bit-identical across paths, 1e-3 vs CPU reference",
       [](Device& d) { return game_physics_case(d, ""); }},
      {"compose.game_physics.midgame", "searches exact; physics bit-identical across paths, 1e-3 vs CPU reference",
       [](Device& d) { return game_physics_case(d, "3324"); }},
      {"compose.dsp_llm.four_channels", "DSP bit-identical across paths; NMSE rows 1e-10, logits 1e-8 vs host, 1e-7 vs CPU references",
       [](Device& d) { return dsp_llm_case(d, 4); }},
      {"compose.dsp_llm.one_channel", "DSP bit-identical across paths; NMSE rows 1e-10, logits 1e-8 vs host, 1e-7 vs CPU references",
       [](Device& d) { return dsp_llm_case(d, 1); }},
      {"compose.model_token_vm.two_streams", "exact vs host-stepped (tokens, VM records, state); VM records == CPU reference VM; decoder picks == attention reference, logits NMSE 1e-7",
       [](Device& d) { return model_token_vm_case(d, 2, 40, 0.9f); }},
      {"compose.model_token_vm.one_stream_greedy", "exact vs host-stepped (tokens, VM records, state); VM records == CPU reference VM; decoder picks == attention reference, logits NMSE 1e-7",
       [](Device& d) { return model_token_vm_case(d, 1, 24, 0.0f); }},
      {"compose.model_token_vm.bad_input", "BadInput naming the field or file", model_token_vm_bad_input},
      {"compose.steered.greedy", "a model steered to DONE on device, 8 steps per submit: VM records == CPU reference VM; picks == attention reference; decoder position == emitted tokens",
       [](Device& d) { return steered_case(d, model_token_vm_default_prompts(), false, 8, {}, 256); }},
      {"compose.steered.sampled_tool_call", "as greedy, temperature 0.9 / top-k 8, a calculator call answered between submits and fed back; pads not consumed",
       [](Device& d) { return steered_case(d, kSteeredToolPrompts, true, 16, {0.9f, 8, 5}, 256); }},
      {"compose.steered.logit_mask", "as sampled_tool_call, the answer zone masked to digits and [EOS]: every sample there allowed, picks == attention reference on the masked logits",
       [](Device& d) { return steered_case(d, steered_masked_prompts(), true, 16, {0.9f, 8, 5}, 256); }},
      {"compose.steered.bad_input", "BadInput naming what the steered backend does not take", steered_bad_input},
      {"compose.agent_retrieval.top2", "picks, scores, rows exact vs host; logits NMSE 1e-10 vs host; picks exact and logits NMSE 1e-7 vs SQLite + attention reference",
       [](Device& d) { return agent_retrieval_case(d, 2, "topic <> 1"); }},
      {"compose.agent_retrieval.top4_filtered", "picks, scores, rows exact vs host; logits NMSE 1e-10 vs host; picks exact and logits NMSE 1e-7 vs SQLite + attention reference",
       [](Device& d) { return agent_retrieval_case(d, 4, "topic = 2 OR id < 1010"); }},
      {"compose.bad_input", "gnn-db / agent-retrieval inputs they cannot honour are BadInput", [](Device& d) { return bad_input_case(d); }},
      {"compose.gnn_db.mean", "selection exact vs host and SQLite; embeddings bit-identical vs host, NMSE 1e-10 vs the GNN reference on the induced subgraph",
       [](Device& d) { return gnn_db_case(d, GnnDbConfig{}.query, gnn::Aggregation::Mean); }},
      {"compose.gnn_db.sum_range", "selection exact vs host and SQLite; embeddings bit-identical vs host, NMSE 1e-10 vs the GNN reference on the induced subgraph",
       [](Device& d) { return gnn_db_case(d, "SELECT id FROM nodes WHERE score >= 0.2 AND score < 0.6 AND community <> 3", gnn::Aggregation::Sum); }},
      {"compose.gnn_db.max", "selection exact vs host and SQLite; embeddings bit-identical vs host, NMSE 1e-10 vs the GNN reference on the induced subgraph",
       [](Device& d) { return gnn_db_case(d, "SELECT id FROM nodes WHERE community = 0 OR community = 2", gnn::Aggregation::Max); }},
  };
}

}  // namespace weft::conformance
