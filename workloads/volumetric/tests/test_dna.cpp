// DNA signatures: unit length, comparison across packed types is by decoded values (high
// overlap, never the seed's 0), unrelated networks overlap little, moved patterns are found.
#include <doctest/doctest.h>

#include <cmath>

#include "dna.h"
#include "model.h"

using namespace weft::volumetric;

namespace {

Network grid(uint32_t seed) {
  Network net(1, 2, 2, 1, 16);
  for (uint32_t i = 0; i < 4; ++i) {
    Layer l;
    l.type = LayerType::Dense;
    l.in = 16;
    l.out = 16;
    init_layer(l, seed * 10 + i, "d");
    net.at(i) = l;
  }
  return net;
}

}  // namespace

TEST_CASE("volumetric DNA: signatures are unit vectors of the decoded weights") {
  Network net = grid(1);
  for (const LayerSignature& s : extract_dna(net)) {
    double n = 0;
    for (float v : s.unit) n += double(v) * v;
    CHECK(n == doctest::Approx(1).epsilon(1e-5));
    CHECK(s.unit.size() == 16 * 16 + 16);
  }
}

TEST_CASE("volumetric DNA: the same network in every packed type overlaps the f32 one") {
  Network f32 = grid(1);
  const auto ref = extract_dna(f32);
  for (DType t : all_dtypes()) {
    Network q = grid(1);
    q.set_dtype(t);
    const DnaComparison c = compare_dna(ref, extract_dna(q));
    INFO(dtype_name(t) << " overall " << c.overall);
    // Binary keeps only signs: cos(w, |w|_mean sign(w)) ~ sqrt(2/pi) = 0.80 for Gaussian weights
    // (the f32 bias vector, unchanged, lifts it a little). Every other type is closer.
    CHECK(c.overall > 0.75);
    if (dtype_bits(t) >= 8) CHECK(c.overall > 0.999);
    CHECK(c.shifts.empty());
  }
}

TEST_CASE("volumetric DNA: unrelated networks overlap little; a moved layer is a logic shift") {
  Network a = grid(1), b = grid(2);
  const auto da = extract_dna(a);
  CHECK(std::fabs(compare_dna(da, extract_dna(b)).overall) < 0.2);
  Network moved = grid(1);
  std::swap(moved.at(0), moved.at(3));
  moved.set_dtype(DType::I4);
  const DnaComparison c = compare_dna(da, extract_dna(moved));
  CHECK(c.overlap[1] > 0.99);
  CHECK(std::fabs(c.overlap[0]) < 0.3);
  REQUIRE(c.shifts.size() == 2);
  CHECK(c.shifts[0].from == 0);
  CHECK(c.shifts[0].to == 3);
  CHECK(c.shifts[0].similarity > 0.99);
  CHECK(c.shifts[1].from == 3);
  CHECK(c.shifts[1].to == 0);
  // Different shapes compare as 0, never as a match.
  Network other(1, 2, 2, 1, 16);
  for (uint32_t i = 0; i < 4; ++i) {
    Layer l;
    l.type = LayerType::RMSNorm;
    l.in = 16;
    init_layer(l, i, "n");
    other.at(i) = l;
  }
  CHECK(compare_dna(da, extract_dna(other)).overall == 0);
}
