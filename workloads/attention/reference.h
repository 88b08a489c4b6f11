// The CPU reference of the decoder: every operation in double precision on weights dequantized
// by quant.cpp (an implementation independent of the shaders), with its own KV cache, the same
// activation-norm rule and the same sampler. Per-operation functions are public so the kernel
// tests compare each kernel with exactly the operation it implements. Vulkan-free.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "model.h"

namespace weft::attention {

// The regulator role as data: after layer l, when the hidden state's RMS (largest over the
// tokens of the batch) is outside [0, norm_limit] (NaN included), layer l gets the anomaly status
// and the residual stream entering layer l+1 is multiplied by `damp`.
struct Rules {
  float norm_limit = 3.0e38f;
  float damp = 1.0f;
};

struct Sampling {
  float temperature = 0.0f;  // 0: greedy
  uint32_t top_k = 0;        // 0: the whole vocabulary (with temperature > 0)
  uint32_t seed = 0;
};
inline constexpr uint32_t kMaxTopK = 64;

namespace ref {

std::vector<double> matvec(const Weight& w, std::span<const uint8_t> data_section, std::span<const double> x);
std::vector<double> rmsnorm(std::span<const double> x, std::span<const float> w, double eps);
// Rotates pair i of every head by pos * base^(-2i / head_dim): the pairs (2i, 2i+1) in ggml's
// "normal" RoPE (llama), (i, i + head_dim/2) in its NeoX RoPE (qwen2, qwen3).
void rope(std::span<double> v, uint32_t heads, uint32_t head_dim, uint32_t pos, const RopeFrequencies& rope, bool neox = false);
// RMSNorm of each of `heads` head rows of head_dim values in place, times w (qwen3's q/k norms).
void head_norm(std::span<double> v, uint32_t heads, uint32_t head_dim, std::span<const float> w, double eps);
void softmax(std::span<double> v);
// Causal GQA attention of one token at position `pos`: q (heads x head_dim), caches holding
// positions 0..pos (kv_heads x head_dim each). Query head h reads KV head h / (heads / kv_heads).
std::vector<double> attention(std::span<const double> q, const std::vector<std::vector<double>>& k_cache,
                              const std::vector<std::vector<double>>& v_cache, uint32_t pos, uint32_t heads, uint32_t kv_heads,
                              uint32_t head_dim);
std::vector<double> swiglu(std::span<const double> gate, std::span<const double> up);
// The uniform number in [0, 1) the sampler draws for the token at `position`.
float sample_uniform(uint32_t seed, uint32_t position);
// Greedy when temperature <= 0 or top_k == 1 (ties: lowest id); else candidates = the top_k
// largest logits (descending, ties by id) or every token (by id), p ∝ exp((l - max) / T), and
// the first candidate whose running sum exceeds u * total.
uint32_t sample(std::span<const float> logits, const Sampling& s, float u);

}  // namespace ref

struct LayerReport {
  double rms = 0;      // largest RMS of the hidden state over the batch's tokens, after the layer
  double max_abs = 0;
  bool anomaly = false;
};

class Reference {
 public:
  // max_batch: tokens per run, as the decoder's (0: any number in one run). The norm rule acts
  // per run, so a prefill longer than max_batch is split the same way on both sides.
  Reference(const Model& model, uint32_t context, Rules rules = {}, uint32_t max_batch = 0);
  // Runs `tokens` at the next positions (appending to the KV cache); logits of the last one.
  // layers() then merges the runs: largest RMS and max |x|, anomaly if any run had one.
  std::vector<double> forward(std::span<const uint32_t> tokens);
  // One run from input rows instead of token embeddings (T rows of dim values, T <= max_batch
  // when set): what a decoder built with DecoderOptions::embed computes.
  std::vector<double> forward_rows(std::vector<std::vector<double>> rows);
  uint32_t position() const { return pos_; }
  const std::vector<LayerReport>& layers() const { return reports_; }  // of the last forward
  const std::vector<double>& hidden() const { return hidden_; }        // last token, after the last layer

 private:
  const Model& m_;
  uint32_t context_;
  Rules rules_;
  uint32_t max_batch_;
  std::vector<double> run(std::span<const uint32_t> tokens);  // one run: reports_ of this run
  std::vector<double> run_rows(std::vector<std::vector<double>> x);
  uint32_t pos_ = 0;
  std::vector<std::vector<std::vector<double>>> k_, v_;  // [layer][pos][kv_dim]
  std::vector<std::vector<float>> norms_;               // attn/ffn norms per layer, then output
  struct LayerVectors {
    std::vector<float> bq, bk, bv, q_norm, k_norm;  // empty where the architecture has none
  };
  std::vector<LayerVectors> vectors_;
  std::vector<LayerReport> reports_;
  std::vector<double> hidden_;
};

}  // namespace weft::attention
