// Python binding of the hypothesis-update backend API (hypothesis_backend.h) with pybind11 and
// numpy. One `Backend` object wraps a CpuBackend or a VulkanBackend; see README.md here.
//
//   from weft import hypothesis_update as wh
//   b = wh.Backend.cpu(threads=2)                      # or wh.Backend.vulkan(device="", validation=False)
//   g = b.add_graph(pos, x, name="cup")                # pos (N,3), x (N,F) numpy arrays
//   lm = b.add_learning_module([g], threshold="80%", features=[...])
//   b.dispatch({lm: {"pose_vectors": S, "pose_fully_defined": True, "features": {...}}})
//   b.wait()
//   b.evidence(lm, g); b.most_likely(lm); ...
//
// Every weft::Error becomes weft.Error (code: the ErrorCode name, message: the text; weft.BadInput
// for bad input), malformed numpy input too. dispatch() and wait() run without the
// GIL; a mutex serialises calls into the backend, which is not thread-safe itself.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "errors.h"
#include "py_arrays.h"
#include "py_device.h"

#include <weft/error.h>
#include <weft/weft.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cpu_backend.h"
#include "hypothesis_backend.h"
#include "hypothesis_types.h"
#include "vulkan_backend.h"

namespace py = pybind11;
using namespace weft::hypothesis_update;
using weft::python::shape_text;

namespace {

[[noreturn]] void bad(const std::string& message) { weft::fail(weft::ErrorCode::BadInput, message); }

// Any array-like as a C-contiguous float64 array of the expected shape (-1: any extent). Real
// floats up to 64 bits and integers convert (exactly for float32 and for integers below 2^53);
// bool, complex, object, string and long double are refused, as is a wrong shape.
py::array_t<double, py::array::c_style> as_f64(py::handle obj, const std::string& what,
                                                const std::vector<py::ssize_t>& shape) {
  if (obj.is_none()) bad(what + ": expected an array, got None");
  py::array a;
  try {
    a = py::array::ensure(obj);
  } catch (...) {
  }
  if (!a) {
    try {
      a = py::module_::import("numpy").attr("asarray")(obj);
    } catch (py::error_already_set& e) {
      bad(what + ": cannot convert to a numpy array (" + std::string(e.what()) + ")");
    }
  }
  const char kind = a.dtype().kind();
  const bool ok = (kind == 'f' && a.dtype().itemsize() <= 8) || kind == 'i' || kind == 'u';
  if (!ok)
    bad(what + ": expected a real numeric array (float64, float32 or integer), got dtype " +
        std::string(py::str(a.dtype())));
  bool shape_ok = a.ndim() == py::ssize_t(shape.size());
  for (size_t i = 0; shape_ok && i < shape.size(); ++i) shape_ok = shape[i] < 0 || a.shape(py::ssize_t(i)) == shape[i];
  if (!shape_ok) {
    std::ostringstream s;
    s << what << ": expected shape (";
    for (size_t i = 0; i < shape.size(); ++i)
      s << (i ? ", " : "") << (shape[i] < 0 ? std::string("*") : std::to_string(shape[i])) << (shape.size() == 1 ? "," : "");
    s << "), got " << shape_text(a);
    bad(s.str());
  }
  return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
}

std::vector<double> to_vector(const py::array_t<double, py::array::c_style>& a) {
  return std::vector<double>(a.data(), a.data() + a.size());
}

// numpy arrays that own the C++ vector they view (no copy).
template <class T>
py::array_t<T> own(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, heap->data(), owner);
}

py::array_t<bool> own_bool(const std::vector<uint8_t>& v) {
  py::array_t<bool> out(py::ssize_t(v.size()));
  auto m = out.mutable_unchecked<1>();
  for (size_t i = 0; i < v.size(); ++i) m(py::ssize_t(i)) = v[i] != 0;
  return out;
}

// ---- config <-> dict ----

