#include "ports.h"

#include "error.h"

namespace weft {

namespace {

const char* kind_name(Port::Kind k) { return k == Port::Kind::Segment ? "segment" : "instance"; }

}  // namespace

Ports& Ports::add_segment(const std::string& name, const Range& range, const std::string& what) {
  for (const Port& p : ports_)
    if (p.name == name) fail(ErrorCode::InvalidProgram, owner_ + ": port '" + name + "' is declared twice");
  ports_.push_back({name, Port::Kind::Segment, range, {}, what});
  return *this;
}

Ports& Ports::add_instance(const std::string& name, InstanceId instance, const std::string& what) {
  for (const Port& p : ports_)
    if (p.name == name) fail(ErrorCode::InvalidProgram, owner_ + ": port '" + name + "' is declared twice");
  ports_.push_back({name, Port::Kind::Instance, {}, instance, what});
  return *this;
}

const Port& Ports::find(const std::string& name, Port::Kind kind) const {
  for (const Port& p : ports_)
    if (p.name == name) {
      if (p.kind != kind)
        fail(ErrorCode::InvalidProgram, owner_ + ": port '" + name + "' is " + (p.kind == Port::Kind::Segment ? "a " : "an ") +
                                            kind_name(p.kind) + ", not " + (kind == Port::Kind::Segment ? "a " : "an ") +
                                            kind_name(kind));
      return p;
    }
  std::string known;
  for (const Port& p : ports_) known += (known.empty() ? "" : ", ") + p.name;
  fail(ErrorCode::InvalidProgram, owner_ + " has no port '" + name + "' (ports: " + (known.empty() ? "none" : known) + ")");
}

Range Ports::segment(const std::string& name) const { return find(name, Port::Kind::Segment).range; }
InstanceId Ports::instance(const std::string& name) const { return find(name, Port::Kind::Instance).instance; }

std::string Ports::describe() const {
  std::string out;
  for (const Port& p : ports_) {
    out += owner_ + "." + p.name + "  ";
    if (p.kind == Port::Kind::Segment)
      out += std::string(binding_name(p.range.binding)) + " [" + std::to_string(p.range.offset) + ", " +
             std::to_string(p.range.offset + p.range.size) + ")";
    else
      out += "instance " + std::to_string(p.instance.index);
    out += "  " + p.what + "\n";
  }
  return out;
}

}  // namespace weft
