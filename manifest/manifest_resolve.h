// Resolving manifest references ("heap.x", "control.gain[1]", "outbox.a", "slot.s") against
// the Program being built. Internal to the engine (not installed).
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "manifest.h"
#include "manifest_toml.h"

namespace weft::manifest_detail {

struct ControlBlock {
  uint32_t first = 0, count = 0;
  DType dtype = DType::U32;
};

struct Target {
  uint32_t word = 0;
  uint32_t type = WEFT_SOURCE_U32;
  bool is_slot = false;
};

inline constexpr const char* kInstanceFields[] = {"scale", "flags", "limit", "reserved", "param0", "param1", "param2", "param3"};

// Maps reference text to ranges (reads/writes/outputs), words (push) and rule targets; every
// failure names the manifest key that wrote the reference.
class Resolver {
 public:
  Resolver(const Manifest& m, Program& p) : m_(m), p_(p) {}

  std::map<std::string, InstanceId> instances;
  std::map<std::string, SlotId> slots;
  std::map<std::string, ControlBlock> controls;

  struct Parsed {
    std::vector<std::string> parts;
    bool indexed = false;
    uint32_t index = 0;
  };

  [[noreturn]] void unknown(const ManifestRef& r, const std::string& why) const {
    bad_at_line(m_.path, r.key, "cannot resolve '" + r.text + "': " + why, r.line);
  }

