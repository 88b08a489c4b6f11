#include "checkpoint.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>
#include <weft/error.h>
#include <weft/input_file.h>

namespace weft::volumetric {

namespace {

using nlohmann::json;
constexpr char kMagic[8] = {'W', 'E', 'F', 'T', 'V', 'O', 'L', '1'};

json layer_json(const Layer& l) {
  json j;
  j["type"] = layer_type_name(l.type);
  j["dtype"] = dtype_name(l.dtype);
  if (l.act != Activation::Linear) j["activation"] = activation_name(l.act);
  for (auto [k, v] : {std::pair<const char*, uint32_t>{"in", l.in}, {"out", l.out}, {"channels", l.channels}, {"filters", l.filters},
                      {"kernel", l.kernel}, {"height", l.height}, {"width", l.width}, {"depth", l.depth}, {"vocab", l.vocab}})
    if (v) j[k] = v;
  j["seq"] = l.seq;
  j["heads"] = l.heads;
  j["eps"] = l.eps;
  if (l.type == LayerType::Parallel) j["combine"] = l.combine == Combine::Add ? "add" : "concat";
  if (!l.children.empty()) {
    j["children"] = json::array();
    for (const Layer& c : l.children) j["children"].push_back(layer_json(c));
  }
  return j;
}

struct Writer {
  std::ostream& f;
  void raw(const void* p, size_t n) { f.write(static_cast<const char*>(p), std::streamsize(n)); }
  template <class T>
  void put(T v) { raw(&v, sizeof v); }
};

struct Reader {
  const std::string& path;  // names the bytes in errors (the file's path)
  const std::string& data;
  size_t pos = 0;
  [[noreturn]] void bad(const std::string& what) const { bad_at(pos, what); }
  [[noreturn]] void bad_at(size_t at, const std::string& what) const {
    fail(ErrorCode::BadInput, path + ": byte " + std::to_string(at) + ": " + what);
  }
  void raw(void* p, size_t n, const char* what) {
    if (n > data.size() - pos) bad(std::string("truncated (") + what + ")");
    if (n == 0) return;  // p may be null (an f32 matrix has no scales): memcpy(null, _, 0) is undefined
    std::memcpy(p, data.data() + pos, n);
    pos += n;
  }
  template <class T>
  T get(const char* what) {
    T v;
    raw(&v, sizeof v, what);
    return v;
  }
};

void save_layer(Writer& w, Layer& l) {
  for (WeightStore& m : l.mats) {
    const Packed& p = m.morph(l.dtype);
    w.put(uint32_t(p.dtype));
    w.put(p.rows);
    w.put(p.cols);
    w.put(p.row_words);
    w.put(uint64_t(p.words.size()));
    w.put(uint64_t(p.scales.size()));
    w.raw(p.words.data(), p.words.size() * 4);
    w.raw(p.scales.data(), p.scales.size() * 4);
  }
  for (const auto& v : l.vecs) {
    w.put(uint64_t(v.size()));
    w.raw(v.data(), v.size() * 4);
  }
  for (Layer& c : l.children) save_layer(w, c);
}

// The index of the first value that is NaN or infinite, or npos.
size_t first_non_finite(const std::vector<float>& v) {
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i])) return i;
  return std::string::npos;
}

