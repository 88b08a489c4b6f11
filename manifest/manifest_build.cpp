// Manifest -> Program: resolves every reference ("heap.x", "control.gain[1]", "outbox.a") to
// ranges and word indices, and reports problems by the manifest key that wrote them.
#include <cmath>
#include <cstring>
#include <map>

#include <weft/bits.h>
#include <weft/device.h>
#include "manifest_internal.h"
#include "manifest_resolve.h"
#include "manifest_toml.h"
#include <weft/recorder.h>
#include <weft/regulator.h>

namespace weft {

using manifest_detail::bad;
using manifest_detail::bad_at_line;

namespace manifest_detail {

namespace {

// Engine errors raised while building keep their text but become BadInput at the key.
template <class F>
auto at_key(const Manifest& m, const std::string& key, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.code() == ErrorCode::BadInput && std::string(e.what()).find(m.path + ": ") != std::string::npos) throw;
    bad(m.path, key, std::string(e.what()));
  }
}

uint32_t encode(double v, uint32_t type, const Manifest& m, const std::string& key, bool allow_negative) {
  if (type == WEFT_SOURCE_F32) {
    return f32_bits(float(v));
  }
  if (v != std::floor(v) || v > double(UINT32_MAX) || v < (allow_negative ? double(INT32_MIN) : 0.0))
    bad(m.path, key, "value " + std::to_string(v) + " is not a valid integer for an integer target");
  return v < 0 ? uint32_t(int32_t(v)) : uint32_t(v);
}

abi::WeftRule make_rule(const Manifest& m, const Resolver& res, const ManifestRule& mr) {
  abi::WeftRule r{};
  const ManifestRef self{mr.source_instance, mr.key + ".source"};
  r.source_instance = mr.source_instance.empty() ? WEFT_NONE : res.instance(self, mr.source_instance).index;
  r.source_field = mr.source_field;
  r.source_type = mr.source_type;
  r.compare = mr.compare;
  r.lo = encode(mr.lo, mr.source_type, m, mr.key + ".threshold", false);
  r.hi = encode(mr.hi, mr.source_type, m, mr.key + ".threshold", false);
  r.action = mr.action;
  switch (mr.action) {
    case WEFT_ACTION_SET_WORD:
    case WEFT_ACTION_SCALE_WORD:
    case WEFT_ACTION_CLAMP_WORD: {
      const Target t = res.target(mr.target);
      if (t.is_slot) bad_at_line(m.path, mr.target.key, "a word action needs a control word, not a slot", mr.target.line);
      r.target = t.word;
      r.target_type = t.type;
      // An integer word scales by value / denominator in integer arithmetic (regulator.comp).
      const bool int_scale = mr.action == WEFT_ACTION_SCALE_WORD && t.type == WEFT_SOURCE_U32;
      r.value = encode(mr.value, t.type, m, mr.key + (mr.action == WEFT_ACTION_CLAMP_WORD ? ".limits" : ".value"), !int_scale);
      if (mr.action == WEFT_ACTION_CLAMP_WORD) r.value2 = encode(mr.value2, t.type, m, mr.key + ".limits", true);
      if (int_scale) r.value2 = encode(mr.value2, WEFT_SOURCE_U32, m, mr.key + ".denominator", false);
      if (mr.action == WEFT_ACTION_SCALE_WORD && !int_scale && mr.denominator_given)
        bad(m.path, mr.key + ".denominator", "denominator only applies to integer targets; a float target scales by value");
      break;
    }
    case WEFT_ACTION_SET_SLOT:
    case WEFT_ACTION_ZERO_SLOTS: {
      const Target t = res.target(mr.target);
      if (!t.is_slot) bad_at_line(m.path, mr.target.key, "a slot action needs slot.NAME", mr.target.line);
      r.target = t.word;
      r.target_type = WEFT_SOURCE_U32;
      if (mr.action == WEFT_ACTION_SET_SLOT) r.value = uint32_t(mr.value);
      else {
        r.value2 = uint32_t(mr.value2);
        // The zeroed slots are consecutive in Control: every one of them must be a slot.
        for (uint32_t k = 1; k < r.value2; ++k)
          if (!res.is_slot_word(r.target + k * WEFT_INDIRECT_SLOT_WORDS))
            bad(m.path, mr.key + ".count", "zero_slots from '" + mr.target.text + "' covers " + std::to_string(r.value2) +
                                               " slots but only " + std::to_string(k) + " consecutive slot(s) start there");
      }
      break;
    }
    case WEFT_ACTION_SET_STATUS:
      // target = "NAME" or "instance.NAME"; without one, the rule marks its source instance.
      if (mr.target.text.empty()) {
        r.target = r.source_instance;
      } else {
        const std::string& t = mr.target.text;
        r.target = res.instance(mr.target, t.rfind("instance.", 0) == 0 ? t.substr(9) : t).index;
      }
      r.value = uint32_t(mr.value);
      break;
    default:
      break;
  }
  return r;
}

// A stage's value for one kernel argument; the kernel's declaration says what the value means.
StageArg resolve_arg(const Manifest& m, const Resolver& res, const Kernel& kernel, const ManifestArg& a) {
  const ArgSpec* spec = nullptr;
  for (const ArgSpec& s : kernel.signature())
    if (s.name == a.name) spec = &s;
  if (!spec)
    bad(m.path, a.key, "kernel '" + kernel.name() + "' declares no argument '" + a.name + "' (it declares: " +
                           (kernel.signature().empty() ? "none" : format_signature(kernel.signature())) + ")");
  const std::string what = "argument '" + spec->describe() + "'";
  if (is_segment(spec->type)) {
    if (a.kind != ManifestArg::Kind::Ref) bad(m.path, a.key, what + " takes a range such as \"globals.NAME\"");
    return arg(a.name, res.range(a.ref));
  }
  switch (a.kind) {
    case ManifestArg::Kind::Ref:
      if (spec->type == ArgType::F32) bad(m.path, a.key, what + ": a reference names an integer word, not an f32");
      return arg(a.name, res.word(a.ref));
    case ManifestArg::Kind::Float:
      if (spec->type != ArgType::F32) bad(m.path, a.key, what + " takes an integer");
      return arg(a.name, a.number);
    case ManifestArg::Kind::Integer:
      return spec->type == ArgType::F32 ? arg(a.name, double(a.integer)) : arg(a.name, a.integer);
  }
  return {};
}

void check_bindings(const Manifest& m, const Program& p, const ManifestStage& ms) {
  const Stage& s = p.stages().back();
  uint32_t read = 0, written = 0;
  for (const Range& r : p.stage_reads(s)) read |= 1u << uint32_t(r.binding);
  for (const Range& r : p.stage_writes(s)) written |= 1u << uint32_t(r.binding);
  const KernelInterface& k = s.kernel->interface(false);
  for (uint32_t b = 0; b < WEFT_BINDING_COUNT; ++b) {
    const std::string name = binding_name(Binding(b));
    if ((k.used_bindings() & (1u << b)) && !((read | written) & (1u << b)))
      bad(m.path, ms.key + ".reads",
          "kernel '" + ms.kernel + "' uses " + name + " but the stage declares no " + name + " range in reads or writes");
    if ((k.bindings_written & (1u << b)) && !(written & (1u << b)))
      bad(m.path, ms.key + ".writes", "kernel '" + ms.kernel + "' writes " + name + " but the stage declares no " + name + " write");
  }
}

OutputPlan plan_output(const Manifest& m, const Resolver& res, const Program& p, const ManifestOutput& o) {
  OutputPlan out;
  out.file = o.file;
  out.range = at_key(m, o.source.key, [&] { return res.range(o.source); });
  const auto q = res.split(o.source);
  const std::string& h = q.parts[0];
  std::vector<uint64_t> natural;
  DType dtype = DType::U32;
  if (h == "metrics") {
    out.metrics_table = true;
    out.metrics_first = q.parts.size() == 2 ? res.instance(o.source, q.parts[1]).index : 0;
    out.metrics_count = q.parts.size() == 2 ? 1 : uint32_t(p.instances().size());
    dtype = DType::F64;
    natural = q.parts.size() == 2 ? std::vector<uint64_t>{kMetricsColumns}
                                  : std::vector<uint64_t>{out.metrics_count, kMetricsColumns};
    if (o.dtype_given && o.dtype != DType::F64) bad(m.path, o.key + ".dtype", "metrics are written as <f8 rows");
  } else if ((h == "heap" || h == "globals") && q.parts.size() == 2) {
    const ManifestSegment& s = res.segment(o.source, h, q.parts[1]);
    dtype = s.initial.dtype;
    natural = s.initial.shape;
  } else if (h == "control" && q.parts.size() == 2 && q.parts[1] != "header") {
    dtype = res.control(o.source, q.parts[1]).dtype;
  } else if (h == "registers" || h == "outbox" || h == "inbox") {
    dtype = DType::F32;
  }
  const uint64_t bytes = out.metrics_table ? out.metrics_count * kMetricsColumns * 8 : out.range.size;
  out.dtype = o.dtype_given ? o.dtype : dtype;
  if (bytes % dtype_size(out.dtype))
    bad(m.path, o.key + ".dtype", std::to_string(bytes) + " bytes are not a whole number of " + dtype_descr(out.dtype) + " elements");
  const uint64_t count = bytes / dtype_size(out.dtype);
  if (!o.shape.empty()) {
    uint64_t n = 1;
    for (uint64_t d : o.shape) n *= d;
    if (n != count)
      bad(m.path, o.key + ".shape", "shape holds " + std::to_string(n) + " elements but '" + o.source.text + "' has " +
                                      std::to_string(count) + " of " + dtype_descr(out.dtype));
    out.shape = o.shape;
  } else {
    uint64_t n = 1;
    for (uint64_t d : natural) n *= d;
    out.shape = (!natural.empty() && n == count) ? natural : std::vector<uint64_t>{count};
  }
  return out;
}

}  // namespace