double num(py::handle v, const std::string& key) {
  if (py::isinstance<py::bool_>(v) || !(py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v) ||
                                         py::hasattr(v, "__float__")))
    bad("config." + key + ": expected a number, got " + std::string(py::str(py::type::of(v).attr("__name__"))));
  return v.cast<double>();
}

int integer(py::handle v, const std::string& key) {
  if (py::isinstance<py::bool_>(v) || !py::hasattr(v, "__index__"))
    bad("config." + key + ": expected an integer, got " + std::string(py::str(py::type::of(v).attr("__name__"))));
  return v.cast<int>();
}

std::string text(py::handle v, const std::string& key) {
  if (!py::isinstance<py::str>(v)) bad("config." + key + ": expected a string");
  return v.cast<std::string>();
}

std::vector<double> numbers(py::handle v, const std::string& key) {
  const auto a = as_f64(v, "config." + key, {-1});
  return to_vector(a);
}

FeatureSpec feature_from(py::handle v, size_t index) {
  const std::string where = "features[" + std::to_string(index) + "]";
  if (!py::isinstance<py::dict>(v)) bad("config." + where + ": expected a dict with name, tolerances, weights");
  FeatureSpec f;
  bool circular_given = false;
  for (auto [k, val] : v.cast<py::dict>()) {
    const std::string key = py::str(k);
    if (key == "name")
      f.name = text(val, where + ".name");
    else if (key == "tolerances")
      f.tolerances = numbers(val, where + ".tolerances");
    else if (key == "weights")
      f.weights = numbers(val, where + ".weights");
    else if (key == "circular") {
      f.first_column_circular = val.cast<bool>();
      circular_given = true;
    } else
      bad("config." + where + ": unknown key '" + key + "' (name, tolerances, weights, circular)");
  }
  if (f.name.empty()) bad("config." + where + ": needs a name");
  if (!circular_given) f.first_column_circular = f.name == "hsv";
  return f;
}

UpdaterConfig config_from(const py::dict& d) {
  UpdaterConfig c;
  py::object curvature = py::none();
  for (auto [k, v] : d) {
    const std::string key = py::str(k);
    if (key == "kind" || key == "updater") {
      const std::string s = text(v, key);
      if (s == "default" || s == "DefaultHypothesesUpdater")
        c.kind = UpdaterKind::Default;
      else if (s == "burst" || s == "burst_sampling" || s == "BurstSamplingHypothesesUpdater" ||
               s == "ResamplingHypothesesUpdater")
        c.kind = UpdaterKind::BurstSampling;
      else
        bad("config." + key + ": '" + s + "' is not 'default' or 'burst_sampling'");
    } else if (key == "threshold" || key == "evidence_threshold_config") {
      if (py::isinstance<py::str>(v))
        c.threshold = ThresholdConfig::parse(v.cast<std::string>());
      else if (v.is_none())
        c.threshold = ThresholdConfig::parse("");
      else
        c.threshold = ThresholdConfig{ThresholdMode::Number, num(v, key)};
    } else if (key == "x_percent_threshold")
      c.x_percent_threshold = num(v, key);
    else if (key == "max_match_distance")
      c.max_match_distance = num(v, key);
    else if (key == "max_nneighbors" || key == "k")
      c.max_nneighbors = integer(v, key);
    else if (key == "past_weight")
      c.past_weight = num(v, key);
    else if (key == "present_weight")
      c.present_weight = num(v, key);
    else if (key == "feature_evidence_increment")
      c.feature_evidence_increment = num(v, key);
    else if (key == "sn_weight")
      c.sn_weight = num(v, key);
    else if (key == "cd_weight")
      c.cd_weight = num(v, key);
    else if (key == "pose_weights") {
      const auto w = numbers(v, key);
      if (w.size() < 2) bad("config.pose_weights: needs at least 2 entries (surface normal, curvature direction)");
      c.sn_weight = w[0];
      c.cd_weight = w[1];
    } else if (key == "umbilical_num_poses")
      c.umbilical_num_poses = integer(v, key);
    else if (key == "max_channels")
      c.max_channels = integer(v, key);
    else if (key == "features") {
      if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v)) bad("config.features: expected a list of dicts");
      size_t i = 0;
      for (py::handle f : v) c.features.push_back(feature_from(f, i++));
    } else if (key == "curvature_feature")
      curvature = py::reinterpret_borrow<py::object>(v);
    else if (key == "sampling_multiplier")
      c.burst.sampling_multiplier = num(v, key);
    else if (key == "deletion_trigger_slope")
      c.burst.deletion_trigger_slope = num(v, key);
    else if (key == "sampling_burst_duration")
      c.burst.sampling_burst_duration = integer(v, key);
    else if (key == "burst_trigger_slope")
      c.burst.burst_trigger_slope = num(v, key);
    else if (key == "slope_window")
      c.burst.slope_window = integer(v, key);
    else if (key == "slope_min_age")
      c.burst.slope_min_age = integer(v, key);
    else
      bad("config: unknown key '" + key + "' (see weft.hypothesis_update.default_config())");
  }
  if (curvature.is_none()) {
    c.curvature_feature = -1;
    for (size_t i = 0; i < c.features.size(); ++i)
      if (c.features[i].name == "principal_curvatures_log") c.curvature_feature = int(i);
  } else if (py::isinstance<py::str>(curvature)) {
    const std::string name = curvature.cast<std::string>();
    c.curvature_feature = -2;
    for (size_t i = 0; i < c.features.size(); ++i)
      if (c.features[i].name == name) c.curvature_feature = int(i);
    if (c.curvature_feature == -2) bad("config.curvature_feature: no feature named '" + name + "'");
  } else {
    c.curvature_feature = integer(curvature, "curvature_feature");
  }
  c.validate();
  return c;
}

