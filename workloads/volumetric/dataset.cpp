#include "dataset.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <random>

#include <weft/error.h>

#include <weft/input_file.h>
#include <weft/npy.h>
#include "reference.h"
#include "train.h"

namespace weft::volumetric {

namespace {

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1) out.push_back(trim(line.substr(start, comma - start)));
  out.push_back(trim(line.substr(start)));
  return out;
}

// A finite number taking the whole field; BadInput naming the place otherwise.
float parse_value(const std::string& field, const std::string& where) {
  char* end = nullptr;
  const float v = field.empty() ? 0.0f : std::strtof(field.c_str(), &end);
  if (field.empty() || end != field.c_str() + field.size() || !std::isfinite(v))
    fail(ErrorCode::BadInput, where + ": '" + field + "' is not a finite number");
  return v;
}

uint32_t parse_label(const std::string& field, const std::string& where) {
  if (field.empty() || field.size() > 9 || field.find_first_not_of("0123456789") != std::string::npos)
    fail(ErrorCode::BadInput, where + ": label '" + field + "' is not a non-negative integer");
  return uint32_t(std::stoul(field));
}

// One data line of a CSV file into d (the first one fixes the field count).
void parse_csv_row(const std::string& line, const std::string& at, Dataset& d) {
  const std::vector<std::string> f = split_fields(line);
  if (f.size() < 2) fail(ErrorCode::BadInput, at + ": " + std::to_string(f.size()) + " field (features then a label, at least 2)");
  if (d.features == 0) d.features = uint32_t(f.size() - 1);
  if (f.size() != d.features + 1)
    fail(ErrorCode::BadInput, at + ": " + std::to_string(f.size()) + " fields, earlier rows have " + std::to_string(d.features + 1));
  for (size_t k = 0; k + 1 < f.size(); ++k) d.x.push_back(parse_value(f[k], at + ": field " + std::to_string(k + 1)));
  d.labels.push_back(parse_label(f.back(), at + ": field " + std::to_string(f.size()) + " (the label)"));
}

// "file:line" of sample i (CSV), else the source. (append, not "x" + ..: GCC 12's false -Wrestrict.)
std::string sample_place(const Dataset& d, size_t i) {
  return d.lines.empty() ? d.source : std::string(d.source).append(":").append(std::to_string(d.lines[i]));
}

void check_rows(const Dataset& d) {
  if (d.labels.empty()) fail(ErrorCode::BadInput, d.source + ": no samples");
}

}  // namespace

Dataset load_csv_dataset(const std::string& path) {
  const std::string text = read_text_file(path, "cannot open the data file", kDataFileBytes);
  Dataset d;
  d.source = path;
  size_t start = 0, line_no = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = trim(text.substr(start, end - start));
    ++line_no;
    start = end + 1;
    if (line.empty() || line[0] == '#') continue;
    parse_csv_row(line, path + ":" + std::to_string(line_no), d);
    d.lines.push_back(uint32_t(line_no));
  }
  check_rows(d);
  return d;
}

Dataset load_npy_dataset(const std::string& features_path, const std::string& labels_path) {
  const NpyArray fx = read_npy(features_path), fl = read_npy(labels_path);
  if (fx.dtype != weft::DType::F32 || fx.shape.size() != 2)
    fail(ErrorCode::BadInput, features_path + ": features must be a 2-D float32 ('<f4') array, got dtype '" + dtype_descr(fx.dtype) +
                                  "' with " + std::to_string(fx.shape.size()) + " dimensions");
  if ((fl.dtype != weft::DType::I32 && fl.dtype != weft::DType::I64) || fl.shape.size() != 1)
    fail(ErrorCode::BadInput, labels_path + ": labels must be a 1-D int32 or int64 ('<i4', '<i8') array, got dtype '" +
                                  dtype_descr(fl.dtype) + "' with " + std::to_string(fl.shape.size()) + " dimensions");
  if (fl.shape[0] != fx.shape[0])
    fail(ErrorCode::BadInput, labels_path + ": " + std::to_string(fl.shape[0]) + " labels for the " + std::to_string(fx.shape[0]) +
                                  " samples of " + features_path);
  if (fx.shape[1] == 0 || fx.shape[1] > UINT32_MAX) fail(ErrorCode::BadInput, features_path + ": " + std::to_string(fx.shape[1]) + " features per sample");
  std::vector<int64_t> labels;
  if (fl.dtype == weft::DType::I32)
    for (int32_t v : fl.as<int32_t>()) labels.push_back(v);
  else
    labels = fl.as<int64_t>();
  return make_dataset(fx.as<float>(), labels, uint32_t(fx.shape[1]), features_path + " + " + labels_path);
}

