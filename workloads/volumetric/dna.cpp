#include "dna.h"

#include <cmath>

#include <weft/error.h>

namespace weft::volumetric {

namespace {

std::string shape_of(const Layer& l) {
  std::string s = std::string(layer_type_name(l.type)) + "(";
  for (uint32_t v : {l.in, l.out, l.seq, l.channels, l.filters, l.kernel, l.height, l.width, l.depth, l.heads, l.vocab, uint32_t(l.combine)})
    s += std::to_string(v) + ",";
  for (const Layer& c : l.children) s += shape_of(c);
  return s + ")";
}

void gather(Layer& l, std::vector<float>& out) {
  for (WeightStore& m : l.mats) {
    const std::vector<float> w = m.effective(l.dtype);
    out.insert(out.end(), w.begin(), w.end());
  }
  for (const auto& v : l.vecs) out.insert(out.end(), v.begin(), v.end());
  for (Layer& c : l.children) gather(c, out);
}

}  // namespace

std::vector<LayerSignature> extract_dna(Network& net) {
  std::vector<LayerSignature> dna;
  for (uint32_t i = 0; i < net.size(); ++i) {
    Layer& l = net.at(i);
    LayerSignature s{net.coord(i), l.type, l.dtype, shape_of(l), {}};
    gather(l, s.unit);
    double n2 = 0;
    for (float v : s.unit) n2 += double(v) * v;
    const double n = std::sqrt(n2);
    for (float& v : s.unit) v = n > 0 ? float(v / n) : 0.0f;
    dna.push_back(std::move(s));
  }
  return dna;
}

double signature_similarity(const LayerSignature& a, const LayerSignature& b) {
  if (a.shape != b.shape || a.unit.size() != b.unit.size() || a.unit.empty()) return 0;
  double d = 0;
  for (size_t i = 0; i < a.unit.size(); ++i) d += double(a.unit[i]) * b.unit[i];
  return d;
}

DnaComparison compare_dna(const std::vector<LayerSignature>& a, const std::vector<LayerSignature>& b) {
  if (a.size() != b.size())
    fail(ErrorCode::BadInput, "volumetric: DNA of " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
                                  " layers cannot be compared position by position");
  DnaComparison c;
  for (size_t i = 0; i < a.size(); ++i) {
    c.overlap.push_back(signature_similarity(a[i], b[i]));
    c.overall += c.overlap.back();
  }
  c.overall = a.empty() ? 0 : c.overall / double(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    for (size_t j = 0; j < b.size(); ++j) {
      if (i == j) continue;
      const double s = signature_similarity(a[i], b[j]);
      if (s > 0.8 && s > c.overlap[i]) c.shifts.push_back({uint32_t(i), uint32_t(j), s});
    }
  return c;
}

}  // namespace weft::volumetric
