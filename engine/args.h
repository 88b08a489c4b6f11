// Typed stage arguments: what a kernel declares it takes (its signature) and the values a stage
// binds to it. How a kernel declares them: bindings_layout/weft_args.h.
//
// A stage binds every declared argument by name, exactly once. A segment argument takes a byte
// range of its binding: the kernel receives the range's first word index and the range is
// declared read (in), written (out) or both (inout), so the push words and the hazards the
// barrier planner sees come from the same declaration. A far argument takes a far segment (its
// whole range) and pushes the segment's index in its binding. A reference argument takes either
// and pushes a segment reference: the range's first word, or WEFT_REF_FAR | the far index, so
// one kernel serves data in the window and beyond it. Scalars push their 32-bit pattern.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "range.h"

namespace weft {

enum class ArgType : uint8_t { In, Out, InOut, FarIn, FarOut, FarInOut, RefIn, RefOut, RefInOut, U32, I32, F32 };
// "in", "out", "inout", "far_in", "far_out", "far_inout", "ref_in", "ref_out", "ref_inout",
// "u32", "i32", "f32"
const char* arg_type_name(ArgType t);
inline bool is_far(ArgType t) { return t == ArgType::FarIn || t == ArgType::FarOut || t == ArgType::FarInOut; }
inline bool is_ref(ArgType t) { return t == ArgType::RefIn || t == ArgType::RefOut || t == ArgType::RefInOut; }
inline bool is_segment(ArgType t) {
  return t == ArgType::In || t == ArgType::Out || t == ArgType::InOut || is_far(t) || is_ref(t);
}
inline bool reads_segment(ArgType t) { return t != ArgType::Out && t != ArgType::FarOut && t != ArgType::RefOut; }
inline bool writes_segment(ArgType t) { return t != ArgType::In && t != ArgType::FarIn && t != ArgType::RefIn; }

// One argument a kernel declares.
struct ArgSpec {
  std::string name;
  ArgType type = ArgType::U32;
  Binding binding = Binding::Globals;  // segment arguments only
  std::string describe() const;        // "in Heap x", "u32 n"
  bool operator==(const ArgSpec&) const = default;
};
using KernelSignature = std::vector<ArgSpec>;

// Parses what a WEFT_DESCRIBE_ARGS preprocessing pass prints (a `weft_signature_arg TYPE
// [BINDING] NAME ;` per argument, other text ignored); ShaderCompile error naming `kernel` when
// an entry is malformed, a name repeats or there are more than WEFT_PUSH_ARG_WORDS.
KernelSignature parse_signature(const std::string& described, const std::string& kernel);
// "in Heap x, u32 n" (for plans and messages).
std::string format_signature(const KernelSignature& signature);

// A segment argument's value: a range, optionally pushing another word inside it than its first,
// or absent (the kernel receives WEFT_NONE and nothing is declared).
struct Absent {};
inline constexpr Absent absent{};

struct SegmentValue {
  enum class State : uint8_t { Unset, Bound, Absent };
  State state = State::Unset;
  Range range;
  std::optional<uint32_t> word;
};

// The field types WEFT_KERNEL_ARGS declares for segment arguments.
template <ArgType T, Binding B>
struct SegmentArg : SegmentValue {
  SegmentArg() = default;
  SegmentArg(const Range& r) { state = State::Bound, range = r; }  // NOLINT: implicit on purpose
  SegmentArg(const Range& r, uint32_t pushed_word) : SegmentArg(r) { word = pushed_word; }
  SegmentArg(Absent) { state = State::Absent; }  // NOLINT
};
template <Binding B>
using In = SegmentArg<ArgType::In, B>;
template <Binding B>
using Out = SegmentArg<ArgType::Out, B>;
template <Binding B>
using InOut = SegmentArg<ArgType::InOut, B>;
template <Binding B>
using FarIn = SegmentArg<ArgType::FarIn, B>;
template <Binding B>
using FarOut = SegmentArg<ArgType::FarOut, B>;
template <Binding B>
using FarInOut = SegmentArg<ArgType::FarInOut, B>;
template <Binding B>
using RefIn = SegmentArg<ArgType::RefIn, B>;
template <Binding B>
using RefOut = SegmentArg<ArgType::RefOut, B>;
template <Binding B>
using RefInOut = SegmentArg<ArgType::RefInOut, B>;

// A stage's value for one argument. Typed structs also say the declared type (and binding),
// which must equal the kernel's; a value bound by name leaves both to the kernel.
struct StageArg {
  enum class Kind : uint8_t { Segment, Integer, Float };
  std::string name;
  Kind kind = Kind::Integer;
  std::optional<ArgType> type;
  std::optional<Binding> binding;
  SegmentValue segment;
  int64_t integer = 0;
  float number = 0;
};

// Values bound by name (manifests, tests, kernels compiled at run time).
StageArg arg(std::string name, const Range& range);
StageArg arg(std::string name, const Range& range, uint32_t pushed_word);
StageArg arg(std::string name, Absent);
template <std::integral T>
StageArg arg(std::string name, T value) {
  StageArg a{std::move(name)};
  a.kind = StageArg::Kind::Integer;
  a.integer = int64_t(value);
  return a;
}
template <std::floating_point T>
StageArg arg(std::string name, T value) {
  StageArg a{std::move(name)};
  a.kind = StageArg::Kind::Float;
  a.number = float(value);
  return a;
}

// What WEFT_KERNEL_ARGS structs bind, with their declared types.
template <ArgType T, Binding B>
StageArg stage_arg(const char* name, const SegmentArg<T, B>& v) {
  StageArg a{name, StageArg::Kind::Segment, T, B, v};
  return a;
}
StageArg stage_arg(const char* name, uint32_t v);
StageArg stage_arg(const char* name, int32_t v);
StageArg stage_arg(const char* name, float v);

// A stage's arguments bound to a kernel's signature: the push words in declaration order and the
// ranges the segment arguments declare. InvalidProgram naming `who` and the argument when one is
// missing, repeated, unknown, of another type or binding, out of range, or not word-aligned.
struct BoundArgs {
  std::vector<uint32_t> words;
  std::vector<Range> reads, writes;
};
BoundArgs bind_args(const KernelSignature& signature, const std::vector<StageArg>& args, const std::string& who);

}  // namespace weft
