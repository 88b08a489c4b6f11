// Compositions: several workloads appended to ONE Program, recorded into one command buffer and
// run with one submit, messages passing R30 -> R31 between the workloads' instances; small
// adapter kernels (shaders/) turn one workload's output into the next one's input. Each
// composition also runs "host-orchestrated": the same parts as separate executables, the host
// reading one part's result and feeding the next (several submits), to compare results and time.
#pragma once

#include <array>
#include <map>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "attention.h"
#include "db.h"
#include "dsp.h"
#include "gnn.h"
#include "game.h"
#include "physics.h"
#include "token_vm.h"
#include "token_vm_frontend.h"

namespace weft::compose {

// Names `weft compose` knows, in spec order; only some are built (see built()).
const std::vector<std::string>& names();
bool built(const std::string& name);

// ---- game-physics -------------------------------------------------------------------------
// The AI picks a column for root position `root` (search "act."), a disc (physics particle 0 in
// an LJ gas) is launched toward that column's centre and simulated `steps` steps, the column it
// ends over is played (the intended one if that column is full), and a second search ("eval.")
// evaluates the resulting position for the opponent. The last physics step's message is the
// outcome adapter's inbox, whose message is the second search's first inbox.
struct GamePhysicsConfig {
  game::Board board{5, 4};
  game::SearchConfig search;   // depth 3 by default (set in game_physics_default())
  std::string root_moves = "3";  // 1-based columns from the empty board
  uint32_t particles = 27;
  uint32_t steps = 16;
  float density = 0.3f, temperature = 0.5f, dt = 0.004f;
  uint32_t seed = 7;
  uint64_t node_capacity = 20000;  // per search, levels 1..L
};
GamePhysicsConfig game_physics_default();

struct GamePhysicsResult {
  game::RootResult action;     // first search, root 0
  uint32_t intended = 0, played = 0;
  bool fell_back = false;
  game::Position after;        // root of the second search
  game::RootResult evaluation;  // second search (the opponent's view)
  std::vector<float> pos, vel;  // physics state after the steps, xyz per particle
  std::vector<uint32_t> outcome_message;  // the outcome adapter's R30 (single-submit only)
  double gpu_ns = 0;            // GPU-timestamp time (sum over the submits)
  uint32_t submits = 0;
};

// Everything both paths share: scenario, launch velocity table.
struct GamePhysicsSetup {
  GamePhysicsConfig cfg;
  game::Position root;
  physics::Scenario scenario;  // steps_per_submit = cfg.steps
  std::vector<float> launch;   // per column: the disc's velocity xyz
  float columns_per_length = 0;  // W / Lx
  explicit GamePhysicsSetup(const GamePhysicsConfig& c);
  uint32_t landed_column(float x) const;
};

// One program, one submit.
class GamePhysicsComposed {
 public:
  GamePhysicsComposed(Device& device, const GamePhysicsConfig& cfg);
  GamePhysicsResult run();
  const Program& program() const { return exe_->program(); }
  uint32_t submits_per_run() const { return 1; }

 private:
  GamePhysicsSetup setup_;
  game::GameProgram act_, eval_;
  physics::PhysicsProgram phys_;
  InstanceId launch_, outcome_;
  std::unique_ptr<Executable> exe_;
};

// The same parts as separate executables driven by the host (three submits).
class GamePhysicsOrchestrated {
 public:
  GamePhysicsOrchestrated(Device& device, const GamePhysicsConfig& cfg);
  GamePhysicsResult run();

