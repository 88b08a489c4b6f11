// The volumetric workload for Python, as the submodule weft._weft.volumetric: a model (from its
// JSON file, JSON text or a checkpoint), the CPU reference's forward passes and ticks, the device
// step mesh, the CPU and device trainers (MSE, SGD or Adam) and DNA comparison. Arrays in are
// float32, C-contiguous and of the exact shape; anything else is weft.BadInput naming the
// argument and the shape expected, never a silent conversion.
//
// A model is shared (shared_ptr) by the meshes and trainers made from it: the CPU trainer steps
// its weights in place, the device trainer downloads into it. Every call holds the GIL: the
// reference morphs (caches packed versions) inside the shared network, so two threads must not
// compute on one model at once.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "py_arrays.h"
#include "py_device.h"
#include "dataset.h"
#include "volumetric.h"

namespace py = pybind11;

namespace weft::python {
namespace {

using namespace weft::volumetric;
using Floats = py::array_t<float>;

[[noreturn]] void bad(const std::string& message) { fail(ErrorCode::BadInput, message); }

std::string describe_array(py::handle given) {
  if (!py::isinstance<py::array>(given)) return std::string(py::str(given.get_type().attr("__name__")));
  const auto a = py::reinterpret_borrow<py::array>(given);
  const bool contiguous = a.flags() & py::array::c_style;
  return std::string(py::str(py::handle(a.dtype()))) + " array of shape " + shape_text(a) + (contiguous ? "" : ", not C-contiguous");
}

// The values of a float32 C-contiguous array of exactly `shape`; BadInput naming `what` otherwise.
std::vector<float> floats(py::handle given, const std::vector<py::ssize_t>& shape, const std::string& what) {
  bool ok = py::isinstance<py::array>(given);
  if (ok) {
    const auto a = py::reinterpret_borrow<py::array>(given);
    ok = a.dtype().equal(py::dtype::of<float>()) && (a.flags() & py::array::c_style) && a.ndim() == py::ssize_t(shape.size());
    for (size_t i = 0; ok && i < shape.size(); ++i) ok = a.shape(py::ssize_t(i)) == shape[i];
    if (ok) return std::vector<float>(static_cast<const float*>(a.data()), static_cast<const float*>(a.data()) + a.size());
  }
  bad(what + ": expected a C-contiguous float32 array of shape " + shape_text(shape) + ", got " + describe_array(given));
}

// Rows of a 2-D sample array: n rows of `width` values, n taken from the array (at least one).
std::vector<std::vector<float>> rows(py::handle given, py::ssize_t n, uint32_t width, const std::string& what) {
  const std::vector<float> all = floats(given, {n, py::ssize_t(width)}, what);
  std::vector<std::vector<float>> out;
  for (py::ssize_t r = 0; r < n; ++r) out.emplace_back(all.begin() + r * width, all.begin() + (r + 1) * width);
  return out;
}

py::ssize_t sample_count(py::handle xs, const std::string& what) {
  if (!py::isinstance<py::array>(xs) || py::reinterpret_borrow<py::array>(xs).ndim() != 2 ||
      py::reinterpret_borrow<py::array>(xs).shape(0) == 0)
    bad(what + ": expected a C-contiguous float32 array of shape (samples, size) with at least one sample, got " + describe_array(xs));
  return py::reinterpret_borrow<py::array>(xs).shape(0);
}

Floats to_numpy(const std::vector<float>& v) {
  Floats out(py::ssize_t(v.size()));
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

Schedule parse_schedule(const std::string& s) {
  if (s == "pass") return Schedule::Pass;
  if (s == "tick") return Schedule::Tick;
  bad("schedule must be 'pass' or 'tick', got '" + s + "'");
}

// The trainers check the factors (check_train_options).
TrainOptions train_options(const std::string& optimizer, float lr, float beta1, float beta2, float eps, const std::string& loss) {
  TrainOptions o;
  o.loss = parse_loss(loss);
  if (optimizer == "sgd") o.optimizer = Optimizer::SGD;
  else if (optimizer != "adam") bad("optimizer must be 'sgd' or 'adam', got '" + optimizer + "'");
  o.lr = lr, o.beta1 = beta1, o.beta2 = beta2, o.eps = eps;
  return o;
}

py::tuple coord_tuple(Coord c) { return py::make_tuple(c.z, c.y, c.x, c.l); }

py::dict layer_dict(const Network& net, const Layer& l) {
  py::dict d;
  d["type"] = layer_type_name(l.type), d["dtype"] = dtype_name(l.dtype), d["activation"] = activation_name(l.act);
  d["input_size"] = layer_input_size(l), d["output_size"] = layer_output_size(l);
  d["in"] = l.in, d["out"] = l.out, d["seq"] = l.seq, d["channels"] = l.channels, d["filters"] = l.filters;
  d["kernel"] = l.kernel, d["height"] = l.height, d["width"] = l.width, d["depth"] = l.depth, d["heads"] = l.heads;
  d["vocab"] = l.vocab, d["eps"] = l.eps, d["combine"] = l.combine == Combine::Add ? "add" : "concat";
  d["remote"] = l.remote ? py::object(coord_tuple(net.coord(*l.remote))) : py::none();
  py::list children;
  for (const Layer& c : l.children) children.append(layer_dict(net, c));
  d["children"] = children;
  return d;
}

struct PyModel {
  std::shared_ptr<Network> net;

  explicit PyModel(Network n) : net(std::make_shared<Network>(std::move(n))) {}

  std::vector<float> input(py::handle x, const std::string& what) const { return floats(x, {py::ssize_t(net->input_size())}, what); }

  py::list layers() const {
    py::list out;
    for (uint32_t i = 0; i < net->size(); ++i) {
      py::dict d = layer_dict(*net, net->at(i));
      d["at"] = coord_tuple(net->coord(i));
      out.append(d);
    }
    return out;
  }

  // What a fresh Mesh(schedule, steps) holds after one run(): `steps` passes or ticks from the
  // zero state, every cell's output.
  MeshState reference(py::handle x, uint32_t steps, const std::string& schedule, const std::string& caller) {
    return run_reference(*net, input(x, caller + ": x"), MeshOptions{parse_schedule(schedule), steps});
  }
  Floats forward(py::handle x, uint32_t steps, const std::string& schedule) {
    return to_numpy(reference(x, steps, schedule, "forward").out.back());
  }
  py::list cell_outputs(py::handle x, uint32_t steps, const std::string& schedule) {
    py::list out;
    for (const std::vector<float>& y : reference(x, steps, schedule, "cell_outputs").out) out.append(to_numpy(y));
    return out;
  }
};

struct PyMesh {
  std::shared_ptr<Device> device;  // outlives mesh
  std::shared_ptr<Network> net;
  std::unique_ptr<DeviceMesh> mesh;

  PyMesh(const PyDevice& d, const PyModel& m, const std::string& schedule, uint32_t steps) : device(d.ptr()), net(m.net) {
    mesh = std::make_unique<DeviceMesh>(*device, *net, MeshOptions{parse_schedule(schedule), steps});
  }
  void set_input(py::handle x) { mesh->set_input(floats(x, {py::ssize_t(net->input_size())}, "set_input: x")); }
  Floats forward(py::handle x) {
    set_input(x);
    mesh->run();
    return to_numpy(mesh->output());
  }
  // Negative counts from the end, as Python indexes: -1 is the last cell.
  Floats output(int64_t cell) {
    const int64_t n = net->size();
    if (cell < -n || cell >= n) bad("output: cell " + std::to_string(cell) + " is not in [-" + std::to_string(n) + ", " + std::to_string(n) + ")");
    return to_numpy(mesh->output(uint32_t(cell < 0 ? cell + n : cell)));
  }
};

// Both trainers: one step per sample, an epoch over rows, losses before each step.
template <typename T>
py::array_t<float> epoch(T& trainer, const Network& net, py::handle xs, py::handle targets) {
  const py::ssize_t n = sample_count(xs, "epoch: xs");
  const auto x = rows(xs, n, net.input_size(), "epoch: xs");
  const auto y = rows(targets, n, net.output_size(), "epoch: targets");
  // Every sample checked before the first step: a bad one fails the epoch with nothing trained.
  for (py::ssize_t k = 0; k < n; ++k) check_training_sample(x[k], y[k], net.input_size(), net.output_size());
  std::vector<float> losses;
  for (py::ssize_t k = 0; k < n; ++k) losses.push_back(trainer.step(x[k], y[k]));
  return to_numpy(losses);
}

// Class labels: a 1-D int32 or int64 array of n values; BadInput naming `what` otherwise.
std::vector<int64_t> labels_of(py::handle given, py::ssize_t n, const std::string& what) {
  if (py::isinstance<py::array>(given)) {
    const auto a = py::reinterpret_borrow<py::array>(given);
    const bool c = (a.flags() & py::array::c_style) && a.ndim() == 1 && a.shape(0) == n;
    if (c && a.dtype().equal(py::dtype::of<int64_t>())) return {a.unchecked<int64_t, 1>().data(0), a.unchecked<int64_t, 1>().data(0) + n};
    if (c && a.dtype().equal(py::dtype::of<int32_t>())) return {a.unchecked<int32_t, 1>().data(0), a.unchecked<int32_t, 1>().data(0) + n};
  }
  bad(what + ": expected a C-contiguous int32 or int64 array of shape (" + std::to_string(n) + ",), got " + describe_array(given));
}

// xs (samples, input_size) float32 and labels (samples,) as a data set for `net`.
Dataset dataset_of(const Network& net, py::handle xs, py::handle labels, const std::string& caller) {
  const py::ssize_t n = sample_count(xs, caller + ": xs");
  Dataset d = make_dataset(floats(xs, {n, py::ssize_t(net.input_size())}, caller + ": xs"), labels_of(labels, n, caller + ": labels"),
                           net.input_size(), caller);
  check_dataset(d, net);
  return d;
}

// Both trainers: an epoch of mini-batches over a labelled data set (one-hot targets, the samples
// in a seeded order); the mean loss over the samples.
template <typename T>
double fit_epoch(T& trainer, const Network& net, py::handle xs, py::handle labels, uint32_t batch_size, uint64_t seed) {
  const Dataset d = dataset_of(net, xs, labels, "fit_epoch");
  if (batch_size == 0) bad("fit_epoch: batch_size must be at least 1");
  return run_epoch(d, net.output_size(), batch_size, seed, [&](const auto& bx, const auto& bt) { return trainer.step_batch(bx, bt); });
}

struct PyTrainer {
  std::shared_ptr<Network> net;
  Trainer trainer;

  PyTrainer(const PyModel& m, const std::string& optimizer, float lr, float beta1, float beta2, float eps, const std::string& loss)
      : net(m.net), trainer(*net, train_options(optimizer, lr, beta1, beta2, eps, loss)) {}
  float step(py::handle x, py::handle target) {
    return trainer.step(floats(x, {py::ssize_t(net->input_size())}, "step: x"), floats(target, {py::ssize_t(net->output_size())}, "step: target"));
  }
};

struct PyDeviceTrainer {
  std::shared_ptr<Device> device;  // outlives trainer
  std::shared_ptr<Network> net;
  std::unique_ptr<DeviceTrainer> trainer;

  PyDeviceTrainer(const PyDevice& d, const PyModel& m, const std::string& optimizer, float lr, float beta1, float beta2, float eps,
                  const std::string& loss)
      : device(d.ptr()), net(m.net) {
    trainer = std::make_unique<DeviceTrainer>(*device, *net, train_options(optimizer, lr, beta1, beta2, eps, loss));
  }
  float step(py::handle x, py::handle target) {
    return trainer->step(floats(x, {py::ssize_t(net->input_size())}, "step: x"), floats(target, {py::ssize_t(net->output_size())}, "step: target"));
  }
};

py::dict dna_compare(const PyModel& a, const PyModel& b) {
  const DnaComparison c = compare_dna(extract_dna(*a.net), extract_dna(*b.net));
  py::array_t<double> overlap(py::ssize_t(c.overlap.size()));
  std::copy(c.overlap.begin(), c.overlap.end(), overlap.mutable_data());
  py::list shifts;
  for (const LogicShift& s : c.shifts) shifts.append(py::make_tuple(s.from, s.to, s.similarity));
  py::dict d;
  d["overlap"] = overlap, d["overall"] = c.overall, d["shifts"] = shifts;
  return d;
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (volumetric::DType t : all_dtypes()) out.push_back(dtype_name(t));
  return out;
}

void bind_model(py::module_& m) {
  py::class_<PyModel>(m, "VolumetricModel", "A volumetric network: a 4-D grid of layers in 21 numeric types (docs/volumetric.md).")
      .def_static("load", [](const std::string& path) { return PyModel(load_model(path)); }, py::arg("path"),
                  "Reads a model file (JSON); malformed files are weft.BadInput naming the JSON path.")
      .def_static("from_json", [](const std::string& text, const std::string& name) { return PyModel(parse_model(text, name)); },
                  py::arg("text"), py::arg("name") = "<json>", "A model file's text; name starts every error message.")
      .def_static("load_checkpoint", [](const std::string& path) { return PyModel(load_checkpoint(path)); }, py::arg("path"),
                  "A checkpoint: the model with its packed weights exactly as saved.")
      .def("save_checkpoint", [](PyModel& m, const std::string& path) { save_checkpoint(*m.net, path); }, py::arg("path"),
           "Writes the model and its weights packed in each layer's type; load_checkpoint gives them back bit for bit.")
      .def("to_json", [](const PyModel& m) { return model_to_json(*m.net); }, "The model file text (grid and layers, no weights).")
      .def("copy", [](const PyModel& m) { return PyModel(*m.net); }, "An independent copy, weights included.")
      .def("set_dtype", [](PyModel& m, const std::string& dtype) { m.net->set_dtype(parse_dtype(dtype)); }, py::arg("dtype"),
           "Every layer (children included) computes in this numeric type from now on (see dtypes()).")
      .def_property_readonly("grid", [](const PyModel& m) { return py::make_tuple(m.net->depth(), m.net->rows(), m.net->cols(), m.net->layers_per_cell()); },
                             "(depth, rows, cols, layers_per_cell)")
      .def_property_readonly("cell_count", [](const PyModel& m) { return m.net->size(); })
      .def_property_readonly("input_size", [](const PyModel& m) { return m.net->input_size(); })
      .def_property_readonly("output_size", [](const PyModel& m) { return m.net->output_size(); })
      .def("layers", &PyModel::layers, "One dict per cell in traversal order: at, type, dtype, activation, sizes, shape fields, remote, children.")
      .def("forward", &PyModel::forward, py::arg("x"), py::arg("steps") = 1, py::arg("schedule") = "pass",
           "The CPU reference: steps passes (or ticks) from the zero state; the last cell's output, float32[output_size].")
      .def("cell_outputs", &PyModel::cell_outputs, py::arg("x"), py::arg("steps") = 1, py::arg("schedule") = "pass",
           "As forward, every cell's output in traversal order (Mesh.output(cell) on the device).");
}

void bind_device(py::module_& m) {
  py::class_<PyMesh>(m, "VolumetricMesh", "The grid on a device as one recorded program, its weights packed as they were when made.")
      .def(py::init<const PyDevice&, const PyModel&, const std::string&, uint32_t>(), py::arg("device"), py::arg("model"),
           py::arg("schedule") = "pass", py::arg("steps") = 1, "schedule 'pass' or 'tick'; steps per run(), 1 to 1024.")
      .def("set_input", &PyMesh::set_input, py::arg("x"))
      .def("run", [](PyMesh& p) { p.mesh->run(); }, "One submission: steps passes or ticks from the current state.")
      .def("forward", &PyMesh::forward, py::arg("x"), "set_input, run, and the last cell's output.")
      .def("output", &PyMesh::output, py::arg("cell") = -1, "A cell's output after the last run (flat index; -1: the last).")
      .def("reset", [](PyMesh& p) { p.mesh->set_state(initial_state(*p.net)); }, "Every cell's output back to zeros.")
      .def("gpu_ms", [](PyMesh& p) { return p.mesh->gpu_ns() * 1e-6; }, "GPU time of the last run.")
      .def_property_readonly("weight_bytes", [](const PyMesh& p) { return p.mesh->weight_bytes(); }, "Packed weights and scales in Heap.");
}

void bind_training(py::module_& m) {
  const char* fit_doc = "One epoch of mini-batches over xs (samples, input_size) float32 and labels (samples,) int32/int64 "
                        "(one-hot targets, a seeded order, one step per batch); the mean loss over the samples.";
  py::class_<PyTrainer>(m, "VolumetricTrainer", "CPU training (MSE or cross-entropy on the last cell), straight-through in each layer's type; steps the model in place.")
      .def(py::init<const PyModel&, const std::string&, float, float, float, float, const std::string&>(), py::arg("model"), py::arg("optimizer") = "adam",
           py::arg("lr") = 1e-2f, py::arg("beta1") = 0.9f, py::arg("beta2") = 0.999f, py::arg("eps") = 1e-8f, py::arg("loss") = "mse")
      .def("fit_epoch", [](PyTrainer& t, py::handle xs, py::handle labels, uint32_t batch_size, uint64_t seed) {
             return fit_epoch(t.trainer, *t.net, xs, labels, batch_size, seed); }, py::arg("xs"), py::arg("labels"), py::arg("batch_size") = 32,
           py::arg("seed") = 0, fit_doc)
      .def("step", &PyTrainer::step, py::arg("x"), py::arg("target"), "One sample; returns the loss before the step.")
      .def("epoch", [](PyTrainer& t, py::handle xs, py::handle ys) { return epoch(t.trainer, *t.net, xs, ys); }, py::arg("xs"), py::arg("targets"),
           "One step per row of xs (samples, input_size) and targets (samples, output_size); float32[samples] losses.")
      .def_property_readonly("steps", [](const PyTrainer& t) { return t.trainer.steps(); });
  py::class_<PyDeviceTrainer>(m, "VolumetricDeviceTrainer", "Device training of the f32 masters (MSE or cross-entropy on the last cell); download() puts them in the model.")
      .def(py::init<const PyDevice&, const PyModel&, const std::string&, float, float, float, float, const std::string&>(), py::arg("device"), py::arg("model"),
           py::arg("optimizer") = "adam", py::arg("lr") = 1e-2f, py::arg("beta1") = 0.9f, py::arg("beta2") = 0.999f, py::arg("eps") = 1e-8f,
           py::arg("loss") = "mse")
      .def("fit_epoch", [](PyDeviceTrainer& t, py::handle xs, py::handle labels, uint32_t batch_size, uint64_t seed) {
             return fit_epoch(*t.trainer, *t.net, xs, labels, batch_size, seed); }, py::arg("xs"), py::arg("labels"), py::arg("batch_size") = 32,
           py::arg("seed") = 0, fit_doc)
      .def("step", &PyDeviceTrainer::step, py::arg("x"), py::arg("target"), "One sample; returns the loss before the step.")
      .def("epoch", [](PyDeviceTrainer& t, py::handle xs, py::handle ys) { return epoch(*t.trainer, *t.net, xs, ys); }, py::arg("xs"),
           py::arg("targets"), "One step per row; float32[samples] losses.")
      .def("download", [](PyDeviceTrainer& t) { t.trainer->download(*t.net); }, "Copies the trained parameters into the model.")
      .def("gpu_ms", [](PyDeviceTrainer& t) { return t.trainer->gpu_ns() * 1e-6; }, "GPU time of the last step.");
}

}  // namespace

void bind_volumetric(py::module_& m) {
  m.doc() = "The volumetric workload's native half; import weft.volumetric instead.";
  bind_model(m);
  bind_device(m);
  bind_training(m);
  m.def("dna_compare", &dna_compare, py::arg("a"), py::arg("b"),
        "Per-cell overlap of two models' weight signatures (same grid size): overlap float64[cells], overall, shifts [(from, to, similarity)].");
  m.def("accuracy", [](const PyModel& model, py::handle xs, py::handle labels) {
          Dataset d = dataset_of(*model.net, xs, labels, "accuracy");
          return accuracy(*model.net, d); }, py::arg("model"), py::arg("xs"), py::arg("labels"),
        "The fraction of samples whose label is the argmax of the model's output (CPU reference, the layers' own types).");
  m.def("load_dataset", [](const std::string& path, const std::string& labels) {
          const Dataset d = load_dataset(path, labels);
          py::array_t<float> x({py::ssize_t(d.size()), py::ssize_t(d.features)});
          std::copy(d.x.begin(), d.x.end(), x.mutable_data());
          py::array_t<int64_t> y(py::ssize_t(d.size()));
          std::copy(d.labels.begin(), d.labels.end(), y.mutable_data());
          return py::make_tuple(x, y); }, py::arg("path"), py::arg("labels") = "",
        "A CSV file (features then the label per line) or .npy features with a .npy labels file: (xs float32 (samples, features), labels int64).");
  m.def("dtypes", &dtype_names, "The 21 numeric type names, as model files and set_dtype take them.");
}

}  // namespace weft::python
