// Exact K nearest neighbours against a full sort of (squared distance, node id).
#include <doctest/doctest.h>

#include <weft/error.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "knn.h"

using namespace weft::hypothesis_update;

namespace {

std::vector<int> reference(const std::vector<double>& pos, const double* q, int k) {
  std::vector<std::pair<double, int>> all;
  for (size_t n = 0; n < pos.size() / 3; ++n) {
    const double dx = pos[3 * n] - q[0], dy = pos[3 * n + 1] - q[1], dz = pos[3 * n + 2] - q[2];
    all.push_back({dx * dx + dy * dy + dz * dz, int(n)});
  }
  std::sort(all.begin(), all.end());
  std::vector<int> ids;
  for (int i = 0; i < k && i < int(all.size()); ++i) ids.push_back(all[size_t(i)].second);
  return ids;
}

void check_against_reference(const std::vector<double>& pos, const std::vector<double>& queries, int k) {
  int ids[kMaxNeighbors];
  double d2[kMaxNeighbors];
  for (size_t q = 0; q < queries.size() / 3; ++q) {
    const int got = k_nearest(pos.data(), pos.size() / 3, queries.data() + 3 * q, k, ids, d2);
    const std::vector<int> want = reference(pos, queries.data() + 3 * q, k);
    REQUIRE(got == int(want.size()));
    for (int i = 0; i < got; ++i) {
      INFO("query " << q << " rank " << i);
      CHECK(ids[i] == want[size_t(i)]);
    }
  }
}

}  // namespace

TEST_CASE("knn on random points matches brute-force reference") {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  std::vector<double> pos(2000 * 3), queries(200 * 3);
  for (double& x : pos) x = u(rng);
  for (double& x : queries) x = u(rng) * 1.5;
  for (int k : {1, 3, 10, 16}) check_against_reference(pos, queries, k);
}

TEST_CASE("knn ties rank by node index") {
  // Integer lattice points: many nodes at exactly the same distance from lattice queries.
  std::vector<double> pos;
  for (int x = 0; x < 5; ++x)
    for (int y = 0; y < 5; ++y)
      for (int z = 0; z < 5; ++z) pos.insert(pos.end(), {double(x), double(y), double(z)});
  std::reverse(pos.begin(), pos.end());  // ids no longer follow lattice order
  std::vector<double> queries = {2, 2, 2, 0, 0, 0, 2.5, 2.5, 2.5, 1, 2, 3};
  for (int k : {1, 6, 7, 10, 16}) check_against_reference(pos, queries, k);
  int ids[kMaxNeighbors];
  double d2[kMaxNeighbors];
  // The centre's six face neighbours are all at distance 1: ascending ids after the centre.
  REQUIRE(k_nearest(pos.data(), pos.size() / 3, queries.data(), 7, ids, d2) == 7);
  for (int i = 2; i < 7; ++i) CHECK(ids[i - 1] < ids[i]);
  for (int i = 1; i < 7; ++i) CHECK(d2[i] == 1.0);
}

TEST_CASE("knn with fewer nodes than K returns every node") {
  const std::vector<double> pos = {0, 0, 0, 1, 0, 0, 0, 2, 0};
  const double q[3] = {0.9, 0, 0};
  int ids[kMaxNeighbors];
  double d2[kMaxNeighbors];
  REQUIRE(k_nearest(pos.data(), 3, q, 10, ids, d2) == 3);
  CHECK(ids[0] == 1);
  CHECK(ids[1] == 0);
  CHECK(ids[2] == 2);
}

#include "evidence_math.h"
#include "neighbour_lists.h"
#include "node_grid.h"
#include "synthetic.h"
#include "synthetic_bench.h"

TEST_CASE("grid search within a radius matches the brute-force reference") {
  const ObjectGraph g = sphere_surface_graph("s", 700, 4);
  const NodeGrid grid(g.pos);
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-0.07, 0.07);
  int ids[kMaxNeighbors];
  double d2[kMaxNeighbors];
  for (int q = 0; q < 400; ++q) {
    const double query[3] = {u(rng), u(rng), u(rng)};
    for (double radius : {0.004, 0.01, 0.03}) {
      const int k = 10;
      std::vector<int> want;
      for (int id : reference(g.pos, query, k)) {
        const double* p = g.pos.data() + 3 * id;
        const double d = (p[0] - query[0]) * (p[0] - query[0]) + (p[1] - query[1]) * (p[1] - query[1]) +
                         (p[2] - query[2]) * (p[2] - query[2]);
        if (d < radius * radius) want.push_back(id);
      }
      const int got = grid.nearest_within(query, radius, k, ids, d2);
      REQUIRE(got == int(want.size()));
      for (int i = 0; i < got; ++i) CHECK(ids[i] == want[size_t(i)]);
    }
  }
}