 private:
  Device& device_;
  GamePhysicsSetup setup_;
  game::Search act_, eval_;
  physics::PhysicsProgram phys_;
  std::unique_ptr<Executable> phys_exe_;
};

// CPU references of the parts chained the same way (game::reference_search, physics::Reference).
GamePhysicsResult game_physics_reference(const GamePhysicsConfig& cfg);

// ---- dsp-llm ------------------------------------------------------------------------------
// T audio channels run through the DSP chain (one hop of a streaming spectral filter each); an
// adapter projects each channel's filtered hop (its instance's R30) to one input row of a small
// llama decoder (the seeded attention model), in place of token embeddings; the decoder runs the
// T rows as a prefill and samples the next token. The last channel's message is the adapter's
// inbox, and the adapter's message (the last row) the first layer's inbox.
struct DspLlmConfig {
  uint32_t tokens = 4;   // = DSP channels
  uint32_t frame = 512;  // DSP frame N (hop N/2)
  uint32_t seed = 5;
  attention::SeededOptions model;  // dim 64, 2 layers by default
};

struct DspLlmResult {
  std::vector<float> dsp_out;   // tokens x hop, the filtered hops
  std::vector<float> rows;      // tokens x dim, the decoder's input rows
  std::vector<float> logits;    // of the last row
  uint32_t sampled = 0;         // greedy: argmax of the logits
  double gpu_ns = 0;
  uint32_t submits = 0;
};

struct DspLlmSetup {
  DspLlmConfig cfg;
  dsp::Config dsp;
  attention::Model model;
  std::vector<float> block;       // tokens x hop samples
  std::vector<float> projection;  // dim x hop
  DspLlmSetup(const DspLlmConfig& c, const Device* device);
  uint32_t dim() const { return model.config.dim; }
  attention::DecoderOptions decoder_options() const;
};

class DspLlmComposed {
 public:
  DspLlmComposed(Device& device, const DspLlmConfig& cfg);
  DspLlmResult run();
  const Program& program() const { return exe_->program(); }

 private:
  DspLlmSetup setup_;
  dsp::DspProgram dsp_;
  InstanceId features_;
  attention::DecoderProgram dec_;
  std::unique_ptr<Executable> exe_;
};

class DspLlmOrchestrated {
 public:
  DspLlmOrchestrated(Device& device, const DspLlmConfig& cfg);
  DspLlmResult run();

 private:
  DspLlmSetup setup_;
  dsp::DspProgram dsp_;
  std::unique_ptr<Executable> dsp_exe_;
  attention::DecoderProgram dec_;
  std::unique_ptr<Executable> dec_exe_;
};

// dsp::Reference (FFTW, double) -> the projection in double -> attention::Reference::forward_rows.
DspLlmResult dsp_llm_reference(const DspLlmConfig& cfg);

// ---- model-token-vm ------------------------------------------------------------------------
// B streams, each a seeded llama decoder (byte-level vocabulary: model ids 0..255 are bytes, the
// token VM's ByteTokenizer ids; the model's ids 256..258 become the pad token 256) with its
// on-device sampler, and one token VM over the B streams (a small UDPL workflow: forced prompt
// text, generated answer zones the model's tokens fill until their close pattern or timeout).
// Each of N steps: every decoder consumes its stream's token at the next position (the KV cache
// grows) and samples; the `handoff` adapter writes the sampled tokens as the VM step's sampled
// row (stream 0's token arrives as a message: decoder 0's sampler R30 -> handoff R31); the VM
// step replaces them with forced text where the workflow forces; the `feedback` adapter writes
// the emitted tokens as the decoders' next input (tokens[0], pos0 + 1). N steps, one submit.
inline constexpr uint32_t kModelTokenVmMaxSteps = 256;
struct ModelTokenVmConfig {
  uint32_t streams = 2;   // B, 1..4 (one decoder instance per stream)
  // N is at most kModelTokenVmMaxSteps: every step adds B x ~36 + 3 stages to one program.
  uint32_t steps = 48;    // N (the built-in prompts take 47 steps to DONE); the context is raised to N
  uint32_t first_token = '\n';  // what every decoder consumes at position 0
  attention::SeededOptions model;  // context raised to N when smaller
  attention::Sampling sampling{0.9f, 8, 21};  // stream b: seed + b
  std::string prompts_toml;  // UDPL text (every sequence run in order); empty: the built-in file
  std::string prompts_path = "<model-token-vm prompts>";  // named in parse errors
};

struct ModelTokenVmResult {
  std::vector<uint32_t> sampled;  // [N][B] what the samplers picked (after the pad mapping)
  std::vector<uint32_t> trace;    // [N][B][TVM_TRACE_WORDS] the token VM's records
  std::vector<uint32_t> vm_state; // the VM state after the last step
  std::vector<std::vector<float>> logits;  // per stream, of the last step
  uint32_t handoff_message = 0, feedback_message = 0;  // the adapters' R30[0] (single submit)
  double gpu_ns = 0;
  uint32_t submits = 0;
  uint32_t emitted(uint32_t step, uint32_t stream, uint32_t B) const { return trace[(size_t(step) * B + stream) * TVM_TRACE_WORDS]; }
};

struct ModelTokenVmSetup {
  ModelTokenVmConfig cfg;
  attention::Model model;
  token_vm::ByteTokenizer tokenizer;
  token_vm::Workflow workflow;
  token_vm::VmConfig vm;  // resolved
  explicit ModelTokenVmSetup(const ModelTokenVmConfig& c);
  attention::DecoderOptions decoder_options(uint32_t stream) const;
  attention::Sampling sampling(uint32_t stream) const;
};
const std::string& model_token_vm_default_prompts();

class ModelTokenVmComposed {
 public:
  ModelTokenVmComposed(Device& device, const ModelTokenVmConfig& cfg);
  ModelTokenVmResult run();
  const Program& program() const { return exe_->program(); }
  const ModelTokenVmSetup& setup() const { return setup_; }
  size_t barriers() const { return exe_->plan().barriers.size(); }

