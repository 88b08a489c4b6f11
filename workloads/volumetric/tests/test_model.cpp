// The grid model and its JSON file format: traversal order, remote links, nested containers,
// and malformed files refused with the offending key named.
#include <doctest/doctest.h>

#include <string>

#include <weft/error.h>

#include "model.h"
#include "reference.h"

using namespace weft::volumetric;

namespace {

const char* kGood = R"({
  "grid": {"depth": 2, "rows": 1, "cols": 2, "layers_per_cell": 1, "input": 6, "seed": 3, "dtype": "int8"},
  "layers": [
    {"at": [0, 0, 0, 0], "type": "dense", "in": 6, "out": 4, "activation": "tanh"},
    {"at": [0, 0, 1, 0], "type": "residual", "children": [
        {"type": "rmsnorm", "in": 4},
        {"type": "parallel", "combine": "add", "children": [
            {"type": "dense", "in": 4, "out": 4, "dtype": "fp4_e2m1"},
            {"type": "sequential", "children": [{"type": "dense", "in": 4, "out": 4}, {"type": "layernorm", "in": 4}]}]}]},
    {"at": [1, 0, 0, 0], "type": "dense", "in": 4, "out": 4, "remote": [1, 0, 1, 0]},
    {"at": [1, 0, 1, 0], "type": "softmax", "in": 4, "remote": [0, 0, 1, 0]}
  ]
})";

std::string error_of(const std::string& text) {
  try {
    parse_model(text, "m.json");
  } catch (const weft::Error& e) {
    CHECK(e.code() == weft::ErrorCode::BadInput);
    return e.what();
  }
  return "(accepted)";
}

