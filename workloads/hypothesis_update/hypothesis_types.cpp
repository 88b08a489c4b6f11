#include "hypothesis_types.h"

#include <weft/error.h>

#include <cmath>
#include <cstdlib>

namespace weft::hypothesis_update {

namespace {

void require_finite(const std::vector<double>& v, const std::string& what) {
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) fail(ErrorCode::BadInput, what + ": value " + std::to_string(i) + " is not finite");
}

}  // namespace

ObjectGraph ObjectGraph::from_arrays(const std::string& name, const std::vector<double>& pos, size_t n,
                                     const std::vector<double>& x, size_t f, size_t feature_width) {
  const std::string where = "graph '" + name + "'";
  if (n == 0) fail(ErrorCode::BadInput, where + ": pos has no nodes");
  if (pos.size() != n * 3)
    fail(ErrorCode::BadInput,
         where + ": pos must be (N,3), got " + std::to_string(pos.size()) + " values for N=" + std::to_string(n));
  if (x.size() != n * f)
    fail(ErrorCode::BadInput,
         where + ": x must be (N,F) with N=" + std::to_string(n) + ", got " + std::to_string(x.size()) + " values");
  if (f < kFirstFeatureColumn + feature_width)
    fail(ErrorCode::BadInput, where + ": x has " + std::to_string(f) + " columns, needs " +
                                  std::to_string(kFirstFeatureColumn + feature_width) +
                                  " (id, 9 pose, pose_fully_defined, features)");
  require_finite(pos, where + " pos");
  require_finite(x, where + " x");
  ObjectGraph g;
  g.name = name;
  g.num_nodes = n;
  g.pos = pos;
  g.pose_vectors.resize(n * 9);
  g.pose_defined.resize(n);
  g.features.resize(n * feature_width);
  for (size_t i = 0; i < n; ++i) {
    const double* row = x.data() + i * f;
    for (size_t c = 0; c < 9; ++c) g.pose_vectors[i * 9 + c] = row[kPoseColumn + c];
    g.pose_defined[i] = row[kPoseDefinedColumn];
    for (size_t c = 0; c < feature_width; ++c) g.features[i * feature_width + c] = row[kFirstFeatureColumn + c];
  }
  return g;
}

ThresholdConfig ThresholdConfig::parse(const std::string& text) {
  if (text.empty()) return {ThresholdMode::None, 0};
  if (text == "mean") return {ThresholdMode::Mean, 0};
  if (text == "median") return {ThresholdMode::Median, 0};
  if (text == "all") return {ThresholdMode::All, 0};
  if (text == "x_percent_threshold") return {ThresholdMode::XPercent, 0};
  const bool percent = text.back() == '%';
  const std::string number = percent ? text.substr(0, text.size() - 1) : text;
  char* end = nullptr;
  const double v = number.empty() ? NAN : std::strtod(number.c_str(), &end);
  if (number.empty() || end != number.c_str() + number.size() || !std::isfinite(v))
    fail(ErrorCode::BadInput, "evidence_threshold_config '" + text +
                                  "': expected a number, 'P%', 'mean', 'median', 'all' or 'x_percent_threshold'");
  if (percent && (v < 0 || v > 100))
    fail(ErrorCode::BadInput, "evidence_threshold_config '" + text + "': percentage must be in [0, 100]");
  return {percent ? ThresholdMode::Percent : ThresholdMode::Number, v};
}

size_t UpdaterConfig::feature_width() const {
  size_t w = 0;
  for (const FeatureSpec& f : features) w += f.width();
  return w;
}

void UpdaterConfig::validate() const {
  auto bad = [](const std::string& m) { fail(ErrorCode::BadInput, "updater config: " + m); };
  if (!(max_match_distance > 0) || !std::isfinite(max_match_distance)) bad("max_match_distance must be > 0");
  if (max_nneighbors < 1 || max_nneighbors > 16)
    bad("max_nneighbors must be in 1..16, got " + std::to_string(max_nneighbors));
  if (!std::isfinite(past_weight) || !std::isfinite(present_weight)) bad("past/present weights must be finite");
  if (!std::isfinite(feature_evidence_increment)) bad("feature_evidence_increment must be finite");
  // Each node starts with this many hypotheses: a bound keeps a config from asking for unbounded memory.
  if (umbilical_num_poses < 1 || umbilical_num_poses > kMaxUmbilicalPoses)
    bad("umbilical_num_poses must be in 1.." + std::to_string(kMaxUmbilicalPoses) + ", got " + std::to_string(umbilical_num_poses));
  if (max_channels < 1) bad("max_channels must be >= 1");
  if (threshold.mode == ThresholdMode::Number && !std::isfinite(threshold.value)) bad("threshold must be finite");
  for (const FeatureSpec& f : features) {
    if (f.width() == 0 || f.weights.size() != f.width())
      bad("feature '" + f.name + "' needs one tolerance and one weight per column");
    for (double t : f.tolerances)
      if (!(t > 0) || !std::isfinite(t)) bad("feature '" + f.name + "' tolerances must be > 0");
    for (double w : f.weights)
      if (!(w >= 0) || !std::isfinite(w)) bad("feature '" + f.name + "' weights must be >= 0");
  }
  if (curvature_feature >= int(features.size())) bad("curvature_feature out of range");
  if (kind == UpdaterKind::BurstSampling) {
    if (threshold.mode != ThresholdMode::All) bad("the burst-sampling updater needs threshold 'all' (as Monty's)");
    if (!(burst.sampling_multiplier >= 0)) bad("sampling_multiplier must be >= 0");
    if (burst.sampling_burst_duration < 0) bad("sampling_burst_duration must be >= 0");
    if (burst.slope_window < 2 || burst.slope_min_age < 0) bad("slope tracker needs window >= 2 and min_age >= 0");
  }
}

void VoteOptions::validate() const {
  if (!std::isfinite(vote_evidence_threshold)) fail(ErrorCode::BadInput, "VoteOptions: vote_evidence_threshold must be finite");
  if (!std::isfinite(vote_weight)) fail(ErrorCode::BadInput, "VoteOptions: vote_weight must be finite");
}

}  // namespace weft::hypothesis_update