py::dict config_to(const UpdaterConfig& c) {
  py::dict d;
  d["kind"] = c.kind == UpdaterKind::Default ? "default" : "burst_sampling";
  switch (c.threshold.mode) {
    case ThresholdMode::Number: d["threshold"] = c.threshold.value; break;
    case ThresholdMode::Mean: d["threshold"] = "mean"; break;
    case ThresholdMode::Median: d["threshold"] = "median"; break;
    case ThresholdMode::Percent: {
      std::ostringstream s;
      s.precision(17);
      s << c.threshold.value << "%";
      d["threshold"] = s.str();
      break;
    }
    case ThresholdMode::XPercent: d["threshold"] = "x_percent_threshold"; break;
    case ThresholdMode::All: d["threshold"] = "all"; break;
    case ThresholdMode::None: d["threshold"] = ""; break;
  }
  d["x_percent_threshold"] = c.x_percent_threshold;
  d["max_match_distance"] = c.max_match_distance;
  d["max_nneighbors"] = c.max_nneighbors;
  d["past_weight"] = c.past_weight;
  d["present_weight"] = c.present_weight;
  d["feature_evidence_increment"] = c.feature_evidence_increment;
  d["sn_weight"] = c.sn_weight;
  d["cd_weight"] = c.cd_weight;
  d["umbilical_num_poses"] = c.umbilical_num_poses;
  d["max_channels"] = c.max_channels;
  py::list fs;
  for (const FeatureSpec& f : c.features) {
    py::dict fd;
    fd["name"] = f.name;
    fd["tolerances"] = f.tolerances;
    fd["weights"] = f.weights;
    fd["circular"] = f.first_column_circular;
    fs.append(fd);
  }
  d["features"] = fs;
  d["curvature_feature"] = c.curvature_feature;
  d["sampling_multiplier"] = c.burst.sampling_multiplier;
  d["deletion_trigger_slope"] = c.burst.deletion_trigger_slope;
  d["sampling_burst_duration"] = c.burst.sampling_burst_duration;
  d["burst_trigger_slope"] = c.burst.burst_trigger_slope;
  d["slope_window"] = c.burst.slope_window;
  d["slope_min_age"] = c.burst.slope_min_age;
  return d;
}

