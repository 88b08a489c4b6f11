// WeightStore: an f32 master matrix plus packed versions made on demand (morph). Applying
// gradients changes the master and drops every packed version, so the next morph re-quantises.
#pragma once

#include <map>
#include <vector>

#include "dtype.h"

namespace weft::volumetric {

class WeightStore {
 public:
  WeightStore() = default;
  WeightStore(uint32_t rows, uint32_t cols, std::vector<float> master);

  uint32_t rows() const { return rows_; }
  uint32_t cols() const { return cols_; }
  const std::vector<float>& master() const { return master_; }
  // The packed version of type t, made from the master if not cached.
  const Packed& morph(DType t);
  bool has_version(DType t) const { return versions_.count(t) != 0; }
  size_t version_count() const { return versions_.size(); }
  // The values a layer computes with in type t: unpack(morph(t)).
  std::vector<float> effective(DType t) { return unpack(morph(t)); }
  // master -= lr * grad (any optimiser computes its step, then calls this); drops the versions.
  void apply_step(const std::vector<float>& step);
  // Replaces the master (loading a checkpoint, or a packed version unpacked); drops versions.
  void set_master(std::vector<float> master);
  // Installs a packed version as loaded from a checkpoint (kept bit-exact); the master becomes
  // its unpacked values.
  void load_packed(Packed p);

 private:
  uint32_t rows_ = 0, cols_ = 0;
  std::vector<float> master_;
  std::map<DType, Packed> versions_;
};

}  // namespace weft::volumetric