void load_layer(Reader& r, Layer& l, const std::string& where) {
  for (size_t k = 0; k < l.mats.size(); ++k) {
    Packed p;
    const uint32_t t = r.get<uint32_t>("dtype");
    if (t >= kDTypeCount) r.bad(where + ": numeric type " + std::to_string(t) + " unknown");
    p.dtype = DType(t);
    if (p.dtype != l.dtype) r.bad(where + ": matrix stored as " + dtype_name(p.dtype) + ", the model says " + dtype_name(l.dtype));
    p.rows = r.get<uint32_t>("rows");
    p.cols = r.get<uint32_t>("cols");
    p.row_words = r.get<uint32_t>("row words");
    const uint64_t nw = r.get<uint64_t>("word count"), ns = r.get<uint64_t>("scale count");
    const WeightStore& m = l.mats[k];
    const uint64_t want_rw = (uint64_t(p.cols) * dtype_bits(p.dtype) + 31) / 32;
    if (p.rows != m.rows() || p.cols != m.cols() || p.row_words != want_rw || nw != uint64_t(p.rows) * p.row_words ||
        ns != uint64_t(p.rows) * p.blocks_per_row() * dtype_scale_floats(p.dtype))
      r.bad(where + ": matrix " + std::to_string(k) + " shape does not match the model");
    p.words.resize(nw);
    p.scales.resize(ns);
    const size_t words_at = r.pos;
    r.raw(p.words.data(), nw * 4, "words");
    r.raw(p.scales.data(), ns * 4, "scales");
    l.mats[k].load_packed(std::move(p));
    // Masters are finite everywhere else (pack() refuses NaN and infinities); a loaded NaN would
    // run silently through every output, or fail later as a pack error naming no file.
    if (const size_t i = first_non_finite(m.master()); i != std::string::npos)
      r.bad_at(words_at, where + ": matrix " + std::to_string(k) + " weight (row " + std::to_string(i / m.cols()) + ", column " +
                             std::to_string(i % m.cols()) + ") is not finite");
  }
  for (size_t k = 0; k < l.vecs.size(); ++k) {
    const uint64_t n = r.get<uint64_t>("vector length");
    if (n != l.vecs[k].size()) r.bad(where + ": vector " + std::to_string(k) + " has " + std::to_string(n) + " values");
    const size_t values_at = r.pos;
    r.raw(l.vecs[k].data(), n * 4, "vector");
    if (const size_t i = first_non_finite(l.vecs[k]); i != std::string::npos)
      r.bad_at(values_at + i * 4, where + ": vector " + std::to_string(k) + " value " + std::to_string(i) + " is not finite");
  }
  for (size_t c = 0; c < l.children.size(); ++c) load_layer(r, l.children[c], where + ".children[" + std::to_string(c) + "]");
}

}  // namespace

std::string model_to_json(const Network& net) {
  json j;
  j["grid"] = {{"depth", net.depth()}, {"rows", net.rows()}, {"cols", net.cols()}, {"layers_per_cell", net.layers_per_cell()},
               {"input", net.input_size()}};
  j["layers"] = json::array();
  for (uint32_t i = 0; i < net.size(); ++i) {
    json l = layer_json(net.at(i));
    const Coord c = net.coord(i);
    l["at"] = {c.z, c.y, c.x, c.l};
    if (net.at(i).remote) {
      const Coord r = net.coord(*net.at(i).remote);
      l["remote"] = {r.z, r.y, r.x, r.l};
    }
    j["layers"].push_back(l);
  }
  return j.dump(1);
}

namespace {

void write_checkpoint(std::ostream& out, Network& net) {
  Writer w{out};
  const std::string text = model_to_json(net);
  w.raw(kMagic, 8);
  w.put(uint64_t(text.size()));
  w.raw(text.data(), text.size());
  for (Layer& l : net.cells()) save_layer(w, l);
}

}  // namespace

void save_checkpoint(Network& net, const std::string& path) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) fail(ErrorCode::BadInput, path + ": cannot write the checkpoint");
  write_checkpoint(f, net);
  f.close();
  if (!f) fail(ErrorCode::BadInput, path + ": writing the checkpoint failed");
}

std::string checkpoint_bytes(Network& net) {
  std::ostringstream out(std::ios::binary);
  write_checkpoint(out, net);
  return std::move(out).str();
}

Network parse_checkpoint(const std::string& bytes, const std::string& source_name) {
  Reader r{source_name, bytes};
  char magic[8];
  r.raw(magic, 8, "magic");
  if (std::memcmp(magic, kMagic, 8) != 0) r.bad("not a volumetric checkpoint (magic)");
  const uint64_t n = r.get<uint64_t>("model length");
  if (n > r.data.size() - r.pos) r.bad("truncated (model text)");
  const std::string text = r.data.substr(r.pos, n);
  r.pos += n;
  Network net = parse_model(text, source_name + " (model)");
  for (uint32_t i = 0; i < net.size(); ++i) load_layer(r, net.at(i), net.where(i));
  if (r.pos != r.data.size()) r.bad("trailing bytes after the last layer");
  return net;
}

Network load_checkpoint(const std::string& path) {
  return parse_checkpoint(read_text_file(path, "cannot open the checkpoint", kDataFileBytes), path);
}

}  // namespace weft::volumetric
