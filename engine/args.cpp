#include "args.h"

#include <cstring>
#include <limits>
#include <set>
#include <sstream>

#include "error.h"

namespace weft {

namespace {

constexpr ArgType kAllTypes[] = {ArgType::In,    ArgType::Out,    ArgType::InOut,    ArgType::FarIn,
                                 ArgType::FarOut, ArgType::FarInOut, ArgType::RefIn, ArgType::RefOut,
                                 ArgType::RefInOut, ArgType::U32,   ArgType::I32,      ArgType::F32};
constexpr Binding kAllBindings[] = {Binding::Registers, Binding::Metrics, Binding::Globals, Binding::Control, Binding::Heap};

std::optional<ArgType> type_named(const std::string& s) {
  for (ArgType t : kAllTypes)
    if (s == arg_type_name(t)) return t;
  return std::nullopt;
}

std::optional<Binding> binding_named(const std::string& s) {
  for (Binding b : kAllBindings)
    if (s == binding_name(b)) return b;
  return std::nullopt;
}

}  // namespace

KernelSignature parse_signature(const std::string& text, const std::string& kernel) {
  static const std::string marker = "weft_signature_arg";
  KernelSignature sig;
  std::set<std::string> names;
  size_t pos = 0;
  while (true) {
    size_t start = text.find(marker, pos);
    if (start == std::string::npos) break;
    start += marker.size();
    const size_t end = text.find(';', start);
    if (end == std::string::npos) fail(ErrorCode::ShaderCompile, kernel + ": unterminated argument declaration");
    std::istringstream words(text.substr(start, end - start));
    std::vector<std::string> w;
    for (std::string s; words >> s;) w.push_back(s);
    pos = end + 1;
    const auto type = w.empty() ? std::nullopt : type_named(w[0]);
    const bool segment = type && is_segment(*type);
    if (!type || w.size() != (segment ? 3u : 2u) || (segment && !binding_named(w[1])))
      fail(ErrorCode::ShaderCompile, kernel + ": argument declaration '" + text.substr(start, end - start) +
                                         "' is not one of WEFT_IN/OUT/INOUT(Registers|Metrics|Globals|Control|Heap), "
                                         "WEFT_FAR_IN/OUT/INOUT(Globals|Heap), WEFT_REF_IN/OUT/INOUT(Globals|Heap), "
                                         "WEFT_U32, WEFT_I32, WEFT_F32 followed by a name");
    ArgSpec a{w.back(), *type, segment ? *binding_named(w[1]) : Binding::Globals};
    if ((is_far(a.type) || is_ref(a.type)) && a.binding != Binding::Heap && a.binding != Binding::Globals)
      fail(ErrorCode::ShaderCompile, kernel + ": argument '" + a.name + "': only Heap and Globals have far segments");
    if (!names.insert(a.name).second) fail(ErrorCode::ShaderCompile, kernel + ": argument '" + a.name + "' is declared twice");
    sig.push_back(std::move(a));
  }
  if (sig.size() > WEFT_PUSH_ARG_WORDS)
    fail(ErrorCode::ShaderCompile, kernel + " declares " + std::to_string(sig.size()) + " arguments; at most " +
                                       std::to_string(WEFT_PUSH_ARG_WORDS) + " fit in the push-constant block");
  return sig;
}

namespace {

std::string describe_value(const StageArg& a) {
  switch (a.kind) {
    case StageArg::Kind::Segment: return a.segment.state == SegmentValue::State::Absent ? "an absent segment" : "a range";
    case StageArg::Kind::Integer: return "the integer " + std::to_string(a.integer);
    case StageArg::Kind::Float: return "a float";
  }
  return "?";
}

uint32_t segment_word(const ArgSpec& spec, const StageArg& a, const std::string& where) {
  const SegmentValue& v = a.segment;
  if (v.state == SegmentValue::State::Unset) fail(ErrorCode::InvalidProgram, where + " is not bound");
  if (v.state == SegmentValue::State::Absent) return WEFT_NONE;
  if (v.range.binding != spec.binding)
    fail(ErrorCode::InvalidProgram, where + " takes a " + binding_name(spec.binding) + " range; got one of " +
                                        binding_name(v.range.binding));
  if (!is_ref(spec.type) && is_far(spec.type) != (v.range.far != 0))
    fail(ErrorCode::InvalidProgram, where + (is_far(spec.type) ? " takes a far segment (SegmentLayout::add_far); got a range of the bound buffer"
                                                                : " takes a range of the bound buffer; got a far segment, which kernels reach through far arguments"));
  if (v.range.far) {
    if (v.range.offset != 0 || v.word)
      fail(ErrorCode::InvalidProgram, where + " takes a whole far segment; got a part of one starting at byte " +
                                          std::to_string(v.range.offset));
    return is_ref(spec.type) ? WEFT_REF_FAR | (v.range.far - 1) : v.range.far - 1;
  }
  if (v.range.offset % 4)
    fail(ErrorCode::InvalidProgram, where + ": range offset " + std::to_string(v.range.offset) + " is not word-aligned");
  const uint64_t first = v.range.offset / 4, end = (v.range.offset + v.range.size + 3) / 4;
  const uint64_t word = v.word ? *v.word : first;
  if (word < first || word > end)
    fail(ErrorCode::InvalidProgram, where + " pushes word " + std::to_string(word) + ", outside its range [" +
                                        std::to_string(first) + ", " + std::to_string(end) + ")");
  if (word >= WEFT_NONE) fail(ErrorCode::InvalidProgram, where + ": word offset " + std::to_string(word) + " needs more than 32 bits");
  if (is_ref(spec.type) && word >= WEFT_REF_FAR)
    fail(ErrorCode::InvalidProgram, where + ": word offset " + std::to_string(word) + " collides with the far bit of a segment reference");
  return uint32_t(word);
}

uint32_t scalar_word(const ArgSpec& spec, const StageArg& a, const std::string& where) {
  if (spec.type == ArgType::F32) {
    if (a.kind != StageArg::Kind::Float) fail(ErrorCode::InvalidProgram, where + " takes an f32; got " + describe_value(a));
    uint32_t bits;
    std::memcpy(&bits, &a.number, 4);
    return bits;
  }
  if (a.kind != StageArg::Kind::Integer)
    fail(ErrorCode::InvalidProgram, where + " takes a " + arg_type_name(spec.type) + "; got " + describe_value(a));
  const bool is_u32 = spec.type == ArgType::U32;
  const int64_t lo = is_u32 ? 0 : std::numeric_limits<int32_t>::min();
  const int64_t hi = is_u32 ? int64_t(std::numeric_limits<uint32_t>::max()) : std::numeric_limits<int32_t>::max();
  if (a.integer < lo || a.integer > hi)
    fail(ErrorCode::InvalidProgram, where + ": " + std::to_string(a.integer) + " does not fit a " + arg_type_name(spec.type));
  return uint32_t(a.integer);
}

}  // namespace

const char* arg_type_name(ArgType t) {
  switch (t) {
    case ArgType::In: return "in";
    case ArgType::Out: return "out";
    case ArgType::InOut: return "inout";
    case ArgType::FarIn: return "far_in";
    case ArgType::FarOut: return "far_out";
    case ArgType::FarInOut: return "far_inout";
    case ArgType::RefIn: return "ref_in";
    case ArgType::RefOut: return "ref_out";
    case ArgType::RefInOut: return "ref_inout";
    case ArgType::U32: return "u32";
    case ArgType::I32: return "i32";
    case ArgType::F32: return "f32";
  }
  return "?";
}

std::string ArgSpec::describe() const {
  return std::string(arg_type_name(type)) + " " + (is_segment(type) ? std::string(binding_name(binding)) + " " : "") + name;
}

std::string format_signature(const KernelSignature& signature) {
  std::string out;
  for (const ArgSpec& a : signature) out += (out.empty() ? "" : ", ") + a.describe();
  return out;
}

StageArg arg(std::string name, const Range& range) {
  StageArg a{std::move(name), StageArg::Kind::Segment};
  a.segment = {SegmentValue::State::Bound, range, std::nullopt};
  return a;
}
StageArg arg(std::string name, const Range& range, uint32_t pushed_word) {
  StageArg a = arg(std::move(name), range);
  a.segment.word = pushed_word;
  return a;
}
StageArg arg(std::string name, Absent) {
  StageArg a{std::move(name), StageArg::Kind::Segment};
  a.segment.state = SegmentValue::State::Absent;
  return a;
}

StageArg stage_arg(const char* name, uint32_t v) {
  StageArg a{name, StageArg::Kind::Integer, ArgType::U32};
  a.integer = v;
  return a;
}
StageArg stage_arg(const char* name, int32_t v) {
  StageArg a{name, StageArg::Kind::Integer, ArgType::I32};
  a.integer = v;
  return a;
}
StageArg stage_arg(const char* name, float v) {
  StageArg a{name, StageArg::Kind::Float, ArgType::F32};
  a.number = v;
  return a;
}

BoundArgs bind_args(const KernelSignature& signature, const std::vector<StageArg>& args, const std::string& who) {
  BoundArgs out;
  std::set<std::string> seen;
  for (const StageArg& a : args) {
    if (!seen.insert(a.name).second) fail(ErrorCode::InvalidProgram, who + " binds argument '" + a.name + "' twice");
    bool known = false;
    for (const ArgSpec& s : signature) known |= s.name == a.name;
    if (!known)
      fail(ErrorCode::InvalidProgram, who + " binds argument '" + a.name + "', which the kernel does not declare (it declares: " +
                                          (signature.empty() ? "none" : format_signature(signature)) + ")");
  }
  for (const ArgSpec& spec : signature) {
    const std::string where = who + ": argument '" + spec.describe() + "'";
    const StageArg* a = nullptr;
    for (const StageArg& x : args)
      if (x.name == spec.name) a = &x;
    if (!a) fail(ErrorCode::InvalidProgram, where + " is not bound");
    if ((a->type && *a->type != spec.type) || (a->binding && is_segment(spec.type) && *a->binding != spec.binding))
      fail(ErrorCode::InvalidProgram, where + " is bound as '" + std::string(arg_type_name(a->type.value_or(spec.type))) +
                                          (a->binding ? std::string(" ") + binding_name(*a->binding) : "") +
                                          "': the stage was written for another kernel's arguments");
    if (is_segment(spec.type) != (a->kind == StageArg::Kind::Segment))
      fail(ErrorCode::InvalidProgram, where + " takes " + (is_segment(spec.type) ? "a range" : "a scalar") + "; got " +
                                          describe_value(*a));
    if (!is_segment(spec.type)) {
      out.words.push_back(scalar_word(spec, *a, where));
      continue;
    }
    out.words.push_back(segment_word(spec, *a, where));
    if (a->segment.state != SegmentValue::State::Bound) continue;
    if (reads_segment(spec.type)) out.reads.push_back(a->segment.range);
    if (writes_segment(spec.type)) out.writes.push_back(a->segment.range);
  }
  return out;
}

}  // namespace weft