// kGood with `from` replaced by `to` (exactly once).
std::string edit(const std::string& from, const std::string& to) {
  std::string s = kGood;
  const size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  return s.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("volumetric model: flat index and coordinates follow z, y, x, l") {
  Network net(2, 3, 4, 5, 1);
  uint32_t expect = 0;
  for (uint32_t z = 0; z < 2; ++z)
    for (uint32_t y = 0; y < 3; ++y)
      for (uint32_t x = 0; x < 4; ++x)
        for (uint32_t l = 0; l < 5; ++l) {
          CHECK(net.index({z, y, x, l}) == expect);
          CHECK(net.coord(expect) == Coord{z, y, x, l});
          ++expect;
        }
  CHECK(expect == net.size());
  CHECK_THROWS_AS(net.index({0, 3, 0, 0}), weft::Error);
}

TEST_CASE("volumetric model: a JSON grid with nested containers and remote links") {
  Network net = parse_model(std::string(kGood), "m.json");
  CHECK(net.size() == 4);
  CHECK(net.at(Coord{0, 0, 0, 0}).dtype == DType::I8);
  const Layer& res = net.at(Coord{0, 0, 1, 0});
  REQUIRE(res.type == LayerType::Residual);
  REQUIRE(res.children.size() == 2);
  CHECK(res.children[1].type == LayerType::Parallel);
  CHECK(res.children[1].combine == Combine::Add);
  CHECK(res.children[1].children[0].dtype == DType::FP4);
  CHECK(res.children[1].children[1].children[1].type == LayerType::LayerNorm);
  CHECK(net.source(2) == 3u);  // a link forward in the traversal
  CHECK(net.source(3) == 1u);
  CHECK(net.source(1) == 0u);
  CHECK(!net.source(0));
  CHECK(layer_output_size(res) == 4);
}

TEST_CASE("volumetric model: C++-built grid matches the same grid loaded from JSON") {
  Network a = parse_model(std::string(kGood), "m.json");
  Network b(2, 1, 2, 1, 6);
  Layer d;
  d.type = LayerType::Dense;
  d.in = 6;
  d.out = 4;
  d.act = Activation::Tanh;
  d.dtype = DType::I8;
  init_layer(d, 3u * 7919u + 0u, "x");
  b.at(0) = d;
  CHECK(a.at(0).mats[0].master() == b.at(0).mats[0].master());
  CHECK(a.at(0).vecs[0] == b.at(0).vecs[0]);
}

TEST_CASE("volumetric model: nesting past the limit is refused before any recursion (regressions: 100,000 levels crashed)") {
  const std::string deep = "{\"grid\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
  CHECK(error_of(deep).find("m.json:1:265: nesting deeper than 256 levels") != std::string::npos);
  // 2,000 nested containers (took quadratic time and memory, then crashed at ~5,000).
  std::string containers = "{\"type\": \"dense\", \"in\": 4, \"out\": 4}";
  for (int k = 0; k < 2000; ++k) containers = "{\"type\": \"sequential\", \"children\": [" + containers + "]}";
  CHECK(error_of(edit("{\"type\": \"rmsnorm\", \"in\": 4}", containers)).find("nesting deeper than 256 levels") != std::string::npos);
}

TEST_CASE("volumetric model: malformed files are refused naming the key") {
  CHECK(error_of("{\"grid\": {\"depth\": 1,,}}").find("m.json:1:") != std::string::npos);
  CHECK(error_of(edit("\"rows\": 1", "\"rows\": 1e400")).find("m.json: JSON number out of range") != std::string::npos);
  CHECK(error_of(edit("\"depth\": 2, ", "")).find("grid: missing key \"depth\"") != std::string::npos);
  CHECK(error_of(edit("\"rows\": 1", "\"rows\": 0")).find("grid.rows: expected a positive integer") != std::string::npos);
  CHECK(error_of(edit("\"dtype\": \"int8\"", "\"dtype\": \"int9\"")).find("grid.dtype") != std::string::npos);
  CHECK(error_of(edit("\"activation\": \"tanh\"", "\"activation\": \"gelu\"")).find("layers[0].activation") != std::string::npos);
  CHECK(error_of(edit("\"type\": \"softmax\"", "\"type\": \"softmaxx\"")).find("layers[3].type") != std::string::npos);
  CHECK(error_of(edit("\"out\": 4, \"activation\"", "\"outt\": 4, \"activation\"")).find("layers[0].outt: unknown key") !=
        std::string::npos);
  CHECK(error_of(edit("\"remote\": [1, 0, 1, 0]", "\"remote\": [1, 0, 2, 0]")).find("layers[2].remote") != std::string::npos);
  CHECK(error_of(edit("\"remote\": [1, 0, 1, 0]", "\"remote\": [1, 0]")).find("layers[2].remote: expected [z, y, x, l]") !=
        std::string::npos);
  CHECK(error_of(edit("\"at\": [1, 0, 1, 0]", "\"at\": [1, 0, 0, 0]")).find("layers[3].at: cell (1, 0, 0, 0) is given twice") !=
        std::string::npos);
  CHECK(error_of(edit("\"combine\": \"add\"", "\"combine\": \"mul\"")).find("layers[1].children[1].combine") != std::string::npos);
  CHECK(error_of(edit("{\"type\": \"rmsnorm\", \"in\": 4}", "{\"type\": \"rmsnorm\", \"in\": 4, \"at\": [0,0,0,0]}"))
            .find("layers[1].children[0].at") != std::string::npos);
  // A shape that does not chain: the cell is named.
  CHECK(error_of(edit("\"in\": 6, \"out\": 4", "\"in\": 5, \"out\": 4")).find("cell (0, 0, 0, 0) (dense) takes 5 values") !=
        std::string::npos);
  // A container child with the wrong input size: its path is named.
  CHECK(error_of(edit("{\"type\": \"layernorm\", \"in\": 4}", "{\"type\": \"layernorm\", \"in\": 3}")).find("children[1]") !=
        std::string::npos);
  CHECK(error_of(edit(R"({"at": [1, 0, 1, 0], "type": "softmax", "in": 4, "remote": [0, 0, 1, 0]})", R"({"at": [1, 0, 1, 0]})"))
            .find("layers[3]: missing key \"type\"") != std::string::npos);
  CHECK(error_of(edit(R"(,
    {"at": [1, 0, 1, 0], "type": "softmax", "in": 4, "remote": [0, 0, 1, 0]})", ""))
            .find("cell (1, 0, 1, 0) is not given") != std::string::npos);
  CHECK_THROWS_AS(load_model("/nonexistent/model.json"), weft::Error);
  // Shapes that would overflow or allocate without bound are refused, not attempted.
  CHECK(error_of(edit("\"in\": 6, \"out\": 4", "\"in\": 6, \"out\": 1073741824")).find("layers[0]") != std::string::npos);
  CHECK(error_of(edit("\"in\": 6, \"out\": 4", "\"in\": 65536, \"out\": 65536")).find("exceed 2^26") != std::string::npos);
}

// Regression (fuzzing checkpoints): eps is kept as a float, and a positive double that rounds to
// 0 there was accepted, so the model saved eps 0 and its checkpoint would not load again.
TEST_CASE("volumetric model: eps must be a positive number a float holds") {
  const std::string norm = "{\"type\": \"rmsnorm\", \"in\": 4}";
  for (const char* eps : {"7e-46", "1e-300", "1e39", "0", "-1", "\"small\""}) {
    CAPTURE(eps);
    CHECK(error_of(edit(norm, "{\"type\": \"rmsnorm\", \"in\": 4, \"eps\": " + std::string(eps) + "}"))
              .find("layers[1].children[0].eps: expected a positive number a 32-bit float holds") != std::string::npos);
  }
  CHECK(error_of(edit(norm, "{\"type\": \"rmsnorm\", \"in\": 4, \"eps\": 1.5e-45}")) == "(accepted)");
  CHECK(error_of(edit(norm, "{\"type\": \"rmsnorm\", \"in\": 4, \"eps\": 1e-5}")) == "(accepted)");
}
