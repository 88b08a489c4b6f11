// Attention workload: a llama-architecture decoder from a GGUF file as a chain on Weft's fixed
// bindings.
//
// Layout. Heap (immutable): the weights as they are in the file (F32/F16/Q8_0/Q4_0 tensors,
// dequantized on the fly by the kernels; no f32 copy of any weight) and a RoPE cos/sin table.
// Where the weights live (WeightPlacement): in the bound window, the GGUF data section as one
// segment, or, for a model whose weights do not fit the window (maxStorageBufferRange), every
// matrix (what matvec and embed read) as a Heap far segment of its own, read by the _far kernel
// variants; the norm vectors then stay in the window, one segment each. Globals (mutable): per
// layer the KV cache (context x kv_heads*head_dim, K and V), the batch's tokens, the state words
// (pos0, T), the activations of up to max_batch tokens (x, xn, q, attention output, scores,
// gate, up), the logits and the sampled token.
//
// Chain, per layer l (instance "<prefix>.layer<l>", registers dim words wide):
//   rmsnorm (x *= residual scale_l first) -> matvec q, k, v (k, v into the cache at pos0 + t)
//   -> rope (q and the new k rows) -> attn_scores (QK^T / sqrt(hd), causal, GQA) -> softmax
//   -> attn_values (P V) -> matvec wo (x +=) -> rmsnorm -> matvec gate, up -> swiglu
//   -> matvec down (x +=) -> layer_stats (R30 = hidden state of the last token; Metrics norm =
//   largest token RMS, max_abs, anomaly status when not finite) -> regulator.
// then (instance "<prefix>.head") rmsnorm of the last token -> matvec output -> logits, and
// (instance "<prefix>.sampler") sample -> the token in R30[0] and Globals.
// Stages that depend on the batch size dispatch from indirect slots whose counts the host sets
// per run, so one recorded program serves a prefill of T tokens and a 1-token decode step.
//
// Regulator role (rules as data, after every layer): RMS outside [0, norm_limit] (NaN
// included) -> the layer's status becomes anomaly, and the next layer's residual scale word is
// set to `damp`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "gguf.h"
#include "model.h"
#include "ops.h"
#include "quant.h"
#include "reference.h"

