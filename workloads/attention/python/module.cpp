// The attention workload for Python, as the submodule weft._weft.attention: a GGUF model (its
// configuration and its own tokenizer), a decoder on a device (prefill, step, sampling on the
// device, generation), the CPU reference's logits to check it against, and the seeded test model.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "attention.h"
#include "compose.h"
#include "py_arrays.h"
#include "py_device.h"

namespace py = pybind11;

namespace weft::python {
namespace {

using namespace weft::attention;

std::vector<uint32_t> token_ids(const std::vector<int64_t>& ids, uint32_t vocab, const std::string& where) {
  std::vector<uint32_t> out;
  for (int64_t id : ids) {
    if (id < 0 || id >= int64_t(vocab))
      fail(ErrorCode::BadInput, where + ": " + std::to_string(id) + " is not a token id of this model (vocab " + std::to_string(vocab) + ")");
    out.push_back(uint32_t(id));
  }
  return out;
}

// Token ids as the caller gives them: a sequence of ints or an integer array.
std::vector<uint32_t> token_ids(py::handle given, uint32_t vocab, const std::string& where) {
  return token_ids(integer_values(given, where), vocab, where);
}

template <typename T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  py::array_t<T> out(py::ssize_t(v.size()));
  std::copy(v.begin(), v.end(), out.mutable_data());
  return out;
}

struct PyModel {
  std::shared_ptr<const Model> model;
  py::dict config() const {
    const Config& c = model->config;
    py::dict d;
    d["architecture"] = c.arch, d["dim"] = c.dim, d["layers"] = c.layers, d["heads"] = c.heads, d["kv_heads"] = c.kv_heads;
    d["head_dim"] = c.head_dim, d["ffn"] = c.ffn, d["vocab"] = c.vocab, d["context"] = c.context, d["rope_base"] = c.rope.base;
    d["rope_scale"] = c.rope.scale, d["rope_freq_factors"] = c.rope.factors;
    d["tied_output"] = model->tied, d["weight_bytes_per_token"] = model->weight_bytes();
    return d;
  }
};

struct PyDecoder {
  std::shared_ptr<Device> device;
  std::shared_ptr<const Model> model;
  std::unique_ptr<Decoder> decoder;

  PyDecoder(const PyDevice& dev, const PyModel& m, uint32_t context, uint32_t max_batch, const std::string& weights)
      : device(dev.ptr()), model(m.model) {
    DecoderOptions o;
    o.context = context;
    o.max_batch = max_batch;
    o.weights = parse_placement(weights);
    decoder = std::make_unique<Decoder>(*device, *model, o);
  }
  py::array_t<float> prefill(const py::object& tokens) { return run(token_ids(tokens, model->config.vocab, "prefill")); }
  py::array_t<float> step(int64_t token) { return run(token_ids(std::vector<int64_t>{token}, model->config.vocab, "step")); }
  py::array_t<float> run(const std::vector<uint32_t>& ids) {
    if (ids.empty()) fail(ErrorCode::BadInput, "prefill: no tokens");
    std::vector<float> logits;
    {
      py::gil_scoped_release unlocked;
      logits = decoder->prefill(ids);
    }
    return to_numpy(logits);
  }
  // Prefill, then n - 1 steps, each feeding back the token the device sampled; the n tokens.
  py::array_t<uint32_t> generate(const py::object& prompt, uint32_t n, bool stop_at_eos) {
    const auto ids = token_ids(prompt, model->config.vocab, "generate");
    if (ids.empty()) fail(ErrorCode::BadInput, "generate: the prompt is empty");
    if (uint64_t(decoder->position()) + ids.size() + n > uint64_t(decoder->context()) + 1)
      fail(ErrorCode::BadInput, "generate: " + std::to_string(ids.size()) + " prompt tokens and " + std::to_string(n) +
                                    " generated ones need more than the context's " + std::to_string(decoder->context()) + " positions");
    std::vector<uint32_t> out;
    py::gil_scoped_release unlocked;
    decoder->prefill(ids);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t t = decoder->sampled();
      out.push_back(t);
      if ((stop_at_eos && model->vocab.eos && t == *model->vocab.eos) || i + 1 == n) break;
      decoder->step(t);
    }
    py::gil_scoped_acquire locked;
    return to_numpy(out);
  }
};