Built build(const Manifest& m) {
  Built out{Program(m.name), {}, {}, {}};
  Program& p = out.program;
  Resolver res(m, p);
  for (const auto& s : m.segments) {
    at_key(m, s.key, [&] {
      SegmentLayout& layout = s.binding == Binding::Heap ? p.heap() : p.globals();
      const uint64_t bytes = std::max<uint64_t>((s.initial.data.size() + 3) / 4 * 4, 4);
      if (!s.far) return void(layout.add(s.name, bytes, s.align));
      if (bytes % s.record_bytes)
        fail(ErrorCode::BadInput, std::to_string(bytes) + " bytes are not a whole number of " + std::to_string(s.record_bytes) +
                                      "-byte records");
      layout.add_far(s.name, bytes, s.record_bytes);
    });
  }
  for (const auto& in : m.instances) res.instances[in.name] = at_key(m, in.key, [&] { return p.add_instance(in.name, in.width); });
  for (size_t c = 0; c < m.connections.size(); ++c) {
    const auto& link = m.connections[c];  // not a structured binding: clang 14 cannot capture one
    at_key(m, "chain", [&] { p.connect(res.instances.at(link.first), res.instances.at(link.second)); });
  }
  for (const auto& s : m.slots) res.slots[s.name] = p.add_slot(s.name, s.groups);
  for (const auto& c : m.controls) {
    res.controls[c.name] = {p.add_control_words(c.name, c.words), uint32_t(c.words.size()), c.dtype};
    out.controls.push_back({c.name, res.controls[c.name].first, uint32_t(c.words.size())});
  }

  for (const auto& ms : m.stages) {
    if (ms.is_regulator()) {
      std::vector<abi::WeftRule> rules;
      for (const auto& mr : ms.rules) rules.push_back(make_rule(m, res, mr));
      const StageId id = at_key(m, ms.key, [&] { return add_regulator(p, ms.name, rules); });
      RuleBlock block{id.index, regulator_rule_word(p, id), uint32_t(rules.size())};
      out.rules.push_back(block);
      continue;
    }
    StageSpec s;
    s.name = ms.name;
    for (const auto& k : m.kernels)
      if (k.name == ms.kernel) s.kernel = k.kernel;
    s.instance = res.instances.at(ms.instance);
    s.groups = ms.groups;
    s.streaming_units = ms.units;
    if (!ms.indirect.empty()) s.indirect = res.slots.at(ms.indirect);
    for (const auto& a : ms.args)
      if (s.kernel) s.args.push_back(at_key(m, a.key, [&] { return resolve_arg(m, res, *s.kernel, a); }));
    for (const auto& r : ms.reads) s.reads.push_back(at_key(m, r.key, [&] { return res.range(r); }));
    for (const auto& r : ms.writes) {
      const Range range = at_key(m, r.key, [&] { return res.range(r); });
      if (range.binding == Binding::Heap)
        bad_at_line(m.path, r.key, "Heap is read-only for kernels; '" + r.text + "' cannot be written", r.line);
      s.writes.push_back(range);
    }
    s.message = ms.message;
    s.honour_halt = ms.honour_halt;
    s.iteration = ms.iteration;
    if (s.kernel) {
      at_key(m, ms.key, [&] { p.add_stage(s); });
      check_bindings(m, p, ms);
    }
  }
  // Everything else a device would refuse, checked against limits no device has.
  DeviceInfo roomy;
  roomy.max_storage_buffer_range = UINT64_MAX;
  roomy.buffer_device_address = true;
  roomy.max_compute_shared_memory = UINT32_MAX;
  for (auto& c : roomy.max_workgroup_count) c = UINT32_MAX;
  at_key(m, "stages", [&] { p.validate(roomy); });
  for (const auto& o : m.outputs) out.outputs.push_back(plan_output(m, res, p, o));
  return out;
}

}  // namespace manifest_detail