// ---- step inputs ----

ChannelInput channel_from(py::handle v, const UpdaterConfig& c, const std::string& where) {
  if (!py::isinstance<py::dict>(v)) bad(where + ": expected a dict with pose_vectors, pose_fully_defined, features");
  ChannelInput ch;
  bool have_pose = false, have_features = false;
  for (auto [k, val] : v.cast<py::dict>()) {
    const std::string key = py::str(k);
    if (key == "pose_vectors") {
      py::array_t<double, py::array::c_style> a;
      const py::array probe = py::array::ensure(val);
      if (probe && probe.ndim() == 1)
        a = as_f64(val, where + ".pose_vectors", {9});
      else
        a = as_f64(val, where + ".pose_vectors", {3, 3});
      std::copy(a.data(), a.data() + 9, ch.pose_vectors.begin());
      have_pose = true;
    } else if (key == "pose_fully_defined") {
      // A bool or a number (0 / non-zero), also as a one-element numpy array.
      const py::array a = py::array::ensure(val);
      if (!a || a.size() != 1 || std::string("biuf").find(a.dtype().kind()) == std::string::npos)
        bad(where + ".pose_fully_defined: expected a bool or a number, got " +
            std::string(py::str(py::type::of(val).attr("__name__"))));
      ch.pose_fully_defined = py::bool_(py::object(a.attr("item")()));
    } else if (key == "features") {
      have_features = true;
      if (py::isinstance<py::dict>(val)) {
        const py::dict fd = val.cast<py::dict>();
        std::set<std::string> used;
        for (const FeatureSpec& f : c.features) {
          if (!fd.contains(f.name)) bad(where + ".features: missing '" + f.name + "'");
          const auto a = as_f64(fd[py::str(f.name)], where + ".features['" + f.name + "']", {py::ssize_t(f.width())});
          ch.features.insert(ch.features.end(), a.data(), a.data() + a.size());
          used.insert(f.name);
        }
        for (auto [fk, fv] : fd) {
          (void)fv;
          const std::string name = py::str(fk);
          if (!used.count(name)) bad(where + ".features: the LM has no feature '" + name + "'");
        }
      } else {
        ch.features = to_vector(as_f64(val, where + ".features", {py::ssize_t(c.feature_width())}));
      }
    } else
      bad(where + ": unknown key '" + key + "' (pose_vectors, pose_fully_defined, features)");
  }
  if (!have_pose) bad(where + ": missing pose_vectors");
  if (!have_features && c.feature_width() > 0) bad(where + ": missing features");
  return ch;
}

StepInput step_from(int lm, py::handle v, const UpdaterConfig& c) {
  const std::string where = "LM " + std::to_string(lm) + " input";
  if (!py::isinstance<py::dict>(v)) bad(where + ": expected a dict");
  StepInput in;
  in.lm = lm;
  py::dict channel_keys;
  bool have_channels = false;
  for (auto [k, val] : v.cast<py::dict>()) {
    const std::string key = py::str(k);
    if (key == "displacement") {
      if (!val.is_none()) {
        const auto a = as_f64(val, where + ".displacement", {3});
        in.displacement = std::array<double, 3>{a.at(0), a.at(1), a.at(2)};
      }
    } else if (key == "sensed_location") {  // channel 0's location rel. body, for votes
      const auto a = as_f64(val, where + ".sensed_location", {3});
      in.sensed_location = std::array<double, 3>{a.at(0), a.at(1), a.at(2)};
    } else if (key == "channels") {
      if (!py::isinstance<py::list>(val) && !py::isinstance<py::tuple>(val)) bad(where + ".channels: expected a list of dicts");
      size_t i = 0;
      for (py::handle ch : val) in.channels.push_back(channel_from(ch, c, where + ".channels[" + std::to_string(i++) + "]"));
      have_channels = true;
    } else {
      channel_keys[k] = val;
    }
  }
  if (have_channels && py::len(channel_keys))
    bad(where + ": give either 'channels' or one channel's keys, not both");
  if (!have_channels) in.channels.push_back(channel_from(channel_keys, c, where));
  return in;
}