// The model steered by a token VM workflow on the device (compose::SteeredModel), the workflow
// compiled with the model's own tokenizer. Tools: Python callables by name; a tool without one
// is the built-in (calculator/calc evaluate arithmetic, any other echoes).
class PySteered {
 public:
  PySteered(const PyDevice& dev, const PyModel& m, const std::string& prompts, const std::optional<std::string>& flow,
            const std::map<std::string, std::string>& resources, const std::string& match, uint32_t steps_per_submit,
            float temperature, uint32_t top_k, uint32_t seed, uint32_t context, const std::string& weights)
      : device_(dev.ptr()), model_(m.model), tokenizer_(compose::steered_tokenizer(*model_)) {
    if (match != "token" && match != "byte") fail(ErrorCode::BadInput, "match must be 'token' or 'byte', got '" + match + "'");
    auto parsed = std::make_shared<const token_vm::Prompts>(token_vm::load_udpl(prompts));
    const token_vm::Program program = flow && !flow->empty() ? token_vm::load_flow(*flow, parsed) : token_vm::default_program(parsed);
    token_vm::Resources r;
    for (const auto& [name, value] : resources) r.standard[name] = r.arguments[name] = value;
    token_vm::CompileOptions co;
    co.match_mode = match == "byte" ? token_vm::MatchMode::Byte : token_vm::MatchMode::Token;
    workflow_ = program.compile(tokenizer_, r, co);
    vm_ = compose::steered_vm_config(workflow_, tokenizer_);
    options_.steps_per_submit = steps_per_submit;
    options_.sampling = {temperature, top_k, seed};
    options_.context = context;
    options_.weights = parse_placement(weights);
    auto backend = std::make_unique<compose::SteeredModel>(*device_, *model_, workflow_, vm_, options_);
    steered_ = backend.get();
    machine_ = std::make_unique<token_vm::Machine>(workflow_, tokenizer_, std::move(backend));
    for (const std::string& t : workflow_.tools) set_tool_fn(t, token_vm::builtin_tool(t));
  }

  void set_tool(const std::string& name, py::function fn) {
    // Called from run() with the GIL held (run takes it back around resolve_callbacks).
    set_tool_fn(name, [fn](const std::string& text) { return fn(model_text(text)).cast<std::string>(); });
  }

  // Whole submits until every zone is done, `max_steps` more steps are taken or the next submit
  // would pass the context; tool calls answered between submits. The steps taken.
  uint64_t run(uint64_t max_steps) {
    const uint64_t start = machine_->steps_taken();
    while (!machine_->done() && machine_->steps_taken() - start < max_steps) {
      {
        py::gil_scoped_release unlocked;
        if (!steered_->fits_another_submit()) break;
        machine_->run_source(options_.steps_per_submit);
      }
      machine_->resolve_callbacks();
    }
    return machine_->steps_taken() - start;
  }

  // With the GIL held: the replay calls the tools again, and they may be Python callables.
  py::dict check() {
    const compose::SteeredCheck c =
        compose::check_steered(*model_, workflow_, tokenizer_, vm_, options_, steered_->sampled(), machine_->status()[0], tools_);
    py::dict d;
    d["ok"] = c.ok(), d["steps"] = c.steps, d["picks_checked"] = c.picks_checked, d["picks_agreeing"] = c.picks_agreeing;
    d["first_difference"] = c.first_difference;
    return d;
  }

  py::array_t<uint32_t> records() const {
    const std::vector<token_vm::TraceRecord>& all = machine_->status()[0];
    py::array_t<uint32_t> out({py::ssize_t(all.size()), py::ssize_t(5)});
    auto w = out.mutable_unchecked<2>();
    for (size_t i = 0; i < all.size(); ++i) {
      w(i, 0) = all[i].token, w(i, 1) = all[i].tags, w(i, 2) = all[i].pc, w(i, 3) = all[i].token_num, w(i, 4) = all[i].source();
    }
    return out;
  }

  token_vm::Machine& machine() { return *machine_; }
  compose::SteeredModel& steered() { return *steered_; }

 private:
  void set_tool_fn(const std::string& name, token_vm::ToolFn fn) {
    machine_->set_tool(name, fn);
    tools_[name] = std::move(fn);
  }

