// Data types of the hypothesis-update workload (Monty's evidence updates): object graphs,
// updater parameters, per-step inputs and the results a backend hands back. Every backend (the
// native CPU one here, a Vulkan one later) speaks these types, so they carry no storage policy.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace weft::hypothesis_update {

// One non-pose feature, e.g. hsv (3 wide, hue circular) or principal_curvatures_log (2 wide).
// Its columns sit in the graph's node feature array in the order the features are listed.
struct FeatureSpec {
  std::string name;
  std::vector<double> tolerances;      // one per column, > 0
  std::vector<double> weights;         // one per column, >= 0
  bool first_column_circular = false;  // hue wraps around at 1
  size_t width() const { return tolerances.size(); }
};

// Node features of a graph in the column layout of spec §2: column 0 node id, 1..9 the pose
// vectors (sn, cd1, cd2 as a row-major 3x3), 10 pose_fully_defined, then the non-pose features.
inline constexpr size_t kPoseColumn = 1;
inline constexpr size_t kPoseDefinedColumn = 10;
inline constexpr size_t kFirstFeatureColumn = 11;

// An object model. Values are float64 here even when the source is float32: float32 converts
// exactly, and all evidence math is float64 like Monty's.
struct ObjectGraph {
  std::string name;
  size_t num_nodes = 0;
  std::vector<double> pos;           // (N,3)
  std::vector<double> pose_vectors;  // (N,9)
  std::vector<double> pose_defined;  // (N)  1 when the node's curvature directions mean something
  std::vector<double> features;      // (N, sum of feature widths), in FeatureSpec order

  // Splits x (N,F) laid out as above. BadInput naming `name` on bad shapes or non-finite values.
  static ObjectGraph from_arrays(const std::string& name, const std::vector<double>& pos, size_t n,
                                 const std::vector<double>& x, size_t f, size_t feature_width);
};

enum class ThresholdMode { Number, Mean, Median, Percent, XPercent, All, None };

// Spec §3.1. Percent keeps `value` as P of "P%"; Number keeps the number itself.
struct ThresholdConfig {
  ThresholdMode mode = ThresholdMode::All;
  double value = 0;
  // Parses Monty's evidence_threshold_config text: "80%", "mean", "median", "all",
  // "x_percent_threshold", "" (None), or a number. BadInput on anything else.
  static ThresholdConfig parse(const std::string& text);
};

enum class UpdaterKind { Default, BurstSampling };

struct BurstParams {
  double sampling_multiplier = 0.4;
  double deletion_trigger_slope = 0.5;
  int sampling_burst_duration = 5;
  double burst_trigger_slope = 1.0;
  int slope_window = 10;
  int slope_min_age = 5;
};

// The most hypotheses a node starts with (UpdaterConfig::umbilical_num_poses).
inline constexpr int kMaxUmbilicalPoses = 360;

struct UpdaterConfig {
  UpdaterKind kind = UpdaterKind::Default;
  ThresholdConfig threshold;
  double x_percent_threshold = 10;  // used by ThresholdMode::XPercent
  double max_match_distance = 0.01;
  int max_nneighbors = 10;  // K, 1..16
  double past_weight = 1, present_weight = 1;
  double feature_evidence_increment = 1;
  double sn_weight = 1, cd_weight = 1;  // pose_vectors weights [0] and [1]
  int umbilical_num_poses = 8;  // at most kMaxUmbilicalPoses (one pose per degree about the normal)
  std::vector<FeatureSpec> features;
  // Index into `features` of the curvature that shapes the search sphere; -1: use 10 (Monty's
  // fallback when no curvature is sensed).
  int curvature_feature = -1;
  BurstParams burst;
  int max_channels = 1;  // inputs an LM may get in one step

  size_t feature_width() const;
  // BadInput naming the bad field.
  void validate() const;
};

// One sensed input (Monty's "input channel") of one LM for one step.
struct ChannelInput {
  std::array<double, 9> pose_vectors{};  // sn, cd1, cd2 as rows
  bool pose_fully_defined = true;
  std::vector<double> features;  // concatenated in UpdaterConfig::features order
};

struct StepInput {
  int lm = -1;
  std::optional<std::array<double, 3>> displacement;  // absent on an LM's first step
  std::vector<ChannelInput> channels;                 // 1..max_channels
  // Channel 0's sensed location relative to the body (Monty's sensed_pose_rel_body[0]): the
  // votes between LMs are displaced by the difference of two LMs' locations. Required when the
  // LM votes (set_votes), unused otherwise.
  std::optional<std::array<double, 3>> sensed_location;
};

// Monty's voting between LMs (EvidenceGraphLM send_out_vote / receive_votes), one setting for
// every LM of the backend.
struct VoteOptions {
  // Votes are the hypotheses whose evidence, scaled into [-1, 1] over all the sender's graphs,
  // is above this.
  double vote_evidence_threshold = 0.8;
  // A received vote adds vote_weight x its scaled evidence (or, for an LM whose past_weight +
  // present_weight == 1, averages with weights 1 and vote_weight).
  double vote_weight = 1;
  void validate() const;  // BadInput: non-finite values
};

// A graph's hypotheses after a step; index h runs over hypotheses in backend order.
struct HypothesisArrays {
  std::vector<double> evidence;   // (H)
  std::vector<double> locations;  // (H,3)
  std::vector<double> rotations;  // (H,3,3) row-major
  std::vector<uint8_t> possible;  // (H) Monty's per-hypothesis flag as its updater leaves it
  size_t size() const { return evidence.size(); }
};

struct MostLikely {
  int graph = -1;  // graph id; -1 while the LM has no hypotheses
  int64_t hypothesis = -1;
  double evidence = 0;
};

// Resampling bookkeeping of one (LM, graph) for the last step. Ids index the arrays of that step:
// added ids the new arrays, removed ids the previous step's arrays.
struct BurstTelemetry {
  std::vector<int64_t> added_ids, removed_ids;
  std::vector<int64_t> ages;
  std::vector<double> evidence_slopes;  // NaN until a hypothesis has two evidence values
  double max_global_slope = -std::numeric_limits<double>::infinity();
  int burst_steps_in_step = 0;  // remaining burst steps as seen by this step
};

// Per (LM, graph) scalars of the last step.
struct GraphStepInfo {
  double threshold = 0;                                                // evidence update threshold used
  double prediction_error = std::numeric_limits<double>::quiet_NaN();  // NaN: nothing tested
  size_t tested = 0;                                                   // hypotheses that got location evidence
  bool updated = false;                                                // false when the LM had no input this step
};

}  // namespace weft::hypothesis_update
