// Classification data sets for training: features (float32 rows) and integer class labels, read
// from CSV or NumPy .npy files; a seeded train / test split, seeded shuffles per epoch, batches,
// and accuracy (argmax of the last cell) on the CPU reference.
//
// CSV: one sample per line, the feature values then the label (a non-negative integer) last,
// separated by commas; blank lines and lines starting with '#' are skipped; every row has the
// same number of fields. .npy: a float32 2-D features array (samples x features, C order) and a
// separate 1-D labels array (int32 or int64, one per sample). Everything else is BadInput naming
// the file and the line / field / dtype.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "model.h"

namespace weft::volumetric {

struct Dataset {
  std::string source;       // the file(s), for errors
  uint32_t features = 0;    // values per sample
  std::vector<float> x;     // size() x features
  std::vector<uint32_t> labels;
  std::vector<uint32_t> lines;  // CSV: each sample's line in the file (errors name it); else empty

  size_t size() const { return labels.size(); }
  std::vector<float> row(size_t i) const { return {x.begin() + i * features, x.begin() + (i + 1) * features}; }
};

Dataset load_csv_dataset(const std::string& path);
Dataset load_npy_dataset(const std::string& features_path, const std::string& labels_path);
// By extension: .csv (labels_path must be empty) or .npy (labels_path required).
Dataset load_dataset(const std::string& path, const std::string& labels_path = "");
// From arrays in memory (Python): rows x features values and rows labels; BadInput naming `where`
// for a size mismatch, a non-finite value or a negative label.
Dataset make_dataset(std::vector<float> x, const std::vector<int64_t>& labels, uint32_t features, const std::string& where);

// Multiplies every feature by `factor` (e.g. 1/16 for 4-bit pixel values).
void scale_features(Dataset& d, float factor);

// BadInput naming the data set when its features do not match the network's input, or a label
// is not below its output size (a label is the index of an output; CSV: naming file:line).
void check_dataset(const Dataset& d, const Network& net);

// A seeded split: the samples shuffled with `seed`, the first round(test_fraction x size) are the
// test set, the rest the training set (both keep the shuffled order). test_fraction in [0, 1).
struct Split {
  Dataset train, test;
};
Split split_dataset(const Dataset& d, double test_fraction, uint64_t seed);

// 0..n-1 in a seeded order (Fisher-Yates over a 64-bit Mersenne Twister; the same on every platform).
std::vector<size_t> shuffled_order(size_t n, uint64_t seed);

// One epoch: the samples in shuffled_order(size, seed), batches of `batch` (the last one smaller),
// targets one-hot over `classes`; `step` takes a batch and returns its mean loss. Returns the
// mean loss over the samples.
using BatchStep = std::function<float(const std::vector<std::vector<float>>&, const std::vector<std::vector<float>>&)>;
double run_epoch(const Dataset& d, uint32_t classes, uint32_t batch, uint64_t seed, const BatchStep& step);

// The fraction of samples whose label is the argmax of the network's output (CPU reference, one
// pass from a zero state, the layers in their own numeric types).
double accuracy(Network& net, const Dataset& d);

}  // namespace weft::volumetric
