// The core native module of the Python package `weft` (weft._weft): devices, manifest programs
// with numpy arrays in and out, errors, and the conformance runner over every registered case.
// Workloads add their own modules (weft._token_vm, ...) beside it; weft/__init__.py re-exports it.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <memory>

#include <weft/manifest.h>
#include <weft/weft.h>

#include "errors.h"
#include "py_arrays.h"
#include "py_device.h"
#include "registry.h"
#include "tokenizer.h"

namespace py = pybind11;
using namespace weft;

namespace weft::python {

void bind_workloads(py::module_& m);

py::dict info_dict(const DeviceInfo& d) {
  py::dict out;
  out["index"] = d.index;
  out["name"] = d.name;
  out["type"] = d.type;
  out["driver"] = d.driver;
  out["driver_info"] = d.driver_info;
  out["api_version"] = d.api_string();
  out["vendor_id"] = d.vendor_id;
  out["device_id"] = d.device_id;
  out["subgroup_size"] = d.subgroup_size;
  out["max_storage_buffer_range"] = d.max_storage_buffer_range;
  out["device_local_bytes"] = d.device_local_bytes;
  out["timestamp_period_ns"] = d.timestamp_period_ns;
  out["shader_int64"] = d.shader_int64;
  out["shader_float16"] = d.shader_float16;
  out["usable"] = d.usable;
  out["unusable_reason"] = d.unusable_reason;
  return out;
}

}  // namespace weft::python

using namespace weft::python;

