// Shared by the token VM tests: building workflows by hand, running both backends side by side.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "device_vm.h"
#include "machine.h"
#include "random_workflow.h"
#include "reference.h"
#include "device_under_test.h"
#include "test_tokenizer.h"

namespace weft::token_vm::test {
using weft::test::error_code_of;
using weft::test::error_message_of;

// Appends a pattern spelled by `text` / a zone whose forced prompt is `prompt` (token = byte).
inline uint32_t pattern(Workflow& w, const std::string& text) { return add_byte_pattern(w, text); }
inline uint32_t zone(Workflow& w, const std::string& prompt, Zone z) { return add_byte_zone(w, prompt, z); }

inline std::vector<Token> bytes(const std::string& s) { return std::vector<Token>(s.begin(), s.end()); }

// The same host calls on a reference machine and a device machine.
struct Pair {
  Machine ref, dev;
  Pair(const Workflow& w, const Tokenizer& tok, const VmConfig& c, uint32_t steps_per_submit = 1)
      : ref(w, tok, std::make_unique<Reference>(w, c)),
        dev(w, tok, std::make_unique<DeviceVm>(weft::test::device(), w, c, DeviceVmOptions{steps_per_submit, 0})) {}
};

// Per-step records of every stream must be the same on both, and so must the final state.
inline void check_same(Machine& a, Machine& b) {
  REQUIRE(a.status().size() == b.status().size());
  for (size_t s = 0; s < a.status().size(); ++s) {
    REQUIRE(a.status()[s].size() == b.status()[s].size());
    for (size_t i = 0; i < a.status()[s].size(); ++i)
      if (!(a.status()[s][i] == b.status()[s][i]))
        FAIL("stream " << s << " step " << i << ": " << std::string(a.backend().name()) << " {" << describe(a.status()[s][i]) << "} vs "
                       << std::string(b.backend().name()) << " {" << describe(b.status()[s][i]) << "}");
  }
  CHECK(a.backend().state() == b.backend().state());
}

}  // namespace weft::token_vm::test
