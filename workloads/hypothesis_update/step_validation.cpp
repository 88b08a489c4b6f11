#include "step_validation.h"

#include <cmath>
#include <set>
#include <string>

#include <weft/error.h>

namespace weft::hypothesis_update {

namespace {

[[noreturn]] void bad(const std::string& m) { fail(ErrorCode::BadInput, m); }

void require_finite(const double* v, size_t n, const std::string& what) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(v[i])) bad(what + ": value " + std::to_string(i) + " is NaN or infinite");
}

}  // namespace

void validate_step_inputs(const std::vector<StepInput>& inputs, const std::vector<LmInputState>& lms) {
  std::set<int> seen;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const StepInput& in = inputs[i];
    const std::string where = "dispatch input " + std::to_string(i) + " (LM " + std::to_string(in.lm) + ")";
    if (in.lm < 0 || in.lm >= int(lms.size()))
      bad(where + ": LM id out of range (have " + std::to_string(lms.size()) + ")");
    if (!seen.insert(in.lm).second) bad(where + ": second input for the same LM in one step");
    const LmInputState& lm = lms[size_t(in.lm)];
    const UpdaterConfig& c = *lm.config;
    if (in.channels.empty() || int(in.channels.size()) > c.max_channels)
      bad(where + ": " + std::to_string(in.channels.size()) + " channels, expected 1.." +
          std::to_string(c.max_channels));
    if (in.displacement)
      require_finite(in.displacement->data(), 3, where + " displacement");
    else if (lm.started)
      bad(where + ": displacement is required after the LM's first step");
    if (in.sensed_location)
      require_finite(in.sensed_location->data(), 3, where + " sensed_location");
    else if (lm.votes)
      bad(where + ": sensed_location is required: the LM votes (set_votes)");
    for (size_t ch = 0; ch < in.channels.size(); ++ch) {
      const ChannelInput& ci = in.channels[ch];
      const std::string cw = where + " channel " + std::to_string(ch);
      require_finite(ci.pose_vectors.data(), 9, cw + " pose_vectors");
      if (ci.features.size() != c.feature_width())
        bad(cw + ": " + std::to_string(ci.features.size()) + " feature values, the config needs " +
            std::to_string(c.feature_width()));
      require_finite(ci.features.data(), ci.features.size(), cw + " features");
    }
  }
}

}  // namespace weft::hypothesis_update