namespace {

Binding binding_of(const std::string& name) {
  if (name == "heap") return Binding::Heap;
  if (name == "globals") return Binding::Globals;
  fail(ErrorCode::BadInput, "binding must be 'heap' or 'globals', got '" + name + "'");
}

// Segments hold numbers: bool, integer, float or complex arrays. An object array's bytes are
// pointers, a string or void dtype's are not what a kernel reads; each is refused by name.
void require_numeric(const py::dtype& dtype, const std::string& where) {
  const char kind = dtype.kind();
  if (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f' && kind != 'c')
    fail(ErrorCode::BadInput, where + ": dtype " + std::string(py::str(py::handle(dtype))) + " is not a number type (bool, int, uint, float or complex)");
}

// A dtype argument as numpy understands it (None: float32), refused unless numeric.
py::dtype numeric_dtype(const py::object& like, const std::string& where) {
  if (like.is_none()) return py::dtype::of<float>();
  py::dtype dtype;
  try {
    dtype = py::dtype::from_args(like);
  } catch (const py::error_already_set& e) {
    fail(ErrorCode::BadInput, where + ": " + py::str(like).cast<std::string>().substr(0, 80) + " is not a dtype (" + e.what() + ")");
  }
  require_numeric(dtype, where);
  return dtype;
}

class PyProgram {
 public:
  PyProgram(const PyDevice& device, const Manifest& manifest)
      : device_(device.ptr()), runner_(std::make_unique<ManifestRunner>(*device_, manifest)) {}

  void run() {
    py::gil_scoped_release unlocked;
    runner_->run();
  }
  uint64_t submit() { return runner_->executable().submit().value; }
  void cancel() { runner_->executable().cancel(); }
  void wait(uint64_t ticket, double timeout_s) {
    if (std::isnan(timeout_s)) fail(ErrorCode::BadInput, "wait: timeout is NaN (seconds; negative waits forever)");
    const double ns_wanted = timeout_s * 1e9;  // beyond uint64_t (inf, 1e308) is forever too
    const uint64_t ns = timeout_s < 0 || ns_wanted >= 18e18 ? UINT64_MAX : uint64_t(ns_wanted);
    Status s;
    {
      py::gil_scoped_release unlocked;
      s = runner_->executable().wait(Ticket{ticket}, ns);
    }
    s.throw_if_failed();
  }

  uint64_t segment_bytes(const std::string& segment, const std::string& binding) const {
    return runner_->executable().program().segment(binding_of(binding), segment).size;
  }

  // Reads straight into a fresh numpy array (one copy: device -> the array's memory).
  py::array read(const std::string& segment, const std::string& binding, const py::object& dtype_like) {
    const py::dtype dtype = numeric_dtype(dtype_like, "read('" + segment + "')");
    const uint64_t bytes = segment_bytes(segment, binding);
    const auto item = uint64_t(dtype.itemsize());
    if (bytes % item)
      fail(ErrorCode::BadInput, "read('" + segment + "'): its " + std::to_string(bytes) + " bytes are not a whole number of " +
                                    std::string(py::str(py::handle(dtype))) + " (" + std::to_string(item) + " bytes each)");
    py::array out(dtype, std::vector<py::ssize_t>{py::ssize_t(bytes / item)});
    runner_->executable().read_segment(binding_of(binding), segment, out.mutable_data(), bytes);
    return out;
  }

  // Writes a contiguous numeric array's bytes as they are (no conversion); offset in bytes.
  void write(const std::string& segment, py::buffer data, const std::string& binding, uint64_t offset) {
    const py::buffer_info b = data.request();
    if (!py::array::ensure(data) || !(py::array(data).flags() & py::array::c_style))
      fail(ErrorCode::BadInput, "write('" + segment + "'): the array must be C-contiguous");
    require_numeric(py::array(data).dtype(), "write('" + segment + "')");
    runner_->executable().write_segment(binding_of(binding), segment, b.ptr, uint64_t(b.size * b.itemsize), offset);
  }

  py::dict metrics(const std::string& instance) {
    const weft::abi::WeftMetrics m = runner_->executable().metrics(runner_->instance(instance));
    py::dict out;
    out["norm"] = m.norm;
    out["max_abs"] = m.max_abs;
    out["ticks"] = (uint64_t(m.ticks_hi) << 32) | m.ticks_lo;
    out["status"] = m.status;
    out["sequence"] = m.sequence;
    out["counters"] = std::vector<uint32_t>(m.counters, m.counters + WEFT_METRICS_COUNTERS);
    return out;
  }

  uint32_t control(const std::string& name, uint32_t element) {
    return runner_->executable().control_word(runner_->control_word(name, element));
  }
  void set_control(const std::string& name, uint32_t value, uint32_t element) {
    runner_->executable().set_control_word(runner_->control_word(name, element), value);
  }
  float control_f32(const std::string& name, uint32_t element) {
    return bits_f32(control(name, element));
  }
  void set_control_f32(const std::string& name, float value, uint32_t element) {
    set_control(name, f32_bits(value), element);
  }

  std::vector<std::string> instances() const {
    std::vector<std::string> out;
    for (const Instance& in : runner_->executable().program().instances()) out.push_back(in.name);
    return out;
  }
  py::dict timings() {
    const Timings t = runner_->executable().timings();
    py::dict out;
    out["valid"] = t.valid;
    out["total_ns"] = t.total_ns;
    py::dict stages;
    const auto& program = runner_->executable().program();
    for (size_t i = 0; i < t.stage_ns.size() && i < program.stages().size(); ++i)
      stages[py::str(program.stages()[i].name)] = t.stage_ns[i];
    out["stages"] = stages;
    return out;
  }
  std::vector<std::pair<std::string, uint32_t>> rules_fired() { return runner_->rules_fired(); }
  // The paths as os.fsdecode gives them: a folder's name need not be UTF-8.
  py::list write_outputs(const std::string& dir) {
    py::list out;
    for (const std::string& path : runner_->write_outputs(dir))
      out.append(py::reinterpret_steal<py::object>(PyUnicode_DecodeFSDefaultAndSize(path.data(), py::ssize_t(path.size()))));
    return out;
  }

 private:
  std::shared_ptr<Device> device_;  // outlives runner_
  std::unique_ptr<ManifestRunner> runner_;
};

py::list run_conformance(const PyDevice& device, const std::string& filter) {
  weft::conformance::DeviceReport report;
  {
    py::gil_scoped_release unlocked;
    report = weft::conformance::run_cases(*device.ptr(), weft::registry::all_cases(), filter);
  }
  py::list out;
  for (const auto& c : report.cases) {
    py::dict d;
    d["name"] = c.name;
    d["outcome"] = weft::conformance::outcome_name(c.result.outcome);
    d["detail"] = c.result.detail;
    d["worst_error"] = c.result.worst_error;
    d["tolerance"] = c.tolerance;
    d["seconds"] = c.seconds;
    out.append(d);
  }
  return out;
}

}  // namespace

PYBIND11_MODULE(_weft, m) {
  m.doc() = "Weft's native module; import `weft` instead.";
  m.attr("__version__") = WEFT_VERSION;
  bind_errors(m);  // first: weft.Error and its subclasses, and the translator every binding relies on

  m.def("devices", [] {
    py::list out;
    for (const DeviceInfo& d : Device::list()) out.append(info_dict(d));
    return out;
  }, "Every Vulkan device on this machine, usable or not, as dicts.");

  py::class_<PyDevice>(m, "Device")
      .def(py::init<const std::string&, bool>(), py::arg("select") = "", py::arg("validation") = false,
           "Opens a device: select is an index or a name part ('' = WEFT_DEVICE or the best).")
      .def_property_readonly("info", &PyDevice::info)
      .def("validation_messages", &PyDevice::validation_messages);

  py::class_<PyProgram>(m, "Program")
      .def(py::init([](const PyDevice& d, const std::string& path) { return new PyProgram(d, load_manifest(path)); }),
           py::arg("device"), py::arg("manifest"), "Loads a manifest (docs/manifest.md), compiles and records it.")
      .def_static("from_text",
                  [](const PyDevice& d, const std::string& text, const std::string& base_dir) {
                    return new PyProgram(d, parse_manifest(text, base_dir + "/<text>"));
                  },
                  py::arg("device"), py::arg("text"), py::arg("base_dir") = ".")
      .def("run", &PyProgram::run, "Submits and waits (releases the GIL).")
      .def("submit", &PyProgram::submit, "Non-blocking; returns a ticket for wait().")
      .def("cancel", &PyProgram::cancel,
           "Cancels the runs in flight: waiting on them raises weft.Cancelled; the next run is normal. Any thread.")
      .def("wait", &PyProgram::wait, py::arg("ticket"), py::arg("timeout") = -1.0,
           "Waits for a ticket (seconds; negative waits forever). Releases the GIL.")
      .def("read", &PyProgram::read, py::arg("segment"), py::arg("binding") = "globals",
           py::arg("dtype") = py::none(), "A named segment (dtype: any numpy dtype, float32 by default) as a new 1-D numpy array.")
      .def("write", &PyProgram::write, py::arg("segment"), py::arg("data"), py::arg("binding") = "globals",
           py::arg("offset") = 0, "Writes a C-contiguous array's bytes into a named segment.")
      .def("segment_bytes", &PyProgram::segment_bytes, py::arg("segment"), py::arg("binding") = "globals")
      .def("metrics", &PyProgram::metrics, py::arg("instance"))
      .def("control", &PyProgram::control, py::arg("name"), py::arg("element") = 0)
      .def("set_control", &PyProgram::set_control, py::arg("name"), py::arg("value"), py::arg("element") = 0)
      .def("control_f32", &PyProgram::control_f32, py::arg("name"), py::arg("element") = 0)
      .def("set_control_f32", &PyProgram::set_control_f32, py::arg("name"), py::arg("value"), py::arg("element") = 0)
      .def_property_readonly("instances", &PyProgram::instances)
      .def("timings", &PyProgram::timings, "GPU time of the last run: total_ns and per-stage ns.")
      .def("rules_fired", &PyProgram::rules_fired)
      .def("write_outputs", &PyProgram::write_outputs, py::arg("dir"));

  using tokenizer::Tokenizer;
  using tokenizer::TokenId;
  // Text arrives as Python str (UTF-8 here) or bytes (refused naming the byte unless UTF-8).
  py::class_<Tokenizer>(m, "Tokenizer", "A model's tokenizer.json, id for id as its own tokenizer (docs/tokenizer.md).")
      .def_static("load", &Tokenizer::load, py::arg("path"), "Reads a tokenizer.json; refuses what it cannot do, naming the JSON path.")
      .def_static("from_json", [](const std::string& json, const std::string& name) { return Tokenizer::from_json(json, name); },
                  py::arg("json"), py::arg("name") = "tokenizer.json")
      .def("encode", [](const Tokenizer& t, const std::string& text, bool special) { return t.encode(text, special); },
           py::arg("text"), py::arg("add_special_tokens") = false, "Token ids of the text (BOS/EOS and the like with add_special_tokens).")
      .def("encode_batch",
           [](const Tokenizer& t, const std::vector<std::string>& texts, bool special, unsigned threads) {
             py::gil_scoped_release unlocked;
             return t.encode_batch(texts, special, threads);
           },
           py::arg("texts"), py::arg("add_special_tokens") = false, py::arg("threads") = 0, "Each text on its own, over threads (0: all cores).")
      .def("decode",
           [](const Tokenizer& t, const py::object& ids, bool skip) {
             std::vector<TokenId> v;
             for (int64_t id : integer_values(ids, "decode")) {
               if (id < 0 || id >= int64_t(t.vocab_size()) || !t.id_to_token(TokenId(id)))
                 fail(ErrorCode::BadInput, "decode: " + std::to_string(id) + " is not a token id of this tokenizer (vocab_size " +
                                               std::to_string(t.vocab_size()) + ")");
               v.push_back(TokenId(id));
             }
             return py::bytes(t.decode(v, skip)).attr("decode")("utf-8", "replace");
           },
           py::arg("ids"), py::arg("skip_special_tokens") = false, "Hugging Face's decode; an id outside the vocabulary is BadInput.")
      .def("token_to_id", &Tokenizer::token_to_id, py::arg("token"))
      .def("id_to_token", &Tokenizer::id_to_token, py::arg("id").noconvert())
      .def("token_bytes",
           [](const Tokenizer& t, TokenId id) {
             if (!t.id_to_token(id))
               fail(ErrorCode::BadInput, "token_bytes: " + std::to_string(id) + " is not a token id of this tokenizer (vocab_size " +
                                             std::to_string(t.vocab_size()) + ")");
             return py::bytes(t.token_bytes(id));
           },
           py::arg("id").noconvert(), "The bytes one token stands for inside a text; an id outside the vocabulary is BadInput.")
      .def_property_readonly("vocab_size", &Tokenizer::vocab_size)
      .def_property_readonly("fingerprint", &Tokenizer::fingerprint);

  bind_workloads(m);  // each workload's submodule (generated from the registrations)

  m.def("conformance", &run_conformance, py::arg("device"), py::arg("filter") = "",
        "Runs the conformance cases whose name contains filter; one dict per case.");
}
