#include "weights.h"

#include <weft/error.h>

namespace weft::volumetric {

WeightStore::WeightStore(uint32_t rows, uint32_t cols, std::vector<float> master)
    : rows_(rows), cols_(cols), master_(std::move(master)) {
  if (uint64_t(master_.size()) != uint64_t(rows) * cols)
    fail(ErrorCode::BadInput, "volumetric: weight store " + std::to_string(rows) + " x " + std::to_string(cols) + " given " +
                                  std::to_string(master_.size()) + " values");
}

const Packed& WeightStore::morph(DType t) {
  auto it = versions_.find(t);
  if (it == versions_.end()) it = versions_.emplace(t, pack(master_, rows_, cols_, t)).first;
  return it->second;
}

void WeightStore::apply_step(const std::vector<float>& step) {
  if (step.size() != master_.size())
    fail(ErrorCode::BadInput, "volumetric: gradient step of " + std::to_string(step.size()) + " values for " +
                                  std::to_string(master_.size()) + " weights");
  for (size_t i = 0; i < step.size(); ++i) master_[i] -= step[i];
  versions_.clear();
}

void WeightStore::set_master(std::vector<float> master) {
  if (master.size() != master_.size())
    fail(ErrorCode::BadInput, "volumetric: master of " + std::to_string(master.size()) + " values for " +
                                  std::to_string(master_.size()) + " weights");
  master_ = std::move(master);
  versions_.clear();
}

void WeightStore::load_packed(Packed p) {
  if (p.rows != rows_ || p.cols != cols_)
    fail(ErrorCode::BadInput, "volumetric: packed weights " + std::to_string(p.rows) + " x " + std::to_string(p.cols) +
                                  " for a " + std::to_string(rows_) + " x " + std::to_string(cols_) + " store");
  master_ = unpack(p);
  versions_.clear();
  versions_.emplace(p.dtype, std::move(p));
}

}  // namespace weft::volumetric