 private:
  ModelTokenVmSetup setup_;
  std::vector<attention::DecoderProgram> dec_;
  token_vm::VmSegments vm_;
  InstanceId handoff_, feedback_;
  std::unique_ptr<Executable> exe_;
};

// The host steps: per step one submit of the B decoders, the host reads the sampled tokens, one
// submit of the device token VM (token_vm::DeviceVm, one step), the host reads the emitted
// tokens and sets them as the decoders' next batch (2N submits).
class ModelTokenVmOrchestrated {
 public:
  ModelTokenVmOrchestrated(Device& device, const ModelTokenVmConfig& cfg);
  ModelTokenVmResult run();
  size_t decoder_barriers() const { return exe_->plan().barriers.size(); }  // per decoder submit

 private:
  Device& device_;
  ModelTokenVmSetup setup_;
  std::vector<attention::DecoderProgram> dec_;
  std::unique_ptr<Executable> exe_;
  std::unique_ptr<token_vm::DeviceVm> vm_;  // one step per submit
};

// The CPU reference token VM (token_vm::Machine over token_vm::Reference) fed `sampled`
// ([N][B]); its records, extractions and generated text.
struct ModelTokenVmReplay {
  std::vector<std::vector<token_vm::TraceRecord>> records;  // [B][N]
  std::vector<std::map<std::string, std::string>> extractions;
  std::vector<std::string> text;  // what each stream's model saw
};
ModelTokenVmReplay model_token_vm_replay(const ModelTokenVmSetup& setup, const std::vector<uint32_t>& sampled);
// ---- steered generation: a GGUF model driven by a token VM workflow, on the device ----------
// The model-token-vm composition made real: one stream of a GGUF model (any size and weight type
// the decoder takes) steered by a workflow compiled with the model's own tokenizer. Each step,
// recorded K times into one program (K steps per submit, no host round trip per token): the
// decoder consumes its input token at the next position and samples -> `handoff` (the sampled
// token as the VM step's sampled row) -> the token VM step (forced prompt text, tool answers or
// the sample; zone transitions) -> `feedback` (the emitted token is the decoder's next input; a
// pad while the stream waits for a tool or is DONE leaves the input as it was). The decoder starts
// from the vocabulary's BOS token at position 0. It is a token VM backend whose token source is
// the model, so token_vm::Machine drives it (Machine::run_source): tool calls are resolved
// between submits, extractions and the generative sequence read as for any backend.
struct SteeredOptions {
  uint32_t steps_per_submit = 8;  // K, 1..kModelTokenVmMaxSteps
  attention::Sampling sampling;   // the decoder's sampler (greedy by default)
  uint32_t context = 0;           // KV-cache positions; 0: the decoder's default
  attention::WeightPlacement weights = attention::WeightPlacement::Auto;
};

class SteeredModel final : public token_vm::Backend {
 public:
  // `workflow` was compiled with (or checked against) the model's own tokenizer; `vm` is
  // resolve_config()'s result for batch 1. BadInput when the model has no vocabulary or BOS
  // token, or the tokenizer's vocabulary is not the model's.
  SteeredModel(Device& device, const attention::Model& model, const token_vm::Workflow& workflow, const token_vm::VmConfig& vm,
               const SteeredOptions& options = {});

