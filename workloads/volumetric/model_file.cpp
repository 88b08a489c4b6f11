// Model files (JSON): every problem is BadInput naming the file and the JSON path of the key.
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>
#include <weft/error.h>
#include <weft/input_file.h>

#include "model.h"

namespace weft::volumetric {

namespace {

using nlohmann::json;

const std::set<std::string> kLayerKeys = {"at",     "type",  "dtype", "activation", "remote", "children", "in",
                                          "out",    "seq",   "channels", "filters",  "kernel", "height",   "width",
                                          "heads",  "vocab", "eps",   "combine",    "seed",   "depth"};
const std::set<std::string> kGridKeys = {"depth", "rows", "cols", "layers_per_cell", "input", "seed", "dtype"};

struct Ctx {
  std::string file;
  [[noreturn]] void bad(const std::string& path, const std::string& what) const {
    fail(ErrorCode::BadInput, file + ": " + path + ": " + what);
  }
  const json& need(const json& obj, const std::string& path, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) bad(path, std::string("missing key \"") + key + "\"");
    return *it;
  }
  uint32_t uint(const json& v, const std::string& path, bool positive) const {
    if (!v.is_number_integer() || v.get<int64_t>() < (positive ? 1 : 0) || v.get<int64_t>() > int64_t(1) << 30)
      bad(path, std::string("expected a ") + (positive ? "positive" : "non-negative") + " integer (at most 2^30), got " + v.dump());
    return uint32_t(v.get<int64_t>());
  }
  std::string str(const json& v, const std::string& path) const {
    if (!v.is_string()) bad(path, "expected a string, got " + v.dump());
    return v.get<std::string>();
  }
  void keys(const json& obj, const std::string& path, const std::set<std::string>& known) const {
    if (!obj.is_object()) bad(path, "expected an object, got " + obj.dump());
    for (auto it = obj.begin(); it != obj.end(); ++it)
      if (!known.count(it.key())) bad(path + "." + it.key(), "unknown key");
  }
  Coord coord(const json& v, const std::string& path) const {
    if (!v.is_array() || v.size() != 4) bad(path, "expected [z, y, x, l], got " + v.dump());
    return {uint(v[0], path + "[0]", false), uint(v[1], path + "[1]", false), uint(v[2], path + "[2]", false),
            uint(v[3], path + "[3]", false)};
  }
  // Runs f, re-throwing a BadInput from it with this path in front.
  template <class F>
  auto at(const std::string& path, F f) const {
    try {
      return f();
    } catch (const Error& e) {
      if (e.code() != ErrorCode::BadInput) throw;
      std::string m = e.what();
      const std::string prefix = std::string(to_string(ErrorCode::BadInput)) + ": ";
      if (m.rfind(prefix, 0) == 0) m = m.substr(prefix.size());
      if (m.rfind(file + ":", 0) == 0) throw;  // already located
      bad(path, m);
    }
  }
};

Layer parse_layer(const Ctx& c, const json& j, const std::string& path, DType dtype, bool in_grid) {
  c.keys(j, path, kLayerKeys);
  if (!in_grid && j.contains("at")) c.bad(path + ".at", "only grid cells have a position");
  if (!in_grid && j.contains("remote")) c.bad(path + ".remote", "only grid cells have remote links");
  Layer l;
  l.type = c.at(path + ".type", [&] { return parse_layer_type(c.str(c.need(j, path, "type"), path + ".type")); });
  l.dtype = dtype;
  if (j.contains("dtype")) l.dtype = c.at(path + ".dtype", [&] { return parse_dtype(c.str(j["dtype"], path + ".dtype")); });
  if (j.contains("activation"))
    l.act = c.at(path + ".activation", [&] { return parse_activation(c.str(j["activation"], path + ".activation")); });
  auto field = [&](const char* key, uint32_t& dst, bool positive) {
    if (j.contains(key)) dst = c.uint(j[key], path + "." + key, positive);
  };
  field("in", l.in, true);
  field("out", l.out, true);
  field("seq", l.seq, true);
  field("channels", l.channels, true);
  field("filters", l.filters, true);
  field("kernel", l.kernel, true);
  field("height", l.height, true);
  field("depth", l.depth, true);
  field("width", l.width, true);
  field("heads", l.heads, true);
  field("vocab", l.vocab, true);
  if (j.contains("eps")) {
    // Kept as a float: a positive double that rounds to 0 there (1e-46) or is beyond its range
    // is refused too (found by fuzzing checkpoints: such a model saved eps 0 and would not load).
    const double eps = j["eps"].is_number() ? j["eps"].get<double>() : 0.0;
    if (!(eps > 0 && eps <= std::numeric_limits<float>::max() && float(eps) > 0))
      c.bad(path + ".eps", "expected a positive number a 32-bit float holds (1.4e-45 to 3.4e38), got " + j["eps"].dump());
    l.eps = float(eps);
  }
  if (j.contains("combine")) {
    const std::string s = c.str(j["combine"], path + ".combine");
    if (s == "concat") l.combine = Combine::Concat;
    else if (s == "add") l.combine = Combine::Add;
    else c.bad(path + ".combine", "expected \"concat\" or \"add\", got \"" + s + "\"");
  }
  if (j.contains("children")) {
    const json& ch = j["children"];
    if (!ch.is_array()) c.bad(path + ".children", "expected an array of layers");
    for (size_t i = 0; i < ch.size(); ++i)
      l.children.push_back(parse_layer(c, ch[i], path + ".children[" + std::to_string(i) + "]", l.dtype, false));
  }
  return l;
}

std::string line_col(const std::string& text, size_t byte) {
  size_t line = 1, col = 1;
  for (size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace

Network parse_model(const json& j, const std::string& source_name) {
  const Ctx c{source_name};
  c.keys(j, "(top)", {"grid", "layers"});
  const json& g = c.need(j, "(top)", "grid");
  c.keys(g, "grid", kGridKeys);
  const uint32_t depth = c.uint(c.need(g, "grid", "depth"), "grid.depth", true);
  const uint32_t rows = c.uint(c.need(g, "grid", "rows"), "grid.rows", true);
  const uint32_t cols = c.uint(c.need(g, "grid", "cols"), "grid.cols", true);
  const uint32_t lpc = c.uint(c.need(g, "grid", "layers_per_cell"), "grid.layers_per_cell", true);
  const uint32_t input = c.uint(c.need(g, "grid", "input"), "grid.input", true);
  const uint32_t seed = g.contains("seed") ? c.uint(g["seed"], "grid.seed", false) : 1u;
  const DType dtype = g.contains("dtype") ? c.at("grid.dtype", [&] { return parse_dtype(c.str(g["dtype"], "grid.dtype")); }) : DType::F32;
  Network net = c.at("grid", [&] { return Network(depth, rows, cols, lpc, input); });

  const json& layers = c.need(j, "(top)", "layers");
  if (!layers.is_array()) c.bad("layers", "expected an array");
  std::vector<bool> given(net.size(), false);
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string path = "layers[" + std::to_string(i) + "]";
    if (!layers[i].is_object()) c.bad(path, "expected an object");
    const Coord at = c.coord(c.need(layers[i], path, "at"), path + ".at");
    const uint32_t idx = c.at(path + ".at", [&] { return net.index(at); });
    if (given[idx]) c.bad(path + ".at", net.where(idx) + " is given twice");
    given[idx] = true;
    Layer l = parse_layer(c, layers[i], path, dtype, true);
    if (layers[i].contains("remote")) {
      const Coord r = c.coord(layers[i]["remote"], path + ".remote");
      l.remote = c.at(path + ".remote", [&] { return net.index(r); });
    }
    const uint32_t lseed = layers[i].contains("seed") ? c.uint(layers[i]["seed"], path + ".seed", false) : seed * 7919u + idx;
    c.at(path, [&] {
      init_layer(l, lseed, net.where(idx));
      return 0;
    });
    net.at(idx) = std::move(l);
  }
  for (uint32_t i = 0; i < net.size(); ++i)
    if (!given[i]) c.bad("layers", net.where(i) + " is not given (every cell needs a layer)");
  c.at("layers", [&] {
    net.validate();
    return 0;
  });
  return net;
}

Network parse_model(const std::string& text, const std::string& source_name) {
  json j;
  try {
    check_json_nesting(text, source_name);
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    // e.byte is one past the offending character.
    fail(ErrorCode::BadInput, source_name + ":" + line_col(text, e.byte ? e.byte - 1 : 0) + ": JSON syntax error: " + e.what());
  } catch (const json::out_of_range& e) {  // a number beyond double's range (1e400)
    fail(ErrorCode::BadInput, source_name + ": JSON number out of range: " + e.what());
  }
  return parse_model(j, source_name);
}

Network load_model(const std::string& path) {
  return parse_model(read_text_file(path, "cannot open the model file"), path);
}

}  // namespace weft::volumetric
