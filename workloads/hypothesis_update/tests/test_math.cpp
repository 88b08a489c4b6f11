// The arithmetic of spec §3 on hand-made inputs, against values worked out independently here.
#include <doctest/doctest.h>
#include <weft/error.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>

#include "evidence_math.h"
#include "numpy_argsort.h"

using namespace weft::hypothesis_update;

TEST_CASE("threshold modes") {
  const std::vector<double> e = {1, 4, 2, 3};
  const double max_global = 10;
  auto thr = [&](const std::string& text, const std::vector<double>& ev = {1, 4, 2, 3}) {
    return evidence_threshold(ThresholdConfig::parse(text), 20, max_global, ev);
  };
  CHECK(thr("0.7") == doctest::Approx(0.7).epsilon(1e-15));
  CHECK(thr("mean") == doctest::Approx(2.5).epsilon(1e-15));
  CHECK(thr("median") == doctest::Approx(2.5).epsilon(1e-15));
  CHECK(thr("median", {3, 1, 2}) == doctest::Approx(2).epsilon(1e-15));
  CHECK(thr("80%") == doctest::Approx(2).epsilon(1e-12));  // 10 * (1 - 0.8)
  CHECK(thr("0%") == doctest::Approx(10).epsilon(1e-12));
  CHECK(thr("x_percent_threshold") == doctest::Approx(8).epsilon(1e-12));  // 10 - 10 * 20/100
  CHECK(thr("all") == 1);
  CHECK(thr("all", {-0.5, 2, -3.25}) == -3.25);
  CHECK(thr("") == 0);
  for (const char* mode : {"0.7", "mean", "median", "80%", "x_percent_threshold", "all", ""})
    CHECK(thr(mode, {}) == 0);  // no hypotheses yet: Monty returns 0 whatever the mode
}

TEST_CASE("threshold config text is validated") {
  CHECK(ThresholdConfig::parse("80%").mode == ThresholdMode::Percent);
  CHECK(ThresholdConfig::parse("80%").value == 80);
  CHECK(ThresholdConfig::parse("-1.5").value == -1.5);
  for (const char* bad : {"abc", "150%", "%", "nan", "12x"}) {
    INFO(bad);
    CHECK_THROWS_AS(ThresholdConfig::parse(bad), weft::Error);
  }
}

namespace {

UpdaterConfig hsv_pcl_config() {
  UpdaterConfig c;
  c.features = {{"hsv", {0.1, 0.2, 0.2}, {1, 0.5, 0.5}, true}, {"pcl", {1, 1}, {1, 1}, false}};
  c.curvature_feature = 1;
  return c;
}

// One node at the origin with normal +z and first curvature direction +x.
ObjectGraph two_node_graph() {
  std::vector<double> pos = {0, 0, 0, 0.05, 0, 0};
  std::vector<double> x(2 * 16, 0);
  for (int n = 0; n < 2; ++n) {
    double* r = x.data() + n * 16;
    r[0] = n;
    const double frame[9] = {0, 0, 1, 1, 0, 0, 0, 1, 0};
    std::copy(frame, frame + 9, r + 1);
    r[10] = 1;
    r[11] = 0.95, r[12] = 0.5, r[13] = 0.5, r[14] = 1, r[15] = -2;
  }
  return ObjectGraph::from_arrays("two", pos, 2, x, 16, 5);
}

}  // namespace

