#include "compare.h"

#include <sstream>

namespace weft::conformance {

std::string ErrorStats::describe() const {
  std::ostringstream s;
  if (size_mismatch) {
    s << "sizes differ (compared the first " << count << ")";
    return s.str();
  }
  s << count << " values";
  if (non_finite) s << ", " << non_finite << " NaN/Inf mismatches (first at [" << worst_index << "])";
  else s << ", max error " << max_abs << " at [" << worst_index << "]";
  return s.str();
}

}  // namespace weft::conformance