  const token_vm::StateLayout& layout() const override { return vm_.layout; }
  const char* name() const override { return "steered model"; }
  uint32_t max_steps() const override { return options_.steps_per_submit; }
  // One submit of exactly max_steps() steps (the decoder's stages are recorded per step); BadInput
  // for another count, and when the next submit could run past the context.
  void run_source(uint32_t steps, std::vector<uint32_t>& trace) override;
  // The model is the token source: scripted tokens and logits are refused (BadInput).
  void run(std::span<const token_vm::Token> sampled, uint32_t steps, std::vector<uint32_t>& trace) override;
  void set_logits(std::span<const float> logits, uint32_t vocab) override;
  void run_sampler(const token_vm::SamplerConfig& sampler, uint32_t first_step, uint32_t steps, std::vector<uint32_t>& trace) override;
  void read_state(uint64_t word, std::span<uint32_t> out) override;
  void write_state(uint64_t word, std::span<const uint32_t> in) override;

  // What the model sampled at every step so far, before the VM replaced any of them.
  const std::vector<uint32_t>& sampled() const { return sampled_; }
  // The position the decoder's next step consumes its input at (its state word on the device):
  // one per emitted token that was not a pad.
  uint32_t position();
  uint32_t context() const { return dp_.context; }
  // Whether one more submit of max_steps() steps stays inside the context (run_source refuses it otherwise).
  bool fits_another_submit() { return uint64_t(position()) + options_.steps_per_submit <= dp_.context; }
  double last_gpu_ns();
  Executable& executable() { return *exe_; }

 private:
  const attention::Model& model_;
  SteeredOptions options_;
  attention::DecoderProgram dp_;
  token_vm::VmSegments vm_;
  std::unique_ptr<Executable> exe_;
  std::vector<uint32_t> sampled_;
};

// The VM configuration of a steered run of `workflow`: one stream, and the tokenizer's bytes when
// the workflow matches patterns on bytes (resolve_config checks it).
token_vm::VmConfig steered_vm_config(const token_vm::Workflow& workflow, const token_vm::Tokenizer& tokenizer);

// The model's own tokenizer as the token VM sees it (a view: the model must outlive it). BadInput
// when the model has none.
token_vm::ModelTokenizer steered_tokenizer(const attention::Model& model);

// The largest logit minus the runner-up: below ~1e-3 a greedy pick may legitimately differ
// between the device (f32) and a double reference.
double top_margin(std::span<const float> logits);

// A steered run replayed on the CPU references: the token VM reference (token_vm::Reference),
// fed the model's samples in the same submits with the same tool answers, must make the same
// records; the attention reference (double), fed the tokens the VM emitted, must pick what the
// device sampled (same uniform draw; greedy steps within 1e-3 of a tie are not counted).
struct SteeredCheck {
  uint32_t steps = 0, picks_checked = 0, picks_agreeing = 0;
  std::string first_difference;  // empty when every record and counted pick agreed
  bool ok() const { return first_difference.empty(); }
};
SteeredCheck check_steered(const attention::Model& model, const token_vm::Workflow& workflow, const token_vm::Tokenizer& tokenizer,
                           const token_vm::VmConfig& vm, const SteeredOptions& options, const std::vector<uint32_t>& sampled,
                           const std::vector<token_vm::TraceRecord>& records, const std::map<std::string, token_vm::ToolFn>& tools);

// ---- gnn-db -------------------------------------------------------------------------------
// A SQL scan over a `nodes` table (id, score, community) selects node ids; the `select` adapter
// turns the query's output rows into a node mask in Globals; the GNN (gnn::AppendOptions::
// node_mask) aggregates only edges between selected nodes, so each selected node's embeddings
// are those of the GNN run on the induced subgraph. The query output's R30 (the result
// reference) is the adapter's R31.
struct GnnDbConfig {
  uint32_t nodes = 96, edges = 384, features = 16, edge_types = 2, layers = 2;
  gnn::Aggregation aggregation = gnn::Aggregation::Mean;
  uint32_t seed = 3;
  // One table, one Int output column of node ids, no join / aggregate / ORDER BY / LIMIT.
  std::string query = "SELECT id FROM nodes WHERE community = 1 OR score > 0.8";
};

struct GnnDbResult {
  std::vector<uint32_t> selected;  // node ids, ascending
  std::vector<float> embeddings;   // final layer, selected rows (in `selected` order) x F
  uint32_t bad_ids = 0;            // ids outside 0..nodes-1 (single-submit adapter)
  double gpu_ns = 0;
  uint32_t submits = 0;
};

struct GnnDbSetup {
  GnnDbConfig cfg;
  gnn::Graph graph;
  gnn::Model model;
  db::Database database;  // the `nodes` table
  db::Plan plan;
  explicit GnnDbSetup(const GnnDbConfig& c);
};

class GnnDbComposed {
 public:
  GnnDbComposed(Device& device, const GnnDbConfig& cfg);
  GnnDbResult run();
  const Program& program() const { return exe_->program(); }

