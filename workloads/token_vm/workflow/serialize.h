// Save and load a compiled Workflow as JSON (documented in docs/token_vm.md, "Workflow files").
//
// The form is versioned ("format": "weft.token_vm.workflow", "version": 1) and mirrors the
// tables exactly, so save -> load is the identity. Index fields that may be "none" are null.
// Loading is strict: malformed JSON is reported at line:col, a missing, unknown or mistyped
// key by its path ("zones[3].timeout"), every number must be an unsigned 32-bit integer, and
// the result always passes validate(). All failures are weft::Error(BadInput).
#pragma once

#include <string>
#include <string_view>

#include "workflow.h"

namespace weft::token_vm {

inline constexpr uint32_t kWorkflowFormatVersion = 1;

std::string workflow_to_json(const Workflow& workflow);
// `source` names the text in error messages (a file path).
Workflow workflow_from_json(std::string_view text, const std::string& source = "workflow");

void save_workflow(const Workflow& workflow, const std::string& path);
Workflow load_workflow(const std::string& path);

}  // namespace weft::token_vm
