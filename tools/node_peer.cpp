#include "node_peer.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli.h"

namespace weft::cli {

nlohmann::json run_node_peer(const std::string& script, const std::vector<std::string>& args, const std::string& input,
                             const std::string& environment) {
  namespace fs = std::filesystem;
  if (std::system("node --version >/dev/null 2>&1") != 0) return {{"missing", "node (Debian package nodejs)"}};
  const char* peers_env = std::getenv("WEFT_PEERS_DIR");
  const std::string peers = peers_env && *peers_env ? peers_env : WEFT_DEFAULT_PEERS_DIR;
  const fs::path input_file = fs::temp_directory_path() / ("weft-peer-" + std::to_string(::getpid()) + ".in");
  std::ofstream(input_file, std::ios::binary) << input;
  // A peer that hangs must not hang the bench: coreutils' timeout ends it after 15 minutes.
  std::string command = environment + " NODE_PATH=" + shell_quoted(peers + "/node_modules") + " timeout 900 node " + shell_quoted(script);
  for (const std::string& a : args) command += " " + shell_quoted(a);
  command += " < " + shell_quoted(input_file.string()) + " 2>&1";
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[65536];
    while (size_t n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    pclose(pipe);
  }
  fs::remove(input_file);
  try {
    return nlohmann::json::parse(output);
  } catch (const nlohmann::json::exception&) {
    return {{"missing", "the peer failed: " + output.substr(0, 300)}};
  }
}

}  // namespace weft::cli
