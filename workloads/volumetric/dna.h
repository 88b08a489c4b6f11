// DNA: per-layer normalised weight signatures and network comparison.
//
// A layer's signature is the unit vector of all its weights as it computes with them (every
// matrix unpack(morph(dtype)), then its f32 vectors, children depth-first). Signatures hold
// decoded values, so two layers in different numeric types compare by what they compute: the
// same weights in f32 and int8 overlap ~1 (the seed returned 0 across types). Layers of a
// different kind or shape have nothing to compare and overlap 0.
#pragma once

#include <string>
#include <vector>

#include "model.h"

namespace weft::volumetric {

struct LayerSignature {
  Coord at;
  LayerType type = LayerType::Dense;
  DType dtype = DType::F32;
  std::string shape;         // type and shape fields, children included ("dense 4x8 ...")
  std::vector<float> unit;   // normalised weights (empty for weightless layers)
};

struct LogicShift {
  uint32_t from = 0, to = 0;  // flat indices: a's pattern at `from` is found at b's `to`
  double similarity = 0;
};

struct DnaComparison {
  std::vector<double> overlap;  // per position: cosine of the signatures (0 when incomparable)
  double overall = 0;           // mean overlap
  std::vector<LogicShift> shifts;  // patterns found at another position with similarity > 0.8
};

std::vector<LayerSignature> extract_dna(Network& net);
double signature_similarity(const LayerSignature& a, const LayerSignature& b);
// BadInput when the grids have different sizes.
DnaComparison compare_dna(const std::vector<LayerSignature>& a, const std::vector<LayerSignature>& b);

}  // namespace weft::volumetric