TEST_CASE("node feature evidence: circular hue, tolerance clipping, weighted mean") {
  const UpdaterConfig c = hsv_pcl_config();
  const ObjectGraph g = two_node_graph();
  std::vector<double> fe;
  // hue 0.02 vs 0.95 wraps: distance 0.07 -> (0.1 - 0.07) / 0.1 = 0.3
  // s 0.6 vs 0.5: (0.2 - 0.1) / 0.2 = 0.5; v 0.9 vs 0.5: beyond tolerance -> 0
  // pcl 1.5 vs 1: 0.5; pcl -2 vs -2: 1
  node_feature_evidence(c, g, {0.02, 0.6, 0.9, 1.5, -2}, fe);
  const double expected = (1 * 0.3 + 0.5 * 0.5 + 0.5 * 0 + 1 * 0.5 + 1 * 1) / (1 + 0.5 + 0.5 + 1 + 1);
  REQUIRE(fe.size() == 2);
  CHECK(fe[0] == doctest::Approx(expected).epsilon(1e-12));
  CHECK(fe[1] == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("location evidence: pose match, curvature direction, far nodes") {
  const ObjectGraph g = two_node_graph();
  const std::vector<double> fe = {0.25, 0.25};
  ChannelKernel k;
  k.graph = &g;
  k.feature_evidence = fe.data();
  k.sensed_sn = {0, 0, 1};
  k.sensed_cd1 = {1, 0, 0};
  k.curvature_scale = 1 / (2.0 + 0.5);
  k.k = 2;
  const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double near[3] = {0.001, 0, 0};
  // sn and cd1 match exactly: 0.5 + 0.5, plus feature evidence 0.25.
  CHECK(location_evidence(k, near, identity) == doctest::Approx(1.25).epsilon(1e-12));

  // Sensed sn +y rotated by +90° about x lands on +z; cd1 sensed +z lands on -y, 90° from +x:
  // cd evidence 0.5 - sin(pi/2) = -0.5, so pose evidence 0.
  const double rot_x[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0};
  k.sensed_sn = {0, 1, 0};
  k.sensed_cd1 = {0, 0, 1};
  CHECK(location_evidence(k, near, rot_x) == doctest::Approx(0.25).epsilon(1e-12));
  // A sensed pose that is not fully defined ignores curvature directions: 0.5 + 0.25.
  k.pose_fully_defined = false;
  CHECK(location_evidence(k, near, rot_x) == doctest::Approx(0.75).epsilon(1e-12));
  k.pose_fully_defined = true;

  // Opposite normal: angle pi -> 0.5 - sin(pi/2) = -0.5; cd1 still matches: 0.5 -> total 0.25.
  k.sensed_sn = {0, 0, -1};
  k.sensed_cd1 = {1, 0, 0};
  CHECK(location_evidence(k, near, identity) == doctest::Approx(0.25).epsilon(1e-12));

  // Every neighbour beyond max_match_distance: -1, feature evidence dropped.
  k.sensed_sn = {0, 0, 1};
  const double far[3] = {0.02, 0, 0};
  CHECK(location_evidence(k, far, identity) == -1.0);

  // Offset 0.004 along the normal: distance 0.004 + 0.004 * scale; scale 1/2 keeps it near
  // (0.006), scale 2 (flat surface) pushes it to 0.012, beyond 0.01.
  const double above[3] = {0, 0, 0.004};
  k.curvature_scale = 0.5;
  CHECK(location_evidence(k, above, identity) == doctest::Approx(1.25).epsilon(1e-12));
  k.curvature_scale = 2;
  CHECK(location_evidence(k, above, identity) == -1.0);
}

TEST_CASE("sensed frames: two flips when fully defined, rotations about the normal otherwise") {
  const std::array<double, 9> s = {0, 0, 1, 1, 0, 0, 0, 1, 0};
  const auto two = sensed_frames(s, true, 8);
  REQUIRE(two.size() == 2);
  CHECK(two[0] == s);
  CHECK(two[1] == std::array<double, 9>{0, 0, 1, -1, 0, 0, 0, -1, 0});
  const auto eight = sensed_frames(s, false, 8);
  REQUIRE(eight.size() == 8);
  for (size_t j = 0; j < 8; ++j) {
    const double a = 2 * std::numbers::pi * double(j) / 8;
    // v = cos a * (1,0,0) + sin a * (0,1,0); third row = (0,0,1) x v = (-sin a, cos a, 0)
    const std::array<double, 9> want = {0, 0, 1, std::cos(a), std::sin(a), 0, -std::sin(a), std::cos(a), 0};
    for (size_t i = 0; i < 9; ++i) CHECK(eight[j][i] == doctest::Approx(want[i]).epsilon(1e-12));
  }
  // R = Nnᵀ S maps the node's frame onto the sensed one: rows of Nn times R give rows of S.
  const double nn[9] = {0, 1, 0, 0, 0, 1, 1, 0, 0};
  const Mat3 r = align_frames(nn, s);
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 3; ++col) {
      double v = 0;
      for (int k = 0; k < 3; ++k) v += nn[row * 3 + k] * r[size_t(k * 3 + col)];
      CHECK(v == doctest::Approx(s[size_t(row * 3 + col)]).epsilon(1e-12));
    }
}

TEST_CASE("numpy argsort sorts, NaN last, any size") {
  std::mt19937_64 rng(7);
  for (size_t n : {0u, 1u, 5u, 16u, 17u, 300u, 2000u}) {
    std::vector<double> v(n);
    std::uniform_int_distribution<int> small(0, 9);  // many ties
    for (double& x : v) x = small(rng) * 0.25;
    if (n > 3) v[n / 2] = NAN;
    const std::vector<int64_t> order = numpy_argsort(v);
    REQUIRE(order.size() == n);
    std::vector<int64_t> seen(order);
    std::sort(seen.begin(), seen.end());
    for (size_t i = 0; i < n; ++i) CHECK(seen[i] == int64_t(i));  // a permutation
    for (size_t i = 1; i < n; ++i) {
      const double a = v[size_t(order[i - 1])], b = v[size_t(order[i])];
      CHECK((std::isnan(b) || a <= b));
    }
  }
}

TEST_CASE("numpy_sum equals plain summation on exactly representable values") {
  std::vector<double> v;
  for (int i = 0; i < 300; ++i) v.push_back(double(i % 17) - 3);
  double plain = 0;
  for (double x : v) plain += x;
  CHECK(numpy_sum(v.data(), v.size()) == plain);
  CHECK(numpy_sum(v.data(), 0) == 0);
}

TEST_CASE("possible hypotheses: within x percent of the best, once the best is convincing") {
  // best 10, x = 20: everything above 8 (strictly)
  CHECK(possible_hypothesis_ids({10, 8, 8.5, -1, 9.99}, 20, 1) == std::vector<int64_t>{0, 2, 4});
  CHECK(possible_hypothesis_ids({0.9, 0.8}, 20, 1).empty());  // best not above the object threshold
  CHECK(possible_hypothesis_ids({}, 20, 1).empty());
}