// The enumerator's own name, which Python code branches on (weft::to_string gives prose).
// ---- the Backend wrapper ----

class Backend {
 public:
  static std::unique_ptr<Backend> cpu(unsigned threads) {
    auto b = std::make_unique<Backend>();
    b->backend_ = std::make_unique<CpuBackend>(threads);
    b->kind_ = "cpu";
    return b;
  }
  static std::unique_ptr<Backend> vulkan(const std::string& select, bool validation) {
    auto b = std::make_unique<Backend>();
    {
      py::gil_scoped_release release;
      b->device_ = weft::Device::open({.select = select, .validation = validation});
      b->backend_ = make_vulkan_backend(*b->device_);
    }
    b->kind_ = "vulkan";
    return b;
  }

  // Runs f on the backend without the GIL, one call at a time.
  template <class F>
  auto call(F&& f) const {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(mutex_);
    return f(*backend_);
  }

  int add_graph(py::handle pos, py::handle x, const std::string& name, std::optional<size_t> feature_width) {
    const auto p = as_f64(pos, "graph '" + name + "': pos", {-1, 3});
    const py::ssize_t n = p.shape(0);
    const auto xa = as_f64(x, "graph '" + name + "': x", {n, -1});
    const size_t f = size_t(xa.shape(1));
    if (f < kFirstFeatureColumn)
      bad("graph '" + name + "': x needs at least " + std::to_string(kFirstFeatureColumn) +
          " columns (node id, 9 pose vector values, pose_fully_defined), got " + std::to_string(f));
    const size_t width = feature_width.value_or(f - kFirstFeatureColumn);
    ObjectGraph g = ObjectGraph::from_arrays(name, to_vector(p), size_t(n), to_vector(xa), f, width);
    return call([&](HypothesisBackend& b) { return b.add_graph(g); });
  }

  int add_learning_module(const std::vector<int>& graph_ids, const py::dict& config) {
    UpdaterConfig c = config_from(config);
    const int id = call([&](HypothesisBackend& b) { return b.add_learning_module(c, graph_ids); });
    if (size_t(id) != configs_.size()) bad("add_learning_module: unexpected LM id");
    configs_.push_back(std::move(c));
    return id;
  }

  void set_groups(const std::vector<std::vector<int>>& groups) {
    call([&](HypothesisBackend& b) { b.set_groups(groups); });
  }
  void reset_episode() {
    call([&](HypothesisBackend& b) { b.reset_episode(); });
  }
  void set_votes(const std::vector<std::vector<int>>& senders_of, double threshold, double weight) {
    call([&](HypothesisBackend& b) { b.set_votes(senders_of, {threshold, weight}); });
  }

  void dispatch(const py::dict& inputs) {
    std::vector<StepInput> steps;
    for (auto [k, v] : inputs) {
      if (py::isinstance<py::bool_>(k) || !py::hasattr(k, "__index__"))
        bad("dispatch: keys must be LM ids (int), got " + std::string(py::str(py::repr(k))));
      const int lm = k.cast<int>();
      if (lm < 0 || size_t(lm) >= configs_.size())
        bad("dispatch: unknown LM " + std::to_string(lm) + " (the backend has " + std::to_string(configs_.size()) +
            " learning modules)");
      if (v.is_none()) continue;  // explicitly no input this step
      steps.push_back(step_from(lm, v, configs_[size_t(lm)]));
    }
    call([&](HypothesisBackend& b) { b.dispatch(steps); });
  }
  void wait() {
    call([&](HypothesisBackend& b) { b.wait(); });
  }

