// Human views of a compiled workflow: a zone-by-zone listing and Graphviz DOT.
#pragma once

#include <string>

#include <workflow.h>

namespace weft::token_vm {

// One line per zone: index, sequence/block/zone, forced text (quoted, with \n \t \\ \" and
// other control bytes escaped, otherwise verbatim), next/jump exits, tags, flags, tool,
// timeout, close pattern and loop bounds; then patterns, loops and extractions.
std::string dump_workflow(const Workflow& workflow, const Tokenizer& tokenizer);

// A digraph: zones as boxes labelled "index: sequence/block/zone" plus their forced text (cut
// at 60 bytes), solid "next" edges, dashed "jump" edges, loop decision zones labelled with their
// bounds, and a DONE node.
std::string workflow_dot(const Workflow& workflow, const Tokenizer& tokenizer);

// "a\nb" for a\nb: the quoting both views use.
std::string quote_text(const std::string& text);

}  // namespace weft::token_vm