  std::shared_ptr<Device> device_;
  std::shared_ptr<const Model> model_;
  token_vm::ModelTokenizer tokenizer_;  // borrows the model's vocabulary
  token_vm::Workflow workflow_;
  token_vm::VmConfig vm_;
  compose::SteeredOptions options_;
  compose::SteeredModel* steered_ = nullptr;  // owned by machine_
  std::unique_ptr<token_vm::Machine> machine_;
  std::map<std::string, token_vm::ToolFn> tools_;  // as the machine has them, for check()
};

}  // namespace

void bind_attention(py::module_& m) {
  m.doc() = "The attention workload's native half; import weft.attention instead.";
  py::class_<PyModel>(m, "AttentionModel", "A llama/qwen2/qwen3 model read from a GGUF file (weights stay mapped).")
      .def_static("load", [](const std::string& path) { return PyModel{std::make_shared<const Model>(Model::load(path))}; },
                  py::arg("path"), "Reads and checks a GGUF file; anything Weft does not run is weft.BadInput naming it.")
      .def_property_readonly("config", &PyModel::config)
      .def("tokenize",
           [](const PyModel& m, const std::string& text, bool add_special) { return to_numpy(tokenize(m.model->vocab, text, add_special)); },
           py::arg("text"), py::arg("add_special") = true, "The file's own tokenizer, as llama.cpp tokenizes: uint32[n] token ids.")
      .def("detokenize",
           [](const PyModel& m, const py::object& ids) {
             return py::bytes(detokenize(m.model->vocab, token_ids(ids, m.model->config.vocab, "detokenize")));
           },
           py::arg("ids"), "The bytes the tokens spell (control tokens left out).")
      .def("token_text",
           [](const PyModel& m, int64_t id) { return py::bytes(token_text(m.model->vocab, token_ids(std::vector<int64_t>{id}, m.model->config.vocab, "token_text")[0])); },
           py::arg("id").noconvert(), "One token's bytes as they appear inside a text (for streaming).")
      .def_property_readonly("eos", [](const PyModel& m) { return m.model->vocab.eos; })
      .def_property_readonly("bos", [](const PyModel& m) { return m.model->vocab.bos; })
      .def("reference_logits",
           [](const PyModel& m, const py::object& tokens) {
             const auto ids = token_ids(tokens, m.model->config.vocab, "reference_logits");
             if (ids.empty()) fail(ErrorCode::BadInput, "reference_logits: no tokens");
             Reference ref(*m.model, uint32_t(ids.size()));
             py::gil_scoped_release unlocked;
             const std::vector<double> logits = ref.forward(ids);
             py::gil_scoped_acquire locked;
             return to_numpy(logits);
           },
           py::arg("tokens"), "float64[vocab]: the CPU reference's logits after the tokens (a sequence or integer array), to check a decoder against.");

  py::class_<PyDecoder>(m, "AttentionDecoder", "The model decoding on a device: one recorded program, replayed per step.")
      .def(py::init<const PyDevice&, const PyModel&, uint32_t, uint32_t, const std::string&>(), py::arg("device"), py::arg("model"),
           py::arg("context") = 0, py::arg("max_batch") = 0, py::arg("weights") = "auto",
           "context: KV-cache positions (0: min(model's, 2048)); weights: auto, window or far.")
      .def("prefill", &PyDecoder::prefill, py::arg("tokens"), "Runs the tokens (a sequence or integer array) at the next positions; returns the last one's logits, float32[vocab].")
      .def("step", &PyDecoder::step, py::arg("token").noconvert(),
           "Runs one token at the next position; returns its logits, float32[vocab].")
      .def_property_readonly("sampled", [](PyDecoder& d) { return d.decoder->sampled(); },
                             "The token the device sampled from the last logits.")
      .def("set_sampling",
           [](PyDecoder& d, float temperature, uint32_t top_k, uint32_t seed) { d.decoder->set_sampling({temperature, top_k, seed}); },
           py::arg("temperature") = 0.0f, py::arg("top_k") = 0, py::arg("seed") = 0, "Greedy at temperature 0; top_k <= 64.")
      .def("generate", &PyDecoder::generate, py::arg("prompt"), py::arg("n"), py::arg("stop_at_eos") = true,
           "Prefills the prompt, then samples n tokens on the device: uint32[n], fewer when EOS ends it.")
      .def("reset", [](PyDecoder& d) { d.decoder->reset(); }, "Starts again at position 0.")
      .def_property_readonly("position", [](const PyDecoder& d) { return d.decoder->position(); })
      .def_property_readonly("context", [](const PyDecoder& d) { return d.decoder->context(); })
      .def("gpu_ms", [](PyDecoder& d) { return d.decoder->gpu_ns() * 1e-6; }, "GPU time of the last run.");

  py::class_<PySteered>(m, "AttentionSteered",
                        "The model steered by a token VM workflow on the device: K steps per submit, no host round trip per token.")
      .def(py::init<const PyDevice&, const PyModel&, const std::string&, const std::optional<std::string>&,
                    const std::map<std::string, std::string>&, const std::string&, uint32_t, float, uint32_t, uint32_t, uint32_t,
                    const std::string&>(),
           py::arg("device"), py::arg("model"), py::arg("prompts"), py::arg("flow") = py::none(),
           py::arg("resources") = std::map<std::string, std::string>{}, py::arg("match") = "token", py::arg("steps_per_submit") = 8,
           py::arg("temperature") = 0.0f, py::arg("top_k") = 0, py::arg("seed") = 0, py::arg("context") = 0, py::arg("weights") = "auto",
           "prompts: UDPL (.toml or a folder), flow: a flow file, compiled with the model's own tokenizer; the decoder starts from "
           "the model's BOS token. Greedy at temperature 0.")
      .def("set_tool", &PySteered::set_tool, py::arg("name"), py::arg("fn"),
           "fn(captured_text) -> answer text; tools without one are built in (calculator/calc: arithmetic; others echo).")
      .def("run", &PySteered::run, py::arg("max_steps") = uint64_t(1) << 40,
           "Whole submits until done, max_steps more steps or the context is full; returns the steps taken.")
      .def_property_readonly("done", [](PySteered& s) { return s.machine().done(); })
      .def_property_readonly("steps_taken", [](PySteered& s) { return s.machine().steps_taken(); })
      .def_property_readonly("position", [](PySteered& s) { return s.steered().position(); },
                             "Positions the decoder has consumed (pads, while waiting for a tool or done, consume none).")
      .def_property_readonly("sampled", [](PySteered& s) { return to_numpy(s.steered().sampled()); },
                             "uint32[steps]: what the model sampled each step, before the workflow replaced any.")
      .def("records", &PySteered::records,
           "uint32[steps, 5]: token, tags, zone, token in zone, source (0 forced, 1 feed, 2 sampled, 3 timeout, 4 wait, 5 done).")
      .def("generative_sequence", [](PySteered& s) { return py::bytes(s.machine().generative_sequence()[0]); },
           "The bytes of every token the model consumed.")
      .def("extract", [](PySteered& s) { return model_texts(s.machine().extract()[0]); },
           "{extraction name: text} (bytes that are not UTF-8 as U+FFFD).")
      .def("gpu_ms", [](PySteered& s) { return s.steered().last_gpu_ns() * 1e-6; }, "GPU time of the last submit.")
      .def("check", &PySteered::check,
           "The run replayed on the CPU references: {ok, steps, picks_checked, picks_agreeing, first_difference}.");

  m.def("write_seeded_model",
        [](const std::string& path, uint32_t dim, uint32_t layers, uint32_t heads, uint32_t kv_heads, uint32_t ffn, uint32_t context,
           uint32_t seed, const std::string& arch) {
          SeededOptions o;
          o.dim = dim, o.layers = layers, o.heads = heads, o.kv_heads = kv_heads, o.ffn = ffn, o.context = context, o.seed = seed;
          o.arch = arch;
          write_seeded_model(path, o);
        },
        py::arg("path"), py::arg("dim") = 64, py::arg("layers") = 2, py::arg("heads") = 4, py::arg("kv_heads") = 2, py::arg("ffn") = 128,
        py::arg("context") = 64, py::arg("seed") = 1, py::arg("arch") = "llama",
        "Writes the seeded test model (random weights, byte-level vocabulary) as a GGUF file.");
}

}  // namespace weft::python