namespace weft::attention {

struct DecoderProgram;

// Where the weights go. The window is faster to read (one descriptor, no address per word);
// far segments take models of any size (buffer device addresses, weft_layout.h).
enum class WeightPlacement {
  Auto,      // Decoder: in the window when the in-window layout fits the device, else far
  InWindow,  // the GGUF data section as one Heap segment (add_decoder reads Auto as this)
  Far,       // each matrix a Heap far segment of its own (needs bufferDeviceAddress)
};
const char* placement_name(WeightPlacement w);  // "auto", "window", "far"
WeightPlacement parse_placement(const std::string& s);  // the names above; BadInput otherwise

struct DecoderOptions {
  // Names of the instances ("<prefix>.layer0", ...), segments, slots and control words, so two
  // decoders (or a decoder and other workloads) can share one Program.
  std::string prefix = "attn";
  uint32_t context = 0;    // positions the KV cache holds; 0: min(model context, 2048)
  uint32_t max_batch = 0;  // tokens per run (prefill chunk); 0: min(context, 32)
  Rules rules;
  WeightPlacement weights = WeightPlacement::Auto;
  // The Decoder's largest allocation for a far segment's chunk (RecordOptions; 0: the device's).
  uint64_t max_allocation_bytes = 0;
  // When set, called in place of the token-embedding stage (after the layout is added): the
  // caller's stages write the input rows (max_batch x dim f32) into "<prefix>.x", e.g. another
  // workload's features through an adapter kernel. set_batch() still sets T and pos0 (the token
  // ids it writes are then unused). A Decoder with Auto placement whose weights go far calls it
  // twice: on the in-window program it measured and dropped, then on the one it records.
  std::function<void(Program&, const DecoderProgram&)> embed;
  // When set, called in every decoder step between the output head and the sampler (`suffix`:
  // the step's, as append_decoder_step got it): the caller's stages may change "<prefix>.logits"
  // before the sampler draws from them, e.g. a logit mask.
  std::function<void(Program&, const DecoderProgram&, const std::string& suffix)> before_sample;
  // When set, decoder_program calls it on each new Program before the decoder's layout (it may
  // build the program twice, see embed): the caller's segments and instances that the hooks
  // above refer to.
  std::function<void(Program&)> prepare;
};

// What add_decoder added to a Program.
struct DecoderProgram {
  std::string prefix;
  uint32_t context = 0, max_batch = 0;
  WeightPlacement weights = WeightPlacement::InWindow;  // as laid out: never Auto
  std::vector<InstanceId> layers;
  InstanceId head, sampler;
  struct BatchSlot {
    SlotId slot;
    uint32_t axis;     // which group count follows the batch size
    uint32_t per = 1;  // tokens per group along it (matvec: a tile of ops::kMatvecTokens)
  };
  std::vector<BatchSlot> batch_slots;
  std::vector<uint32_t> scale_words;  // residual scale of each layer (f32, 1.0)
  uint32_t sampling_words = 0;        // temperature f32, top_k u32, seed u32
  std::vector<StageId> regulators;
  // Segments "input_rows" (max_batch x dim f32: what the layers read; DecoderOptions::embed's
  // stages write it), "tokens", "state", "sampled" (u32), "logits" (vocab f32), "k<l>"/"v<l>"
  // (layer l's KV cache, context x kv_dim f32); instances "first_layer" (its inbox is the
  // decoder's message in), "last_layer" and "sampler" (its outbox: [the sampled token]).
  Ports ports;
  std::string name(const std::string& what) const { return prefix + "." + what; }
};

// Appends the decoder's segments, instances, slots, control words, rules and stages to
// `program` (which may already hold other workloads' stages). The weights are not uploaded
// here: call upload() on the Executable made from the program.
DecoderProgram add_decoder(Program& program, const Model& model, const DecoderOptions& options);
// Appends the decoder's stages once more (embedding or options.embed, layers and regulators,
// head, sampler) on the layout add_decoder made; `suffix` keeps the stage names unique. With
// the feedback of another stage (next token, pos0 + 1) between them, k copies run k decode
// steps in one submit. add_decoder calls it once with suffix "".
void append_decoder_step(Program& program, const Model& model, DecoderProgram& dp, const DecoderOptions& options,
                         const std::string& suffix);
// The program a Decoder records on a device with `info`: options.weights resolved (Auto: in the
// window when the in-window layout fits it, else far), then what must stay in the window (KV
// cache, activations, norms, RoPE table) checked against it. BadInput naming the model when
// that does not fit; MissingFeature when the weights go far and the device has no
// bufferDeviceAddress.
Program decoder_program(const DeviceInfo& info, const Model& model, const DecoderOptions& options, DecoderProgram& dp);
// Unsupported (a driver that stops loops sooner would attend to a prefix of the context without
// a sign of it) when the attention kernels' loops over `context` positions exceed the device's
// loop-iteration limit; the error names the largest context that fits.
void require_loop_cap(Device& device, const Model& model, uint32_t context);
// Writes the weights and the RoPE table into the Executable's Heap. Far tensors of a model read
// from a file are written from the file tensor by tensor (Executable::write_segment_from_file),
// so no host copy of the model is made.
void upload(Executable& exe, const DecoderProgram& dp, const Model& model);
// Prepares the next run: `tokens` (1 .. max_batch ids < vocab) at positions pos0 .. pos0+T-1
// (< context). Writes the tokens and state words and sets the batch slots. BadInput otherwise.
void set_batch(Executable& exe, const DecoderProgram& dp, const Model& model, std::span<const uint32_t> tokens, uint32_t pos0);
void set_sampling(Executable& exe, const DecoderProgram& dp, const Sampling& sampling);
// What the last run left: the logits of the batch's last row, and the token the sampler picked.
std::vector<float> read_logits(Executable& exe, const DecoderProgram& dp);
uint32_t read_sampled(Executable& exe, const DecoderProgram& dp);

struct LayerMetrics {
  float rms = 0, max_abs = 0;
  uint32_t status = 0, layer = 0, tokens = 0, pos0 = 0, sequence = 0;
};

// A decoder alone on one device: recorded once, replayed for every prefill chunk and step.
class Decoder {
 public:
  Decoder(Device& device, const Model& model, DecoderOptions options = {});
  // Runs tokens at the next positions (in chunks of max_batch); the logits of the last one.
  std::vector<float> prefill(std::span<const uint32_t> tokens);
  std::vector<float> step(uint32_t token) { return prefill(std::span<const uint32_t>(&token, 1)); }
  uint32_t sampled();  // the token the device sampled from the last logits
  void set_sampling(const Sampling& s);
  void reset() { pos_ = 0; }  // the cache rows are overwritten from position 0 on
  uint32_t position() const { return pos_; }
  uint32_t context() const { return dp_.context; }
  // Of the last prefill or step; a prefill run in several chunks is merged into one report
  // (largest RMS, anomaly if any chunk had one). The norm rule itself acts per chunk.
  const std::vector<LayerMetrics>& layer_metrics() const { return metrics_; }
  std::vector<float> hidden();               // R30 of the last layer: the last token's hidden state
  double gpu_ns();                           // of the last run
  std::vector<KindTime> stage_times();       // of the last run, per operation
  Executable& executable() { return *exe_; }
  const DecoderProgram& program() const { return dp_; }

 private:
  const Model& model_;
  DecoderProgram dp_;
  std::unique_ptr<Executable> exe_;
  uint32_t pos_ = 0;
  std::vector<LayerMetrics> metrics_;
  void merge_metrics(bool first);
};

}  // namespace weft::attention
