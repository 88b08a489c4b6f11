// Monty's voting between learning modules (tbp.monty MontyForEvidenceGraphMatching._vote with
// EvidenceGraphLM.send_out_vote / receive_votes / _update_evidence_with_vote), float64, as the
// CPU backend runs it after every LM's evidence update of a step and the reference the device's
// vote stages are tested against.
//
// A sender's votes: its hypotheses whose evidence, scaled into [-1, 1] over all its graphs
// (graph_matching_utils.get_scaled_evidences), exceeds vote_evidence_threshold; each vote is the
// hypothesis location, rotation and scaled evidence (its confidence). A receiver takes, per graph
// it holds, the votes of its senders (vote matrix order, then hypothesis order), each moved by
// R^T (receiver's sensed location - sender's), R the vote's rotation (Monty: pose_vectors . disp
// with pose_vectors = R^T); for each hypothesis the 3 nearest votes (fewer if there are fewer),
// of which those closer than max_match_distance count; the largest of their confidences is added
// with weight vote_weight (or averaged with weights 1, vote_weight when past_weight +
// present_weight == 1); a hypothesis with no counting vote keeps its evidence. Rotation votes
// are not used (as in Monty). Ties in distance rank by vote order (scipy's KDTree leaves them
// open).
#pragma once

#include <array>
#include <vector>

#include "hypothesis_types.h"

namespace weft::hypothesis_update {

inline constexpr int kVoteNeighbours = 3;  // Monty's vote_nn

// One sender's votes on one graph.
struct VoteSet {
  std::vector<double> locations;   // (V,3)
  std::vector<double> rotations;   // (V,3,3) row-major, the hypotheses' rotations
  std::vector<double> confidence;  // (V) scaled evidence, > the threshold
  size_t size() const { return confidence.size(); }
};

// The evidence of every graph of one LM scaled into [-1, 1] over all of them: (e - min) /
// (max - min) mapped to [-1, 1] when max >= 1, else clipped to [-1, 1] (NaN when all equal
// and >= 1, as numpy gives: no vote is then above any threshold).
std::vector<std::vector<double>> scaled_vote_evidence(const std::vector<const std::vector<double>*>& evidence);

// One graph's hypotheses of a sender, as the backend holds them.
struct VoteSource {
  const std::vector<double>* evidence;   // (H)
  const std::vector<double>* locations;  // (H,3)
  const std::vector<double>* rotations;  // (H,3,3)
};

// A sender's votes, one set per graph (in the order given): hypotheses of scaled evidence above
// the threshold, in hypothesis order.
std::vector<VoteSet> make_votes(const std::vector<VoteSource>& graphs, double threshold);

// One sender's votes as a receiver sees them: the receiver's sensed location minus the sender's.
struct IncomingVotes {
  const VoteSet* votes = nullptr;
  std::array<double, 3> displacement{};
};

struct VoteReceiver {
  double max_match_distance = 0.01;
  double vote_weight = 1;
  bool average = false;  // past_weight + present_weight == 1
};

// The vote each hypothesis of `locations` (H,3) gets: the largest confidence among its nearest
// votes closer than max_match_distance, or NaN when none is.
std::vector<double> received_vote(const std::vector<double>& locations, const std::vector<IncomingVotes>& incoming,
                                  double max_match_distance);

// Adds the received votes to one graph's evidence (no vote: unchanged).
void apply_votes(std::vector<double>& evidence, const std::vector<double>& locations,
                 const std::vector<IncomingVotes>& incoming, const VoteReceiver& receiver);

// BadInput unless senders_of has one list per LM (or none: no voting), every id is an LM, no LM
// sends to itself and no sender is listed twice for one receiver.
void validate_vote_matrix(const std::vector<std::vector<int>>& senders_of, size_t lm_count);
// Per LM: whether it sends or receives under this matrix.
std::vector<uint8_t> voting_lms(const std::vector<std::vector<int>>& senders_of, size_t lm_count);

}  // namespace weft::hypothesis_update