 private:
  GnnDbSetup setup_;
  std::unique_ptr<db::AppendedQuery> query_;
  InstanceId select_;
  gnn::GnnProgram gnn_;
  std::unique_ptr<Executable> exe_;
};

// db::DeviceQuery (submit 1), the mask on the host, the masked GNN (submit 2).
class GnnDbOrchestrated {
 public:
  GnnDbOrchestrated(Device& device, const GnnDbConfig& cfg);
  GnnDbResult run();

 private:
  GnnDbSetup setup_;
  std::unique_ptr<db::DeviceQuery> query_;
  gnn::GnnProgram gnn_;
  std::unique_ptr<Executable> gnn_exe_;
};

// SQLite for the selection, gnn::reference_forward (double) on the induced subgraph.
GnnDbResult gnn_db_reference(const GnnDbConfig& cfg);

// ---- agent-retrieval ----------------------------------------------------------------------
// A seeded llama decoder ("agent.") prefills P prompt tokens; its last hidden row (after the last
// layer) is the query vector. A DB query over a `docs` table (id, topic, e0..e{D-1}) returns the
// candidate rows; the `retrieve` adapter scores them by dot product (double) and writes the top k
// embeddings as the input rows of a second decoder ("cont.", same weights), whose KV cache rows
// 0..P-1 are copied from the first (`copy_words`), so it continues the prompt at positions
// P..P+k-1 with the retrieved rows and samples the next token. Messages: the agent's last layer's
// R30 is the adapter's R31; the adapter's R30 (the picked ids) the continuing decoder's first
// layer's R31; the adapter reads the DB output's R30 (the result reference) as a register range.
struct AgentRetrievalConfig {
  uint32_t prompt = 4, docs = 48, k = 2, seed = 11;
  std::string where = "topic <> 1";  // the DB filter over docs (SQL expression)
  attention::SeededOptions model;     // dim 64, 2 layers, context 64
};

struct AgentRetrievalResult {
  std::vector<float> query;        // the agent's last hidden row (dim)
  std::vector<uint32_t> picks;     // doc ids, best first
  std::vector<double> scores;      // their dot products (f32 precision on the device path)
  std::vector<float> rows;         // k x dim, the continuing decoder's input rows
  std::vector<float> logits;       // the continuing decoder's last row
  uint32_t sampled = 0;
  double gpu_ns = 0;
  uint32_t submits = 0;
};

struct AgentRetrievalSetup {
  AgentRetrievalConfig cfg;
  attention::Model model;
  std::vector<uint32_t> prompt;
  db::Database database;
  db::Plan plan;
  std::string sql;
  explicit AgentRetrievalSetup(const AgentRetrievalConfig& c);
  uint32_t dim() const { return model.config.dim; }
  attention::DecoderOptions options(const char* prefix, uint32_t batch) const;
};

class AgentRetrievalComposed {
 public:
  AgentRetrievalComposed(Device& device, const AgentRetrievalConfig& cfg);
  AgentRetrievalResult run();
  const Program& program() const { return exe_->program(); }

 private:
  AgentRetrievalSetup setup_;
  std::unique_ptr<db::AppendedQuery> query_;
  attention::DecoderProgram agent_, cont_;
  InstanceId retrieve_;
  std::unique_ptr<Executable> exe_;
};

// The agent (submit 1), the DB query (submit 2), scoring and top-k on the host, the continuing
// decoder with the agent's KV cache written by the host (submit 3).
class AgentRetrievalOrchestrated {
 public:
  AgentRetrievalOrchestrated(Device& device, const AgentRetrievalConfig& cfg);
  AgentRetrievalResult run();

 private:
  AgentRetrievalSetup setup_;
  attention::DecoderProgram agent_, cont_;
  std::unique_ptr<Executable> agent_exe_, cont_exe_;
  std::unique_ptr<db::DeviceQuery> query_;
};

// attention::Reference (prompt, then forward_rows of the retrieved rows on the same KV cache),
// SQLite for the candidates, scores and top-k in double.
AgentRetrievalResult agent_retrieval_reference(const AgentRetrievalConfig& cfg);

}  // namespace weft::compose
