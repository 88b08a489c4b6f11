// Ports: the named inputs and outputs a workload's part of a program offers to the rest of it.
//
// A workload that appends itself to a caller's Program returns its Ports; a composition connects
// one part's output port to the next part's input port (a kernel argument, a message) and never
// names another workload's segments, includes its private headers or predicts where its
// segments will be allocated. A segment port is a byte range of one binding; an instance port is
// an instance whose outbox (R30) carries a message out, or whose inbox (R31) takes one in.
#pragma once

#include <string>
#include <vector>

#include "program.h"

namespace weft {

struct Port {
  enum class Kind { Segment, Instance };
  std::string name;
  Kind kind = Kind::Segment;
  Range range;          // Segment ports
  InstanceId instance;  // Instance ports
  std::string what;     // its contents and units, for people: "u32[nodes]: 1 keeps the node"
};

class Ports {
 public:
  explicit Ports(std::string owner = "program") : owner_(std::move(owner)) {}

  // InvalidProgram when the name is taken.
  Ports& add_segment(const std::string& name, const Range& range, const std::string& what);
  Ports& add_instance(const std::string& name, InstanceId instance, const std::string& what);

  // InvalidProgram naming the owner and listing its ports when there is no such port, or when
  // it is of the other kind.
  Range segment(const std::string& name) const;
  InstanceId instance(const std::string& name) const;

  const std::string& owner() const { return owner_; }
  const std::vector<Port>& all() const { return ports_; }
  std::string describe() const;  // one line per port

 private:
  const Port& find(const std::string& name, Port::Kind kind) const;
  std::string owner_;
  std::vector<Port> ports_;
};

}  // namespace weft