TEST_CASE("grid search ties rank by node index, for every K, with nodes listed out of cell order") {
  // A shuffled 6x6x6 lattice with 1 cm spacing plus duplicated points: many nodes at exactly the
  // same distance from lattice and half-lattice queries, more candidates than K in the ball.
  std::vector<double> pos;
  for (int z = 0; z < 6; ++z)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 6; ++x) pos.insert(pos.end(), {0.01 * x, 0.01 * y, 0.01 * z});
  std::vector<size_t> order(pos.size() / 3);
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(11));
  std::vector<double> shuffled;
  for (size_t i : order) shuffled.insert(shuffled.end(), pos.begin() + long(3 * i), pos.begin() + long(3 * i + 3));
  for (size_t i = 0; i < 40; ++i)  // duplicates of earlier nodes at higher ids
    shuffled.insert(shuffled.end(), shuffled.begin() + long(3 * (i * 5)), shuffled.begin() + long(3 * (i * 5) + 3));
  const NodeGrid grid(shuffled);
  int ids[kMaxNeighbors];
  double d2[kMaxNeighbors];
  for (double qx : {0.02, 0.025}) {
    for (double qy : {0.02, 0.03, 0.035}) {
      const double query[3] = {qx, qy, 0.025};
      for (int k = 1; k <= kMaxNeighbors; ++k) {
        const double radius = 0.021;
        std::vector<int> want;
        for (int id : reference(shuffled, query, k)) {
          const double* p = shuffled.data() + 3 * id;
          const double d = (p[0] - query[0]) * (p[0] - query[0]) + (p[1] - query[1]) * (p[1] - query[1]) +
                           (p[2] - query[2]) * (p[2] - query[2]);
          if (d < radius * radius) want.push_back(id);
        }
        INFO("query " << qx << "," << qy << " k " << k);
        const int got = grid.nearest_within(query, radius, k, ids, d2);
        REQUIRE(got == int(want.size()));
        for (int i = 0; i < got; ++i) CHECK(ids[i] == want[size_t(i)]);
      }
    }
  }
}

TEST_CASE("location evidence through the grid equals the exact K-nearest evidence") {
  const ObjectGraph g = sphere_surface_graph("s", 900, 6);
  const NodeGrid grid(g.pos);
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> fe(g.num_nodes);
  for (double& v : fe) v = u(rng);
  ChannelKernel exact;
  exact.graph = &g;
  exact.feature_evidence = fe.data();
  exact.sensed_sn = {0, 0, 1};
  exact.sensed_cd1 = {1, 0, 0};
  exact.curvature_scale = 1 / 3.5;
  ChannelKernel fast = exact;
  fast.grid = &grid;
  std::vector<std::unique_ptr<NeighbourLists>> lists;  // per K
  for (int k : {1, 10, 16})
    lists.push_back(std::make_unique<NeighbourLists>(g.pos, grid, k, search_radius(exact.max_match_distance)));
  ChannelKernel listed = fast;
  size_t far_hypotheses = 0;
  for (int h = 0; h < 3000; ++h) {
    // Points around the surface, some well off it.
    const size_t node = size_t(u(rng) * double(g.num_nodes)) % g.num_nodes;
    double loc[3];
    for (int c = 0; c < 3; ++c) loc[c] = g.pos[node * 3 + size_t(c)] + (u(rng) - 0.5) * (h % 3 ? 0.01 : 0.06);
    const auto rot = weft::hypothesis_update::test::random_frame(rng);
    for (int i = 0; i < 3; ++i) {
      const int k = lists[size_t(i)]->k();
      exact.k = fast.k = listed.k = k;
      listed.lists = lists[size_t(i)].get();
      const double want = location_evidence(exact, loc, rot.data());
      CHECK(location_evidence(fast, loc, rot.data()) == want);
      CHECK(location_evidence(listed, loc, rot.data()) == want);
      far_hypotheses += want == -1.0;
    }
  }
  CHECK(far_hypotheses > 100);  // the far path was exercised
}

