// Monty's voting between LMs (votes.h) on the CPU: the scaled evidence, the vote selection, the
// vote's move into the receiver's frame, the 3 nearest votes within max_match_distance and the
// evidence update, each against values computed by hand from Monty's formulas; then the wiring in
// the CPU backend (who sends and receives, the displacement's direction, no-input LMs, the most
// likely hypothesis after the vote) and the refusals.
#include <doctest/doctest.h>

#include <weft/weft.h>

#include <cmath>

#include "cpu_backend.h"
#include "device_under_test.h"
#include "synthetic.h"
#include "votes.h"

namespace {

using namespace weft::hypothesis_update;

constexpr std::array<double, 9> kIdentity = {1, 0, 0, 0, 1, 0, 0, 0, 1};
// A quarter turn about z, rows of the rotation matrix: R x = (-x1, x0, x2).
constexpr std::array<double, 9> kQuarterTurnZ = {0, -1, 0, 1, 0, 0, 0, 0, 1};

VoteSet one_vote(std::array<double, 3> at, const std::array<double, 9>& rotation, double confidence) {
  return {{at[0], at[1], at[2]}, {rotation.begin(), rotation.end()}, {confidence}};
}

void append(VoteSet& to, const VoteSet& v) {
  to.locations.insert(to.locations.end(), v.locations.begin(), v.locations.end());
  to.rotations.insert(to.rotations.end(), v.rotations.begin(), v.rotations.end());
  to.confidence.insert(to.confidence.end(), v.confidence.begin(), v.confidence.end());
}

}  // namespace

TEST_CASE("votes: evidence is scaled into [-1, 1] over all of a sender's graphs when its largest is >= 1") {
  const std::vector<double> a = {0, 2}, b = {4, 1};
  const auto s = scaled_vote_evidence({&a, &b});  // min 0, max 4: ((e - 0) / 4 - 0.5) * 2
  CHECK(s[0] == std::vector<double>{-1, 0});
  CHECK(s[1] == std::vector<double>{1, -0.5});
}

TEST_CASE("votes: evidence below 1 everywhere is clipped to [-1, 1], not scaled") {
  const std::vector<double> a = {0.5, -3, 0.25};
  CHECK(scaled_vote_evidence({&a})[0] == std::vector<double>{0.5, -1, 0.25});
}