Dataset load_dataset(const std::string& path, const std::string& labels_path) {
  auto ends = [&](const char* ext) { return path.size() >= std::strlen(ext) && path.compare(path.size() - std::strlen(ext), std::string::npos, ext) == 0; };
  if (ends(".csv")) {
    if (!labels_path.empty()) fail(ErrorCode::BadInput, path + ": a CSV file holds its labels (last column); no separate labels file");
    return load_csv_dataset(path);
  }
  if (ends(".npy")) {
    if (labels_path.empty()) fail(ErrorCode::BadInput, path + ": .npy features need a labels .npy file beside them");
    return load_npy_dataset(path, labels_path);
  }
  fail(ErrorCode::BadInput, path + ": unknown data format (expected .csv, or .npy features with a .npy labels file)");
}

Dataset make_dataset(std::vector<float> x, const std::vector<int64_t>& labels, uint32_t features, const std::string& where) {
  if (features == 0 || x.size() != labels.size() * uint64_t(features))
    fail(ErrorCode::BadInput, where + ": " + std::to_string(x.size()) + " feature values for " + std::to_string(labels.size()) +
                                  " samples of " + std::to_string(features));
  Dataset d;
  d.source = where;
  d.features = features;
  for (size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      fail(ErrorCode::BadInput, where + ": sample " + std::to_string(i / features) + " feature " + std::to_string(i % features) + " is not finite");
  for (size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] > INT32_MAX)
      fail(ErrorCode::BadInput, where + ": sample " + std::to_string(i) + " label " + std::to_string(labels[i]) + " is not a class index");
    d.labels.push_back(uint32_t(labels[i]));
  }
  d.x = std::move(x);
  check_rows(d);
  return d;
}

void scale_features(Dataset& d, float factor) {
  for (float& v : d.x) v *= factor;
}

void check_dataset(const Dataset& d, const Network& net) {
  if (d.features != net.input_size())
    fail(ErrorCode::BadInput, d.source + ": " + std::to_string(d.features) + " features per sample, the network takes " +
                                  std::to_string(net.input_size()));
  for (size_t i = 0; i < d.size(); ++i)
    if (d.labels[i] >= net.output_size())
      fail(ErrorCode::BadInput, sample_place(d, i) + ": sample " + std::to_string(i) + " has label " + std::to_string(d.labels[i]) +
                                    ", not below the network's " + std::to_string(net.output_size()) + " outputs");
}

std::vector<size_t> shuffled_order(size_t n, uint64_t seed) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (size_t i = n; i > 1; --i) std::swap(order[i - 1], order[size_t(rng() % i)]);
  return order;
}

Split split_dataset(const Dataset& d, double test_fraction, uint64_t seed) {
  if (!(test_fraction >= 0 && test_fraction < 1)) fail(ErrorCode::BadInput, "test fraction must be in [0, 1), got " + std::to_string(test_fraction));
  const std::vector<size_t> order = shuffled_order(d.size(), seed);
  const size_t n_test = size_t(std::llround(test_fraction * double(d.size())));
  Split s;
  for (Dataset* part : {&s.train, &s.test}) {
    part->source = d.source;
    part->features = d.features;
  }
  for (size_t k = 0; k < order.size(); ++k) {
    Dataset& part = k < n_test ? s.test : s.train;
    const std::vector<float> r = d.row(order[k]);
    part.x.insert(part.x.end(), r.begin(), r.end());
    part.labels.push_back(d.labels[order[k]]);
    if (!d.lines.empty()) part.lines.push_back(d.lines[order[k]]);
  }
  return s;
}

double run_epoch(const Dataset& d, uint32_t classes, uint32_t batch, uint64_t seed, const BatchStep& step) {
  if (batch == 0) fail(ErrorCode::BadInput, "batch size must be at least 1");
  const std::vector<size_t> order = shuffled_order(d.size(), seed);
  double sum = 0;
  for (size_t start = 0; start < order.size(); start += batch) {
    std::vector<std::vector<float>> xs, ts;
    for (size_t k = start; k < std::min(order.size(), start + batch); ++k) {
      xs.push_back(d.row(order[k]));
      ts.push_back(one_hot(d.labels[order[k]], classes));
    }
    sum += double(step(xs, ts)) * double(xs.size());
  }
  return sum / double(order.size());
}

double accuracy(Network& net, const Dataset& d) {
  if (d.size() == 0) return 0;
  size_t right = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    MeshState s = initial_state(net);
    const std::vector<float> y = forward(net, d.row(i), s);
    right += size_t(std::max_element(y.begin(), y.end()) - y.begin()) == d.labels[i];
  }
  return double(right) / double(d.size());
}

}  // namespace weft::volumetric