Program build_program(const Manifest& manifest) { return manifest_detail::build(manifest).program; }

std::string describe_dry_run(const Manifest& m) {
  const auto built = manifest_detail::build(m);
  const Program& p = built.program;
  std::string out = plan_program(p, BarrierMode::Planned).describe(p);
  out += "layout:\n";
  for (const auto* layout : {&p.heap(), &p.globals()})
    for (const Segment& s : layout->segments())
      out += "  " + layout->buffer_name() + " '" + s.name + "': " +
             (s.far ? "far, " + std::to_string(s.size) + " bytes in records of " + std::to_string(s.record_bytes) +
                          " bytes, allocations of its own (split by the device's allocation limit)"
                    : "words [" + std::to_string(s.offset / 4) + ", " + std::to_string((s.offset + s.size) / 4) + ")") +
             "\n";
  for (const Instance& in : p.instances())
    out += "  instance '" + in.name + "': width " + std::to_string(in.width) + ", window word " + std::to_string(in.window) +
           (in.inbox_from == WEFT_NONE ? std::string() : ", inbox from '" + p.instances()[in.inbox_from].name + "'") + "\n";
  out += "  Control: " + std::to_string(p.control_bytes() / 4) + " words, " + std::to_string(p.slots().size()) + " slots, " +
         std::to_string(p.rule_count()) + " rules\n";
  for (const auto& o : built.outputs) out += "  output " + o.file + "\n";
  return out;
}

}  // namespace weft