TEST_CASE("votes: equal evidence >= 1 scales to NaN (numpy's 0/0), so such a sender sends nothing") {
  const std::vector<double> e = {2, 2}, l(6, 0), r = {1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  CHECK(std::isnan(scaled_vote_evidence({&e})[0][0]));
  CHECK(make_votes({{&e, &l, &r}}, -2)[0].size() == 0);
}

TEST_CASE("votes: a sender votes with the hypotheses whose scaled evidence is above the threshold, in order") {
  // Graph a: evidence 0, 4, 3.75 -> scaled -1, 1, 0.875; graph b: 3.5 -> 0.75 (not above 0.8).
  const std::vector<double> ea = {0, 4, 3.75}, eb = {3.5};
  std::vector<double> la = {0, 0, 0, 1, 2, 3, 4, 5, 6}, lb = {7, 8, 9};
  std::vector<double> ra(27), rb(kIdentity.begin(), kIdentity.end());
  for (size_t i = 0; i < 27; ++i) ra[i] = double(i);
  const auto v = make_votes({{&ea, &la, &ra}, {&eb, &lb, &rb}}, 0.8);
  REQUIRE(v.size() == 2);
  CHECK(v[0].confidence == std::vector<double>{1, 0.875});
  CHECK(v[0].locations == std::vector<double>{1, 2, 3, 4, 5, 6});
  CHECK(v[0].rotations == std::vector<double>(ra.begin() + 9, ra.end()));
  CHECK(v[1].size() == 0);
}

TEST_CASE("votes: a vote moves by R^T (receiver location - sender location) before matching") {
  // R a quarter turn about z, d = (0.004, 0, 0): R^T d = (0, -0.004, 0) (Monty: pose_vectors . d,
  // pose_vectors = R^T). A hypothesis there gets the vote; one at +0.004 y (0.008 away) does not.
  const VoteSet v = one_vote({0, 0, 0}, kQuarterTurnZ, 0.9);
  const std::vector<double> locations = {0, -0.004, 0, 0, 0.004, 0};
  const auto got = received_vote(locations, {{&v, {0.004, 0, 0}}}, 0.005);
  CHECK(got[0] == 0.9);
  CHECK(std::isnan(got[1]));
}

TEST_CASE("votes: a hypothesis takes the largest confidence among its 3 nearest votes, not a 4th") {
  // Votes 1, 2, 3 and 4 mm away along x with confidences 0.85, 0.9, 0.95, 1.
  VoteSet v;
  const double conf[] = {0.85, 0.9, 0.95, 1};
  for (int i = 3; i >= 0; --i) append(v, one_vote({0.001 * (i + 1), 0, 0}, kIdentity, conf[i]));
  const std::vector<double> at_origin = {0, 0, 0};
  CHECK(received_vote(at_origin, {{&v, {0, 0, 0}}}, 0.01)[0] == 0.95);
  // max_match_distance 2.5 mm: of the three nearest only the first two count.
  CHECK(received_vote(at_origin, {{&v, {0, 0, 0}}}, 0.0025)[0] == 0.9);
  // Exactly max_match_distance away: weight 0, masked as in Monty (weights <= 0).
  CHECK(std::isnan(received_vote(at_origin, {{&v, {0, 0, 0}}}, 0.001)[0]));
}

TEST_CASE("votes: the votes of several senders pool before the nearest three are taken") {
  const VoteSet near_low = one_vote({0.001, 0, 0}, kIdentity, 0.82), far_high = one_vote({0.003, 0, 0}, kIdentity, 0.99);
  const std::vector<double> at_origin = {0, 0, 0};
  CHECK(received_vote(at_origin, {{&near_low, {0, 0, 0}}, {&far_high, {0, 0, 0}}}, 0.01)[0] == 0.99);
  CHECK(received_vote(at_origin, {{&near_low, {0, 0, 0}}}, 0.01)[0] == 0.82);
}

TEST_CASE("votes: the vote adds vote_weight x confidence, or averages with weights 1 and vote_weight") {
  const VoteSet v = one_vote({0, 0, 0}, kIdentity, 0.9);
  const std::vector<double> locations = {0, 0, 0, 1, 1, 1};  // the second has no vote in range
  std::vector<double> sum = {2, 2}, avg = {2, 2};
  apply_votes(sum, locations, {{&v, {0, 0, 0}}}, {0.01, 2, false});
  apply_votes(avg, locations, {{&v, {0, 0, 0}}}, {0.01, 2, true});
  CHECK(sum == std::vector<double>{2 + 0.9 * 2, 2});
  CHECK(avg == std::vector<double>{(2 + 0.9 * 2) / 3, 2});
}

namespace {

// Two LMs holding the same two graphs, LM 2 another; LMs 0 and 1 vote for each other.
void add_voting_world(HypothesisBackend& b) {
  const int g0 = b.add_graph(test::random_graph("a", 60, 41)), g1 = b.add_graph(test::random_graph("b", 50, 42));
  UpdaterConfig c = test::monty_config(UpdaterKind::Default);
  c.threshold = ThresholdConfig::parse("all");
  b.add_learning_module(c, {g0, g1});
  b.add_learning_module(c, {g1, g0});
  b.add_learning_module(c, {g0});
}

StepInput located(StepInput in, std::array<double, 3> at) {
  in.sensed_location = at;
  return in;
}

}  // namespace

TEST_CASE("votes in the CPU backend: LMs with input send from their updated evidence and receive from their senders") {
  CpuBackend voting(1), plain(1);
  add_voting_world(voting);
  add_voting_world(plain);
  voting.set_votes({{1}, {0}, {0}}, {0.5, 1.5});
  const std::array<double, 3> here0 = {0.01, 0.02, 0.03}, here1 = {0.011, 0.018, 0.031};
  // LM 2 gets no input: it neither sends nor receives.
  const std::vector<StepInput> inputs = {located(test::random_input(0, 7, true), here0),
                                         located(test::random_input(1, 8, true), here1)};
  for (CpuBackend* b : {&voting, &plain}) b->dispatch(inputs), b->wait();
  // The expected votes from the unvoted hypotheses: LM 0 receives LM 1's, displaced by
  // here0 - here1, and LM 1 receives LM 0's, displaced by here1 - here0.
  auto sent = [&](int lm) {
    HypothesisArrays a = plain.hypotheses(lm, 0), b = plain.hypotheses(lm, 1);
    auto v = make_votes({{&a.evidence, &a.locations, &a.rotations}, {&b.evidence, &b.locations, &b.rotations}}, 0.5);
    return std::pair{v[0], v[1]};
  };
  const auto [from0_g0, from0_g1] = sent(0);
  const auto [from1_g0, from1_g1] = sent(1);
  CHECK(from0_g0.size() + from0_g1.size() > 0);
  CHECK(from1_g0.size() + from1_g1.size() > 0);
  const std::array<double, 3> d01 = {here0[0] - here1[0], here0[1] - here1[1], here0[2] - here1[2]};
  const std::array<double, 3> d10 = {-d01[0], -d01[1], -d01[2]};
  size_t changed = 0;
  for (auto [lm, g, votes, d] : {std::tuple{0, 0, &from1_g0, d01}, std::tuple{0, 1, &from1_g1, d01},
                                 std::tuple{1, 0, &from0_g0, d10}, std::tuple{1, 1, &from0_g1, d10}}) {
    INFO("LM " << lm << " graph " << g);
    HypothesisArrays expected = plain.hypotheses(lm, g);
    const std::vector<double> before = expected.evidence;
    if (votes->size()) apply_votes(expected.evidence, expected.locations, {{votes, d}}, {0.01, 1.5, false});
    CHECK(voting.hypotheses(lm, g).evidence == expected.evidence);
    for (size_t h = 0; h < before.size(); ++h) changed += before[h] != expected.evidence[h];
  }
  CHECK(changed > 0);
  CHECK(voting.hypotheses(2, 0).evidence.empty());  // never had input
  // The most likely hypothesis is taken after the vote.
  const HypothesisArrays v0 = voting.hypotheses(0, 0), v1 = voting.hypotheses(0, 1);
  double best = -INFINITY;
  for (double e : v0.evidence) best = std::max(best, e);
  for (double e : v1.evidence) best = std::max(best, e);
  CHECK(voting.most_likely(0).evidence == best);
}

TEST_CASE("votes in the CPU backend: a malformed vote matrix or a voting LM without a sensed location is BadInput") {
  using weft::test::contains;
  using weft::test::error_message_of;
  CpuBackend b(1);
  add_voting_world(b);
  CHECK(contains(error_message_of([&] { b.set_votes({{1}, {0}}); }), "2 rows, expected one per LM (3)"));
  CHECK(contains(error_message_of([&] { b.set_votes({{1}, {1}, {}}); }), "LM 1 receives from LM 1, itself"));
  CHECK(contains(error_message_of([&] { b.set_votes({{1, 1}, {}, {}}); }), "twice"));
  CHECK(contains(error_message_of([&] { b.set_votes({{5}, {}, {}}); }), "out of range"));
  CHECK(contains(error_message_of([&] { b.set_votes({{1}, {}, {}}, {NAN, 1}); }), "vote_evidence_threshold"));
  b.set_votes({{1}, {}, {}});
  CHECK(contains(error_message_of([&] { b.dispatch({test::random_input(1, 3, true)}); }),
                 "LM 1): sensed_location is required"));
  CHECK_NOTHROW(b.dispatch({test::random_input(2, 3, true)}));  // LM 2 does not vote
  b.wait();
}
