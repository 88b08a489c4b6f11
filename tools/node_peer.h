// Peers run by node (npm packages such as `tokenizers` or `node-llama-cpp`) for benchmarks and
// cross-checks: `node SCRIPT ARGS...` with NODE_PATH at the peers folder (WEFT_PEERS_DIR, else
// build/peers, where `npm install --prefix build/peers PACKAGE` puts them), `input` on its
// standard input, its standard output parsed as one JSON value.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace weft::cli {

// The script's JSON answer, or {"missing": why} when node, the package or the script fails —
// a bench line then says the peer is missing rather than failing.
nlohmann::json run_node_peer(const std::string& script, const std::vector<std::string>& args, const std::string& input = "",
                             const std::string& environment = "");

}  // namespace weft::cli