namespace {
// The lists' answer in the grid's (ascending) order, for comparing with nearest_within.
std::vector<std::pair<double, int>> sorted_answer(const int* ids, const double* d2, int count) {
  std::vector<std::pair<double, int>> out;
  for (int i = 0; i < count; ++i) out.push_back({d2[i], ids[i]});
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace

TEST_CASE("neighbour lists give the grid's nodes, inside and outside their box, for every K") {
  const ObjectGraph g = sphere_surface_graph("s", 2000, 9);
  const NodeGrid grid(g.pos);
  std::mt19937_64 rng(12);
  std::uniform_real_distribution<double> u(-0.08, 0.08), jitter(-0.004, 0.004);
  int ids[kMaxNeighbors], want_ids[kMaxNeighbors];
  double d2[kMaxNeighbors], want_d2[kMaxNeighbors];
  size_t full = 0, partial = 0;
  for (double radius : {0.004, 0.01, 0.03}) {
    for (int k : {1, 3, 10, 16}) {
      const NeighbourLists lists(g.pos, grid, k, radius);
      CHECK(lists.entries() > 0);
      for (int q = 0; q < 600; ++q) {
        double query[3];
        const size_t node = size_t(q * 7) % g.num_nodes;
        for (int c = 0; c < 3; ++c)  // near the surface, or anywhere (some outside the box)
          query[c] = q % 4 ? g.pos[node * 3 + size_t(c)] + jitter(rng) : u(rng);
        const int want = grid.nearest_within(query, radius, k, want_ids, want_d2);
        const int got = lists.nearest_within(query, ids, d2);
        REQUIRE(got == want);
        CHECK(sorted_answer(ids, d2, got) == sorted_answer(want_ids, want_d2, want));
        (got == k ? full : partial) += 1;
      }
    }
  }
  CHECK(full > 1000);  // both the selection among more than K and the take-all path ran
  CHECK(partial > 1000);
}

TEST_CASE("neighbour lists rank ties by node index, with nodes at the same spot") {
  // The 6x6x6 lattice of 1 cm plus duplicates at higher ids: many nodes at exactly the same
  // distance from lattice and half-lattice queries.
  std::vector<double> pos;
  for (int z = 0; z < 6; ++z)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 6; ++x) pos.insert(pos.end(), {0.01 * x, 0.01 * y, 0.01 * z});
  for (size_t i = 0; i < 40; ++i) pos.insert(pos.end(), pos.begin() + long(3 * (i * 5)), pos.begin() + long(3 * (i * 5) + 3));
  const NodeGrid grid(pos);
  int ids[kMaxNeighbors], want_ids[kMaxNeighbors];
  double d2[kMaxNeighbors], want_d2[kMaxNeighbors];
  for (int k = 1; k <= kMaxNeighbors; ++k) {
    const NeighbourLists lists(pos, grid, k, 0.021);
    for (double qx : {0.0, 0.02, 0.025})
      for (double qy : {0.02, 0.03, 0.035})
        for (double qz : {0.025, 0.03}) {
          const double query[3] = {qx, qy, qz};
          INFO("query " << qx << "," << qy << "," << qz << " k " << k);
          const int want = grid.nearest_within(query, 0.021, k, want_ids, want_d2);
          const int got = lists.nearest_within(query, ids, d2);
          REQUIRE(got == want);
          CHECK(sorted_answer(ids, d2, got) == sorted_answer(want_ids, want_d2, want));
        }
  }
}

TEST_CASE("neighbour lists refuse a bad radius or K") {
  const ObjectGraph g = sphere_surface_graph("s", 50, 1);
  const NodeGrid grid(g.pos);
  for (double radius : {0.0, -1.0, std::nan("")})
    CHECK_THROWS_AS(NeighbourLists(g.pos, grid, 10, radius), weft::Error);
  for (int k : {0, 17}) CHECK_THROWS_AS(NeighbourLists(g.pos, grid, k, 0.01), weft::Error);
}
