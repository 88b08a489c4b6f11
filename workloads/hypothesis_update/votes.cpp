#include "votes.h"

#include <weft/error.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

namespace weft::hypothesis_update {

namespace {

[[noreturn]] void bad(const std::string& m) { fail(ErrorCode::BadInput, m); }

// Where a vote lands for the receiver: its location plus R^T d (Monty's pose_vectors.dot(d)).
std::array<double, 3> moved_vote(const VoteSet& v, size_t i, const std::array<double, 3>& d) {
  const double* l = v.locations.data() + i * 3;
  const double* r = v.rotations.data() + i * 9;
  std::array<double, 3> out{};
  for (int c = 0; c < 3; ++c) out[size_t(c)] = l[c] + (r[c] * d[0] + r[3 + c] * d[1] + r[6 + c] * d[2]);
  return out;
}

// The K nearest votes of one point so far: squared distance and confidence, nearest first; a
// later vote at the same distance ranks after the earlier one.
struct NearestVotes {
  std::array<double, kVoteNeighbours> d2, confidence;
  int count = 0;
  void offer(double dist2, double conf) {
    int at = count < kVoteNeighbours ? count : kVoteNeighbours;
    while (at > 0 && d2[size_t(at - 1)] > dist2) --at;
    if (at >= kVoteNeighbours) return;
    for (int j = std::min(count, kVoteNeighbours - 1); j > at; --j)
      d2[size_t(j)] = d2[size_t(j - 1)], confidence[size_t(j)] = confidence[size_t(j - 1)];
    d2[size_t(at)] = dist2, confidence[size_t(at)] = conf;
    count = std::min(count + 1, kVoteNeighbours);
  }
};

}  // namespace

std::vector<std::vector<double>> scaled_vote_evidence(const std::vector<const std::vector<double>*>& evidence) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto* e : evidence)
    for (double x : *e) lo = std::min(lo, x), hi = std::max(hi, x);
  std::vector<std::vector<double>> out;
  for (const auto* e : evidence) {
    std::vector<double>& s = out.emplace_back(*e);
    for (double& x : s) x = hi >= 1 ? ((x - lo) / (hi - lo) - 0.5) * 2 : std::clamp(x, -1.0, 1.0);
  }
  return out;
}

std::vector<VoteSet> make_votes(const std::vector<VoteSource>& graphs, double threshold) {
  std::vector<const std::vector<double>*> evidence;
  for (const VoteSource& g : graphs) evidence.push_back(g.evidence);
  const auto scaled = scaled_vote_evidence(evidence);
  std::vector<VoteSet> out(graphs.size());
  for (size_t g = 0; g < graphs.size(); ++g)
    for (size_t h = 0; h < scaled[g].size(); ++h) {
      if (!(scaled[g][h] > threshold)) continue;
      const double* l = graphs[g].locations->data() + h * 3;
      const double* r = graphs[g].rotations->data() + h * 9;
      out[g].locations.insert(out[g].locations.end(), l, l + 3);
      out[g].rotations.insert(out[g].rotations.end(), r, r + 9);
      out[g].confidence.push_back(scaled[g][h]);
    }
  return out;
}

std::vector<double> received_vote(const std::vector<double>& locations, const std::vector<IncomingVotes>& incoming,
                                  double max_match_distance) {
  const size_t n = locations.size() / 3;
  std::vector<double> out(n, std::numeric_limits<double>::quiet_NaN());
  for (size_t h = 0; h < n; ++h) {
    const double* p = locations.data() + h * 3;
    NearestVotes nearest;
    for (const IncomingVotes& in : incoming)
      for (size_t v = 0; v < in.votes->size(); ++v) {
        const auto q = moved_vote(*in.votes, v, in.displacement);
        const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
        nearest.offer(dx * dx + dy * dy + dz * dz, in.votes->confidence[v]);
      }
    for (int k = 0; k < nearest.count; ++k) {
      const double weight = (max_match_distance - std::sqrt(nearest.d2[size_t(k)])) / max_match_distance;
      if (weight > 0 && !(out[h] >= nearest.confidence[size_t(k)])) out[h] = nearest.confidence[size_t(k)];
    }
  }
  return out;
}

void apply_votes(std::vector<double>& evidence, const std::vector<double>& locations,
                 const std::vector<IncomingVotes>& incoming, const VoteReceiver& r) {
  const std::vector<double> vote = received_vote(locations, incoming, r.max_match_distance);
  for (size_t h = 0; h < evidence.size(); ++h) {
    if (std::isnan(vote[h])) continue;
    evidence[h] = r.average ? (evidence[h] * 1 + vote[h] * r.vote_weight) / (1 + r.vote_weight)
                            : evidence[h] + vote[h] * r.vote_weight;
  }
}

void validate_vote_matrix(const std::vector<std::vector<int>>& senders_of, size_t lm_count) {
  if (!senders_of.empty() && senders_of.size() != lm_count)
    bad("set_votes: the vote matrix has " + std::to_string(senders_of.size()) + " rows, expected one per LM (" +
        std::to_string(lm_count) + ") or none");
  for (size_t i = 0; i < senders_of.size(); ++i) {
    std::set<int> seen;
    for (int j : senders_of[i]) {
      const std::string where = "set_votes: LM " + std::to_string(i) + " receives from LM " + std::to_string(j);
      if (j < 0 || j >= int(lm_count)) bad(where + ", out of range (have " + std::to_string(lm_count) + ")");
      if (j == int(i)) bad(where + ", itself (not supported)");
      if (!seen.insert(j).second) bad(where + " twice");
    }
  }
}

std::vector<uint8_t> voting_lms(const std::vector<std::vector<int>>& senders_of, size_t lm_count) {
  std::vector<uint8_t> out(lm_count, 0);
  for (size_t i = 0; i < senders_of.size() && i < lm_count; ++i)
    for (int j : senders_of[i])
      if (j >= 0 && size_t(j) < lm_count) out[i] = 1, out[size_t(j)] = 1;
  return out;
}

}  // namespace weft::hypothesis_update
