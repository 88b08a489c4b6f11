// The token VM (workloads/token_vm) for Python, as the submodule weft._weft.token_vm: compile UDPL prompts (or load a saved workflow),
// step a batch of streams with numpy token arrays on the device or the CPU reference, tools as
// Python callables, and every read-out of the host API.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "model_tokenizer.h"
#include "byte_tokenizer.h"
#include "device_vm.h"
#include "flow.h"
#include "flow_file.h"
#include "machine.h"
#include "py_arrays.h"
#include "py_device.h"
#include "reference.h"
#include "serialize.h"
#include "udpl.h"

namespace py = pybind11;

namespace weft::python {
namespace {

using namespace weft::token_vm;
using Tokens = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>;

// Token ids as uint32: an integer array whose values fit. A float array (1.7 became 1) or a
// negative or too large id (-1 became 4294967295) is refused by name, not converted.
Tokens token_array(const py::array& a, const std::string& where) {
  require_integer_dtype(a, where + ": token ids must be an integer array");
  if (a.size() > 0) {
    const long long lo = py::int_(a.attr("min")()).cast<long long>();
    if (lo < 0) fail(ErrorCode::BadInput, where + ": token id " + std::to_string(lo) + " is negative");
    const unsigned long long hi = py::int_(a.attr("max")()).cast<unsigned long long>();
    if (hi > 0xFFFFFFFFull) fail(ErrorCode::BadInput, where + ": token id " + std::to_string(hi) + " does not fit 32 bits");
  }
  return Tokens::ensure(a);
}

py::array_t<uint32_t> to_numpy(const std::vector<uint32_t>& v) {
  py::array_t<uint32_t> out(py::ssize_t(v.size()));
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

std::shared_ptr<const Tokenizer> tokenizer_from(const std::optional<std::string>& path) {
  if (!path || path->empty()) return std::make_shared<ByteTokenizer>();
  return std::make_shared<ModelTokenizer>(ModelTokenizer::load(*path));
}

struct PyWorkflow {
  Workflow workflow;
  std::shared_ptr<const Tokenizer> tokenizer;
};

std::shared_ptr<PyWorkflow> compile(const std::string& prompts, const std::optional<std::string>& flow,
                                    const std::optional<std::string>& tokenizer, const std::map<std::string, std::string>& resources,
                                    const std::string& match) {
  if (match != "token" && match != "byte") fail(ErrorCode::BadInput, "match must be 'token' or 'byte', got '" + match + "'");
  auto out = std::make_shared<PyWorkflow>();
  out->tokenizer = tokenizer_from(tokenizer);
  auto parsed = std::make_shared<const Prompts>(load_udpl(prompts));
  const token_vm::Program program = flow && !flow->empty() ? load_flow(*flow, parsed) : default_program(parsed);
  Resources r;
  for (const auto& [name, value] : resources) r.standard[name] = r.arguments[name] = value;
  token_vm::CompileOptions o;
  o.match_mode = match == "byte" ? MatchMode::Byte : MatchMode::Token;
  out->workflow = program.compile(*out->tokenizer, r, o);
  return out;
}

std::shared_ptr<PyWorkflow> load(const std::string& path, const std::optional<std::string>& tokenizer) {
  auto out = std::make_shared<PyWorkflow>();
  out->tokenizer = tokenizer_from(tokenizer);
  out->workflow = load_workflow(path);
  check_runs_with(out->workflow, *out->tokenizer, path);
  return out;
}

class PyMachine {
 public:
  PyMachine(std::shared_ptr<PyWorkflow> workflow, uint32_t batch, const PyDevice* device, uint32_t steps_per_submit)
      : workflow_(std::move(workflow)) {
    if (!workflow_) fail(ErrorCode::BadInput, "Machine: workflow is None (give one from compile() or load())");
    if (batch == 0) fail(ErrorCode::BadInput, "batch must be at least 1");
    VmConfig c;
    c.batch = batch;
    if (workflow_->workflow.match_mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(*workflow_->tokenizer);
    std::unique_ptr<Backend> backend;
    if (device) {
      device_ = device->ptr();
      backend = std::make_unique<DeviceVm>(*device_, workflow_->workflow, c, DeviceVmOptions{std::max(1u, steps_per_submit), 0});
    } else {
      backend = std::make_unique<Reference>(workflow_->workflow, c);
    }
    machine_ = std::make_unique<Machine>(workflow_->workflow, *workflow_->tokenizer, std::move(backend));
  }

  uint32_t batch() const { return machine_->batch(); }

  py::object step(const py::array& sampled_ids, bool with_tags) {
    const Tokens sampled = token_array(sampled_ids, "step");
    if (sampled.ndim() != 1 || uint32_t(sampled.shape(0)) != batch())
      fail(ErrorCode::BadInput, "step: sampled must be a 1-D array of " + std::to_string(batch()) + " tokens, got shape " +
                                    shape_of(sampled));
    std::vector<uint32_t> tags;
    std::vector<Token> out;
    {
      std::span<const Token> in(sampled.data(), size_t(batch()));
      py::gil_scoped_release unlocked;  // the device step waits on the GPU; tools run only in resolve
      out = machine_->step(in, with_tags ? &tags : nullptr);
    }
    if (with_tags) return py::make_tuple(to_numpy(out), to_numpy(tags));
    return to_numpy(out);
  }

  void run(const py::array& sampled_ids) {
    const Tokens sampled = token_array(sampled_ids, "run");
    if (sampled.ndim() != 2 || uint32_t(sampled.shape(1)) != batch())
      fail(ErrorCode::BadInput, "run: sampled must be a [steps, " + std::to_string(batch()) + "] array, got shape " + shape_of(sampled));
    const uint32_t steps = uint32_t(sampled.shape(0));
    std::span<const Token> in(sampled.data(), size_t(steps) * batch());
    py::gil_scoped_release unlocked;
    machine_->run(in, steps);
  }

  void set_tool(const std::string& name, py::function fn) {
    // Called from resolve_callbacks with the GIL held (that method keeps it).
    machine_->set_tool(name, [fn](const std::string& text) { return fn(model_text(text)).cast<std::string>(); });
  }

  py::list pending_calls() const {
    py::list out;
    for (const ToolCall& c : machine_->pending_calls()) {
      py::dict d;
      d["stream"] = c.stream;
      d["tool"] = c.tool_name;
      d["text"] = model_text(c.text);
      out.append(d);
    }
    return out;
  }

  void check_stream(uint32_t stream, const char* what) const {
    if (stream >= batch())
      fail(ErrorCode::BadInput, std::string(what) + ": stream " + std::to_string(stream) + " is out of range (batch " +
                                    std::to_string(batch()) + ")");
  }

  py::array_t<uint32_t> records(uint32_t stream) const {
    check_stream(stream, "records");
    const std::vector<TraceRecord>& all = machine_->status()[stream];
    py::array_t<uint32_t> out({py::ssize_t(all.size()), py::ssize_t(5)});
    auto w = out.mutable_unchecked<2>();
    for (size_t i = 0; i < all.size(); ++i) {
      w(i, 0) = all[i].token;
      w(i, 1) = all[i].tags;
      w(i, 2) = all[i].pc;
      w(i, 3) = all[i].token_num;
      w(i, 4) = all[i].source();
    }
    return out;
  }

  Machine& m() { return *machine_; }
  const Machine& m() const { return *machine_; }

 private:
  static std::string shape_of(const py::array& a) {
    std::string s = "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
    return s + ")";
  }

  std::shared_ptr<PyWorkflow> workflow_;  // the machine reads its tokenizer and workflow
  std::shared_ptr<Device> device_;
  std::unique_ptr<Machine> machine_;
};

}  // namespace

// The submodule weft._weft.token_vm; weft/token_vm.py is the part users import.
void bind_token_vm(py::module_& m) {
  m.doc() = "The token VM's native half; import weft.token_vm instead.";
  py::class_<PyWorkflow, std::shared_ptr<PyWorkflow>>(m, "TokenVmWorkflow", "A compiled token VM workflow and its tokenizer.")
      .def_static("compile", &compile, py::arg("prompts"), py::arg("flow") = py::none(), py::arg("tokenizer") = py::none(),
                  py::arg("resources") = std::map<std::string, std::string>{}, py::arg("match") = "token",
                  "Compiles UDPL prompts (a .toml file or a folder) with an optional flow file; tokenizer: a "
                  "tokenizer.json (byte-level BPE), else bytes. Lint failures raise weft.BadInput naming the place.")
      .def_static("load", &load, py::arg("path"), py::arg("tokenizer") = py::none(), "A workflow saved by save().")
      .def("save", [](const PyWorkflow& w, const std::string& path) { save_workflow(w.workflow, path); }, py::arg("path"))
      .def_property_readonly("vocab_size", [](const PyWorkflow& w) { return w.tokenizer->vocab_size(); })
      .def_property_readonly("tools", [](const PyWorkflow& w) { return w.workflow.tools; })
      .def_property_readonly("extractions", [](const PyWorkflow& w) {
        std::vector<std::string> names;
        for (const Extraction& e : w.workflow.extractions) names.push_back(e.name);
        return names;
      })
      .def_property_readonly("zone_count", [](const PyWorkflow& w) { return w.workflow.zones.size(); })
      .def("encode", [](const PyWorkflow& w, const std::string& text) { return to_numpy(w.tokenizer->encode(text)); },
           py::arg("text"), "The text's token ids with the workflow's tokenizer: uint32[n].")
      .def("decode",
           [](const PyWorkflow& w, const py::array& token_ids) {
             const Tokens tokens = token_array(token_ids, "decode");
             const std::span<const Token> ids(tokens.data(), size_t(tokens.size()));
             check_token_ids(*w.tokenizer, ids, "decode");
             return py::bytes(w.tokenizer->decode(ids));
           },
           py::arg("tokens"), "The bytes the tokens stand for (bytes: a token may end mid UTF-8 character).");

  py::class_<PyMachine>(m, "TokenVmMachine", "B streams running one workflow, on a device or the CPU reference.")
      .def(py::init<std::shared_ptr<PyWorkflow>, uint32_t, const PyDevice*, uint32_t>(), py::arg("workflow"), py::arg("batch"),
           py::arg("device") = nullptr, py::arg("steps_per_submit") = 1,
           "device None: the CPU reference (bit-identical to the device).")
      .def_property_readonly("batch", &PyMachine::batch)
      .def("step", &PyMachine::step, py::arg("sampled"), py::arg("tags") = false,
           "sampled: uint32[batch], the model's tokens. Returns the tokens the model must consume (and their tags).")
      .def("run", &PyMachine::run, py::arg("sampled"), "Scripted tokens, uint32[steps, batch], steps_per_submit steps per submission.")
      .def_property_readonly("done", [](const PyMachine& p) { return p.m().done(); })
      .def_property_readonly("callbacks_ready", [](const PyMachine& p) { return p.m().callbacks_ready(); })
      .def("pending_calls", &PyMachine::pending_calls)
      .def("set_tool", &PyMachine::set_tool, py::arg("name"), py::arg("fn"), "fn(captured_text) -> answer text.")
      .def("resolve_callbacks", [](PyMachine& p) { return p.m().resolve_callbacks(); })
      .def("resolve",
           [](PyMachine& p, uint32_t stream, const std::string& answer) {
             p.check_stream(stream, "resolve");
             p.m().resolve(stream, answer);
           },
           py::arg("stream"), py::arg("answer"))
      .def("feed",
           [](PyMachine& p, uint32_t stream, const std::string& text) {
             p.check_stream(stream, "feed");
             p.m().feed(stream, text);
           },
           py::arg("stream"), py::arg("text"))
      .def("extract", [](const PyMachine& p) {
        py::list out;
        for (const auto& named : p.m().extract()) out.append(model_texts(named));
        return out;
      }, "Per stream, {name: text} (bytes that are not UTF-8 as U+FFFD).")
      .def("generative_sequence", [](const PyMachine& p) {
        py::list out;
        for (const std::string& s : p.m().generative_sequence()) out.append(py::bytes(s));
        return out;
      }, "Per stream, the bytes of every token the model consumed (pad tokens left out).")
      .def("decisions", [](const PyMachine& p) { return p.m().decisions(); }, "Per stream, the zones visited, in order.")
      .def("raw_stream", [](const PyMachine& p) {
        py::list out;
        for (const std::vector<Token>& s : p.m().raw_stream()) out.append(to_numpy(s));
        return out;
      }, "Per stream, uint32[steps]: every token the stream emitted, pad tokens included.")
      .def("records", &PyMachine::records, py::arg("stream"),
           "uint32[steps, 5]: per step of the stream, token, tags, zone, token in zone, source (0 forced, 1 feed, 2 sampled, 3 timeout, 4 wait, 5 done).")
      .def("allowed",
           [](const PyMachine& p, uint32_t stream) -> py::object {
             p.check_stream(stream, "allowed");
             const std::vector<Token>* set = p.m().allowed(stream);
             return set ? py::object(to_numpy(*set)) : py::object(py::none());
           },
           py::arg("stream"),
           "uint32[n]: the tokens a sampler may draw for the stream's next step (its zone's `allow` mask), or None: any token.")
      .def("stream_status", [](const PyMachine& p) { return to_numpy(p.m().stream_status()); },
           "uint32[batch]: per stream, 0 running, 1 waiting for a tool, 2 done.")
      .def_property_readonly("steps_taken", [](const PyMachine& p) { return p.m().steps_taken(); });
}

}  // namespace weft::python