  Parsed split(const ManifestRef& r) const {
    Parsed out;
    std::string text = r.text;
    if (!text.empty() && text.back() == ']') {
      const size_t open = text.rfind('[');
      const std::string digits = open == std::string::npos ? "" : text.substr(open + 1, text.size() - open - 2);
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
        unknown(r, "expected NAME[index] with a non-negative integer index");
      out.indexed = true;
      out.index = uint32_t(std::stoul(digits));
      text = text.substr(0, open);
    }
    size_t start = 0;
    while (true) {
      const size_t dot = text.find('.', start);
      out.parts.push_back(text.substr(start, dot - start));
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    for (const auto& part : out.parts)
      if (part.empty()) unknown(r, "empty name between dots");
    return out;
  }

  InstanceId instance(const ManifestRef& r, const std::string& name) const {
    auto it = instances.find(name);
    if (it == instances.end()) unknown(r, "no instance '" + name + "'");
    return it->second;
  }
  SlotId slot(const ManifestRef& r, const std::string& name) const {
    auto it = slots.find(name);
    if (it == slots.end()) unknown(r, "no slot '" + name + "'");
    return it->second;
  }
  const ControlBlock& control(const ManifestRef& r, const std::string& name) const {
    auto it = controls.find(name);
    if (it == controls.end()) unknown(r, "no control block '" + name + "'");
    return it->second;
  }
  const ManifestSegment& segment(const ManifestRef& r, const std::string& head, const std::string& name) const {
    const Binding b = head == "heap" ? Binding::Heap : Binding::Globals;
    for (const auto& s : m_.segments)
      if (s.binding == b && s.name == name) return s;
    unknown(r, "no " + head + " segment '" + name + "'");
  }
  uint32_t reg(const ManifestRef& r, const std::string& text) const {
    if (text.size() < 2 || text[0] != 'R' || text.size() > 3 || text.find_first_not_of("0123456789", 1) != std::string::npos ||
        std::stoul(text.substr(1)) >= WEFT_REGISTERS_PER_INSTANCE)
      unknown(r, "expected a register R0..R31, got '" + text + "'");
    return uint32_t(std::stoul(text.substr(1)));
  }
  uint32_t control_word_index(const ManifestRef& r, const Parsed& q) const {
    const ControlBlock& c = control(r, q.parts[1]);
    if (q.index >= c.count)
      unknown(r, "control block '" + q.parts[1] + "' has " + std::to_string(c.count) + " words; index " + std::to_string(q.index) + " is past it");
    return c.first + q.index;
  }
  Range segment_range(const ManifestRef& r, const Parsed& q) const {
    const ManifestSegment& s = segment(r, q.parts[0], q.parts[1]);
    Range range = p_.segment(s.binding, s.name);
    range.size = s.initial.data.size();  // the declared bytes, not the 4-byte padding
    return range;
  }

  // reads = [...], writes = [...] and output sources.
  Range range(const ManifestRef& r) const {
    const Parsed q = split(r);
    const std::string& h = q.parts[0];
    const size_t n = q.parts.size();
    if (q.indexed && h != "control") unknown(r, "only control blocks take an [index]");
    if (n == 1) {
      if (h == "heap") return p_.whole(Binding::Heap);
      if (h == "globals") return p_.whole(Binding::Globals);
      if (h == "registers") return p_.whole(Binding::Registers);
      if (h == "metrics") return p_.whole(Binding::Metrics);
      if (h == "control") return p_.whole(Binding::Control);
    }
    if ((h == "heap" || h == "globals") && n == 2) return segment_range(r, q);
    if (h == "registers" && n == 2) return p_.registers(instance(r, q.parts[1]));
    if (h == "registers" && n == 3) return p_.registers(instance(r, q.parts[1]), reg(r, q.parts[2]), 1);
    if (h == "outbox" && n == 2) return p_.outbox(instance(r, q.parts[1]));
    if (h == "inbox" && n == 2) return p_.inbox(instance(r, q.parts[1]));
    if (h == "metrics" && n == 2) return p_.metrics(instance(r, q.parts[1]));
    if (h == "control" && n == 2 && q.parts[1] == "header" && !q.indexed) return p_.control_header();
    if (h == "control" && n == 2) {
      const ControlBlock& c = control(r, q.parts[1]);
      return q.indexed ? p_.control_words(control_word_index(r, q), 1) : p_.control_words(c.first, c.count);
    }
    if (h == "slot" && n == 2) return p_.slot(slot(r, q.parts[1]));
    if (h == "instance" && n == 2) return p_.instance_control(instance(r, q.parts[1]));
    unknown(r, "expected heap[.NAME], globals[.NAME], registers[.INSTANCE[.Rk]], outbox.INSTANCE, inbox.INSTANCE, "
               "metrics[.INSTANCE], control[.NAME[k]|.header], slot.NAME or instance.NAME");
  }

  // push = [...] references: word offsets, word indices, counts.
  uint32_t word(const ManifestRef& r) const {
    const Parsed q = split(r);
    const std::string& h = q.parts[0];
    const size_t n = q.parts.size();
    if (q.indexed && h != "control") unknown(r, "only control blocks take an [index]");
    if ((h == "heap" || h == "globals") && (n == 2 || n == 3)) {
      const ManifestSegment& s = segment(r, h, q.parts[1]);
      const Range range = p_.segment(s.binding, s.name);
      if (n == 2 || q.parts[2] == "offset") {
        if (range.far) unknown(r, "a far segment has no word offset; bind it to a far_* or ref_* argument");
        if (range.offset / 4 > UINT32_MAX) unknown(r, "the word offset does not fit 32 bits");
        return uint32_t(range.offset / 4);
      }
      if (q.parts[2] == "words") return uint32_t(std::min<uint64_t>((s.initial.data.size() + 3) / 4, UINT32_MAX));
      if (q.parts[2] == "count") return uint32_t(std::min<uint64_t>(s.initial.count(), UINT32_MAX));
      unknown(r, "a segment reference ends in .offset, .words or .count");
    }
    if (h == "control" && n == 2) return control_word_index(r, q);
    if (h == "slot" && n == 2) return p_.slot_word(slot(r, q.parts[1]));
    if (h == "instance" && n == 2) return instance(r, q.parts[1]).index;
    if (h == "instance" && n == 3) {
      const InstanceId id = instance(r, q.parts[1]);
      if (q.parts[2] == "control") return p_.instance_control_word(id, 0);
      if (q.parts[2] == "width") return p_.instance(id).width;
      for (uint32_t f = 0; f < 8; ++f)
        if (q.parts[2] == kInstanceFields[f]) return p_.instance_control_word(id, f);
      unknown(r, "an instance reference ends in .control, .width, .scale, .flags, .limit or .param0..param3");
    }
    if (h == "registers" && n == 3) return p_.window_word(instance(r, q.parts[1]), reg(r, q.parts[2]));
    if (h == "outbox" && n == 2) return uint32_t(p_.outbox(instance(r, q.parts[1])).offset / 4);
    if (h == "inbox" && n == 2) return uint32_t(p_.inbox(instance(r, q.parts[1])).offset / 4);
    unknown(r, "expected heap.NAME[.offset|.words|.count], globals.NAME[...], control.NAME[k], slot.NAME, "
               "instance.NAME[.field], registers.INSTANCE.Rk, outbox.INSTANCE or inbox.INSTANCE");
  }

  // Rule targets: a control word with its type, or a slot.
  bool is_slot_word(uint32_t w) const {
    for (const auto& sl : p_.slots())
      if (sl.word == w) return true;
    return false;
  }

  Target target(const ManifestRef& r) const {
    const Parsed q = split(r);
    const std::string& h = q.parts[0];
    if (h == "control" && q.parts.size() == 2) {
      const ControlBlock& c = control(r, q.parts[1]);
      return {control_word_index(r, q), c.dtype == DType::F32 ? WEFT_SOURCE_F32 : WEFT_SOURCE_U32, false};
    }
    if (h == "instance" && q.parts.size() == 3 && !q.indexed) {
      const uint32_t w = word(r);
      const bool f32 = q.parts[2] == "scale" || q.parts[2].rfind("param", 0) == 0;
      return {w, f32 ? WEFT_SOURCE_F32 : WEFT_SOURCE_U32, false};
    }
    if (h == "slot" && q.parts.size() == 2 && !q.indexed) return {p_.slot_word(slot(r, q.parts[1])), WEFT_SOURCE_U32, true};
    unknown(r, "a rule target is control.NAME[k], instance.NAME.scale|limit|flags|paramK or slot.NAME");
  }

 private:
  const Manifest& m_;
  Program& p_;
};

}  // namespace weft::manifest_detail
