// A llama-architecture model read from a GGUF file (Vulkan-free, like gguf.h): hyperparameters
// from the llama.* keys, the weight table checked name by name against the shapes the
// architecture needs, and the tokenizer vocabulary from the tokenizer.ggml.* keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gguf.h"
#include "gguf_vocabulary.h"
#include "tokenizer.h"

namespace weft::attention {

// The architectures Weft runs (general.architecture); their keys are "<arch>.*".
//   llama  RoPE on adjacent pairs
//   qwen2  biases on q, k, v; RoPE on pairs (i, i + head_dim / 2) ("NeoX" order)
//   qwen3  RMSNorm of each query and key head before RoPE (attn_q_norm / attn_k_norm); NeoX
//          RoPE; the head dimension may differ from dim / heads (attention.key_length)
// RoPE's rotation of pair i at position pos (llama.cpp's rope with frequency factors and linear
// scaling): pos * scale * base^(-2i / head_dim) / factors[i]. YaRN and other scalings are refused.
struct RopeFrequencies {
  double base = 10000.0;       // <arch>.rope.freq_base
  double scale = 1.0;          // 1 / <arch>.rope.scaling.factor when rope.scaling.type is "linear"
  std::vector<float> factors;  // rope_freqs.weight, head_dim / 2 values (Llama 3.1's long-context rule); empty: all 1
  double angle(uint32_t pos, uint32_t pair, uint32_t head_dim) const;
};

struct Config {
  std::string arch = "llama";  // general.architecture
  uint32_t dim = 0;        // <arch>.embedding_length
  uint32_t layers = 0;     // <arch>.block_count
  uint32_t ffn = 0;        // <arch>.feed_forward_length
  uint32_t heads = 0;      // <arch>.attention.head_count
  uint32_t kv_heads = 0;   // <arch>.attention.head_count_kv (default: heads)
  uint32_t head_dim = 0;   // <arch>.attention.key_length, else dim / heads
  uint32_t vocab = 0;      // rows of token_embd.weight
  uint32_t context = 0;    // <arch>.context_length
  RopeFrequencies rope;
  float rms_eps = 1e-5f;       // <arch>.attention.layer_norm_rms_epsilon
  bool rope_neox = false;      // pairs (i, i + head_dim / 2) rather than (2i, 2i + 1)
  uint32_t q_dim() const { return heads * head_dim; }
  uint32_t kv_dim() const { return kv_heads * head_dim; }
};

// One weight tensor: `rows` rows of `cols` elements (GGML dims [cols, rows]), in the data
// section at `offset`.
struct Weight {
  std::string name;
  uint32_t type = 0;
  uint64_t cols = 0, rows = 0;
  uint64_t offset = 0;  // bytes from the start of the data section
  uint64_t bytes = 0;
  uint64_t row_bytes() const { return bytes / rows; }
};

struct LayerWeights {
  Weight attn_norm, wq, wk, wv, wo, ffn_norm, gate, up, down;
  std::optional<Weight> bq, bk, bv;        // attn_{q,k,v}.bias (qwen2; F32)
  std::optional<Weight> q_norm, k_norm;    // attn_{q,k}_norm.weight per head dimension (qwen3; F32)
};

// The model's own tokenizer, from its tokenizer.ggml.* metadata, tokenizing as llama.cpp does
// (tokenizer/gguf_vocabulary.h); absent when the file has no tokenizer.ggml.tokens.
struct Vocabulary {
  std::optional<tokenizer::Tokenizer> tokenizer;
  std::optional<uint32_t> bos, eos;
};

struct Model {
  Config config;
  Weight token_embd, output_norm, output;  // output == token_embd when the head is tied
  bool tied = false;
  std::vector<LayerWeights> layers;
  Vocabulary vocab;
  gguf::File file;

  // BadInput naming the file, key or tensor for anything missing, mis-shaped or unsupported
  // (weight types other than F32/F16/Q8_0/Q4_0; norms must be F32).
  static Model load(const std::string& path);
  static Model from(gguf::File file);
  std::vector<const Weight*> weights() const;  // every weight the decoder reads
  uint64_t weight_bytes() const;               // bytes of weights one token reads (embedding row excluded)
};

// Text <-> tokens with the model's tokenizer: llama_tokenize with special-token parsing on, and
// the vocabulary's BOS/EOS when `add_special` (as tokenizer.ggml.add_bos_token/add_eos_token
// say). BadInput when the model has no vocabulary. detokenize leaves control tokens out.
std::vector<uint32_t> tokenize(const Vocabulary& vocab, const std::string& text, bool add_special = true);
// The bytes one token stands for inside a text (for printing tokens as they are sampled).
std::string token_text(const Vocabulary& vocab, uint32_t token);
std::string detokenize(const Vocabulary& vocab, const std::vector<uint32_t>& tokens);

// ---- the seeded test model -------------------------------------------------------------------
// A tiny llama with seeded weights and a byte-level vocabulary (3 specials + 256 bytes), written
// in several encodings at once so one file exercises every kernel path: token embeddings F16,
// attention Q8_0, MLP Q4_0, norms F32, the output head F32 (or tied to the F16 embeddings).
struct SeededOptions {
  uint32_t dim = 64, layers = 2, heads = 4, kv_heads = 2, ffn = 128, context = 64;
  uint32_t seed = 1;
  bool tied = false;
  uint32_t attn_type = gguf::type::Q8_0;
  uint32_t ffn_type = gguf::type::Q4_0;
  uint32_t embd_type = gguf::type::F16;
  uint32_t output_type = gguf::type::F32;
  float rope_base = 10000.0f, rms_eps = 1e-5f;
  float rope_linear_factor = 0;          // > 0: rope.scaling.type "linear" with this factor
  std::vector<float> rope_freq_factors;  // written as rope_freqs.weight (head_dim / 2 values) when not empty
  std::string arch = "llama";  // llama, qwen2 (adds q/k/v biases) or qwen3 (adds q/k head norms)
  uint32_t head_dim = 0;       // 0: dim / heads; otherwise written as <arch>.attention.key_length
  // A real vocabulary to carry (write-model --vocab); the byte-level one (kSeededVocab tokens)
  // when absent. The embedding and output rows follow its size.
  std::optional<tokenizer::GgufVocabulary> vocabulary;
};
inline constexpr uint32_t kSeededVocab = 259;
// Llama 3.1's long-context frequency factors (what llama.cpp's converter writes as
// rope_freqs.weight): 1 for wavelengths below original_context / high, `factor` above
// original_context / low, and a smooth blend between.
std::vector<float> llama3_rope_factors(uint32_t head_dim, double base, double factor = 8, double low = 1, double high = 4,
                                       double original_context = 8192);
gguf::Writer seeded_model(const SeededOptions& options);
void write_seeded_model(const std::string& path, const SeededOptions& options);

}  // namespace weft::attention