  HypothesisArrays arrays(int lm, int graph) const {
    return call([&](HypothesisBackend& b) { return b.hypotheses(lm, graph); });
  }

  const UpdaterConfig& config(int lm) const {
    if (lm < 0 || size_t(lm) >= configs_.size())
      bad("config: unknown LM " + std::to_string(lm) + " (the backend has " + std::to_string(configs_.size()) +
          " learning modules)");
    return configs_[size_t(lm)];
  }

  std::unique_ptr<weft::Device> device_;  // before backend_: outlives it
  std::unique_ptr<HypothesisBackend> backend_;
  std::vector<UpdaterConfig> configs_;
  std::string kind_;
  mutable std::mutex mutex_;
};

py::dict hypotheses_dict(HypothesisArrays&& h) {
  const py::ssize_t n = py::ssize_t(h.size());
  py::dict d;
  d["possible"] = own_bool(h.possible);
  d["evidence"] = own(std::move(h.evidence), {n});
  d["locations"] = own(std::move(h.locations), {n, 3});
  d["rotations"] = own(std::move(h.rotations), {n, 3, 3});
  return d;
}

}  // namespace

namespace weft::python {

// The submodule weft._weft.hypothesis_update; weft/hypothesis_update.py is what users import.
void bind_hypothesis_update(py::module_& m) {
  m.doc() = "Weft hypothesis-update backends (Monty's evidence updates) for Python: CPU (float64) and Vulkan (float32).";

  // Errors are weft.Error (the core module's translator gives them .code and .message).
  m.attr("Error") = error_class();

  m.def("default_config", [] { return config_to(UpdaterConfig{}); },
        "The C++ UpdaterConfig defaults as a dict (the keys add_learning_module accepts).");
  m.attr("FIRST_FEATURE_COLUMN") = kFirstFeatureColumn;

  py::class_<MostLikely>(m, "MostLikely")
      .def_readonly("graph", &MostLikely::graph, "graph id; -1 while the LM has no hypotheses")
      .def_readonly("hypothesis", &MostLikely::hypothesis)
      .def_readonly("evidence", &MostLikely::evidence)
      .def("__repr__", [](const MostLikely& x) {
        std::ostringstream s;
        s.precision(17);
        s << "MostLikely(graph=" << x.graph << ", hypothesis=" << x.hypothesis << ", evidence=" << x.evidence << ")";
        return s.str();
      });

  py::class_<GraphStepInfo>(m, "StepInfo")
      .def_readonly("threshold", &GraphStepInfo::threshold)
      .def_readonly("prediction_error", &GraphStepInfo::prediction_error, "NaN when nothing was tested")
      .def_readonly("tested", &GraphStepInfo::tested)
      .def_readonly("updated", &GraphStepInfo::updated)
      .def("__repr__", [](const GraphStepInfo& x) {
        std::ostringstream s;
        s.precision(17);
        s << "StepInfo(threshold=" << x.threshold << ", prediction_error=" << x.prediction_error
          << ", tested=" << x.tested << ", updated=" << (x.updated ? "True" : "False") << ")";
        return s.str();
      });

  py::class_<BurstTelemetry>(m, "BurstTelemetry")
      .def_property_readonly("added_ids", [](const BurstTelemetry& t) { return py::array_t<int64_t>(py::ssize_t(t.added_ids.size()), t.added_ids.data()); })
      .def_property_readonly("removed_ids", [](const BurstTelemetry& t) { return py::array_t<int64_t>(py::ssize_t(t.removed_ids.size()), t.removed_ids.data()); })
      .def_property_readonly("ages", [](const BurstTelemetry& t) { return py::array_t<int64_t>(py::ssize_t(t.ages.size()), t.ages.data()); })
      .def_property_readonly("evidence_slopes", [](const BurstTelemetry& t) { return py::array_t<double>(py::ssize_t(t.evidence_slopes.size()), t.evidence_slopes.data()); })
      .def_readonly("max_global_slope", &BurstTelemetry::max_global_slope)
      .def_readonly("burst_steps_in_step", &BurstTelemetry::burst_steps_in_step);

  py::class_<Backend>(m, "Backend", "One backend shared by all learning modules (spec §1).")
      .def_static("cpu", &Backend::cpu, py::arg("threads") = 0,
                  "The native float64 CPU backend; threads=0: one per hardware thread.")
      .def_static("vulkan", &Backend::vulkan, py::arg("device") = "", py::arg("validation") = false,
                  "The Vulkan backend (both updaters, float32). device: '' (WEFT_DEVICE, else the best), "
                  "an index or a name substring. validation: enable the Khronos validation layer.")
      .def_property_readonly("kind", [](const Backend& b) { return b.kind_; })
      .def_property_readonly("device_name", [](const Backend& b) -> py::object {
        if (!b.device_) return py::none();
        return py::str(b.device_->info().name);
      })
      .def("validation_messages", [](const Backend& b) {
        std::vector<std::string> out;
        if (b.device_) out = b.device_->validation().messages();
        return out;
      }, "Messages the validation layer recorded so far (Vulkan with validation=True; else empty).")
      .def("add_graph",
           [](Backend& b, py::handle pos, py::handle x, const std::string& name, std::optional<size_t> fw) {
             return b.add_graph(pos, x, name, fw);
           },
           py::arg("pos"), py::arg("x"), py::arg("name") = "graph", py::arg("feature_width") = py::none(),
           "Uploads an object graph: pos (N,3), x (N,F) with columns node id, 9 pose values, "
           "pose_fully_defined, then the non-pose features (feature_width, default F-11). Returns its id.")
      .def("add_learning_module",
           [](Backend& b, const std::vector<int>& graph_ids, std::optional<py::dict> config, py::kwargs kwargs) {
             py::dict merged;
             if (config)
               for (auto [k, v] : *config) merged[k] = v;
             for (auto [k, v] : kwargs) merged[k] = v;
             return b.add_learning_module(graph_ids, merged);
           },
           py::arg("graph_ids"), py::arg("config") = py::none(),
           "Adds an LM holding graph_ids; config as a dict and/or keyword arguments (keys of default_config()). "
           "Returns its id.")
      .def("config", [](const Backend& b, int lm) { return config_to(b.config(lm)); }, py::arg("lm"))
      .def("set_groups", &Backend::set_groups, py::arg("groups"), "A list of lists of LM ids: LM groups (the Vulkan backend records a program and submits once per group; wait() joins them).")
      .def("reset_episode", &Backend::reset_episode)
      .def("set_votes", &Backend::set_votes, py::arg("senders_of"), py::arg("vote_evidence_threshold") = 0.8,
           py::arg("vote_weight") = 1.0,
           "Monty's votes between LMs after each step: senders_of[i] lists the LMs LM i hears (Monty's "
           "lm_to_lm_vote_matrix; [] turns voting off). A voting LM's input needs 'sensed_location' (3,).")
      .def("dispatch", &Backend::dispatch, py::arg("inputs"),
           "Queues one step: {lm_id: {'displacement': (3,) or None, 'pose_vectors': (3,3), "
           "'pose_fully_defined': bool, 'features': (W,) or {name: array}}} or "
           "{lm_id: {'displacement': ..., 'channels': [channel, ...]}}. LMs not named (or None) are no-ops. "
           "Releases the GIL.")
      .def("wait", &Backend::wait, "Blocks until the dispatched step is done. Releases the GIL.")
      .def("hypotheses", [](const Backend& b, int lm, int g) { return hypotheses_dict(b.arrays(lm, g)); },
           py::arg("lm"), py::arg("graph"), "{'evidence': float64[H], 'locations': float64[H, 3], 'rotations': float64[H, 3, 3], 'possible': bool[H]}")
      .def("evidence", [](const Backend& b, int lm, int g) {
        HypothesisArrays h = b.arrays(lm, g);
        const py::ssize_t n = py::ssize_t(h.size());
        return own(std::move(h.evidence), {n});
      }, py::arg("lm"), py::arg("graph"), "float64[H]: each hypothesis's evidence.")
      .def("locations", [](const Backend& b, int lm, int g) {
        HypothesisArrays h = b.arrays(lm, g);
        const py::ssize_t n = py::ssize_t(h.size());
        return own(std::move(h.locations), {n, 3});
      }, py::arg("lm"), py::arg("graph"), "float64[H, 3]: each hypothesis's location in the object's frame.")
      .def("rotations", [](const Backend& b, int lm, int g) {
        HypothesisArrays h = b.arrays(lm, g);
        const py::ssize_t n = py::ssize_t(h.size());
        return own(std::move(h.rotations), {n, 3, 3});
      }, py::arg("lm"), py::arg("graph"), "float64[H, 3, 3]: each hypothesis's rotation matrix.")
      .def("possible", [](const Backend& b, int lm, int g) { return own_bool(b.arrays(lm, g).possible); },
           py::arg("lm"), py::arg("graph"), "bool[H]: Monty's per-hypothesis possible flag, as its updater leaves it.")
      .def("step_info", [](const Backend& b, int lm, int g) {
        return b.call([&](HypothesisBackend& x) { return x.step_info(lm, g); });
      }, py::arg("lm"), py::arg("graph"))
      .def("prediction_error", [](const Backend& b, int lm, int g) {
        return b.call([&](HypothesisBackend& x) { return x.step_info(lm, g).prediction_error; });
      }, py::arg("lm"), py::arg("graph"), "Prediction error of the LM's previous best hypothesis on this graph (NaN: nothing tested).")
      .def("burst_telemetry", [](const Backend& b, int lm, int g) {
        return b.call([&](HypothesisBackend& x) { return x.burst_telemetry(lm, g); });
      }, py::arg("lm"), py::arg("graph"))
      .def("most_likely", [](const Backend& b, int lm) {
        return b.call([&](HypothesisBackend& x) { return x.most_likely(lm); });
      }, py::arg("lm"))
      .def_property_readonly("num_graphs", [](const Backend& b) { return b.call([](HypothesisBackend& x) { return x.num_graphs(); }); })
      .def_property_readonly("num_learning_modules", [](const Backend& b) { return b.call([](HypothesisBackend& x) { return x.num_learning_modules(); }); })
      .def("graph", [](const Backend& b, int id) {
        ObjectGraph g;
        b.call([&](HypothesisBackend& x) {
          if (id < 0 || id >= x.num_graphs())
            bad("graph: unknown graph " + std::to_string(id) + " (the backend has " + std::to_string(x.num_graphs()) + ")");
          g = x.graph(id);
          return 0;
        });
        const py::ssize_t n = py::ssize_t(g.num_nodes);
        const py::ssize_t w = n ? py::ssize_t(g.features.size()) / n : 0;
        py::dict d;
        d["name"] = g.name;
        d["num_nodes"] = g.num_nodes;
        d["pos"] = own(std::move(g.pos), {n, 3});
        d["pose_vectors"] = own(std::move(g.pose_vectors), {n, 3, 3});
        d["pose_defined"] = own(std::move(g.pose_defined), {n});
        d["features"] = own(std::move(g.features), {n, w});
        return d;
      }, py::arg("id"), "The stored graph as a dict of float64 arrays.");

  m.def("cpu_backend", &Backend::cpu, py::arg("threads") = 0, "Same as Backend.cpu.");
  m.def("vulkan_backend", &Backend::vulkan, py::arg("device") = "", py::arg("validation") = false,
        "Same as Backend.vulkan.");
}

}  // namespace weft::python
