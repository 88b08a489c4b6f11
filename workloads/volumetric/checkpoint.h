// Checkpoints: the model (as model-file JSON) plus every weight matrix in its layer's packed
// type (words and scales exactly as morph() made them) and every f32 vector. Loading installs
// the packed versions unchanged (WeightStore::load_packed), so save -> load is bit-exact in the
// packed data and in everything computed from it.
//
// File: "WEFTVOL1", u64 JSON length, JSON text, then per layer in traversal order (children
// depth-first): per matrix {u32 dtype, u32 rows, u32 cols, u32 row_words, u64 words, u64 scales,
// words, scales}, per vector {u64 n, n f32}. Little-endian. Truncated or inconsistent files are
// refused with BadInput naming the file, the layer and the byte offset, and so are weights and
// vectors that are not finite (training never writes them, and a network's master weights are
// finite everywhere else: pack() refuses NaN).
#pragma once

#include <string>

#include <nlohmann/json_fwd.hpp>

#include "model.h"

namespace weft::volumetric {

// The model file text describing net's grid and layers (weights not included).
std::string model_to_json(const Network& net);
void save_checkpoint(Network& net, const std::string& path);
// The checkpoint file's bytes, as save_checkpoint writes them (the fuzz target checks that a
// loaded checkpoint saves back to what loads the same).
std::string checkpoint_bytes(Network& net);
Network load_checkpoint(const std::string& path);
// A checkpoint already in memory; `source_name` (the path) starts every error message.
Network parse_checkpoint(const std::string& bytes, const std::string& source_name);

}  // namespace weft::volumetric
