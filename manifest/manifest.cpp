// Manifest parsing: TOML -> weft::Manifest, with every problem named by file and key path.
// Building and running the parsed manifest lives in manifest_run.cpp.
#include "manifest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include <weft/input_file.h>

#include "manifest_toml.h"

namespace weft {

using manifest_detail::bad;
using manifest_detail::Number;
using manifest_detail::Table;
using manifest_detail::type_name;

namespace {

namespace fs = std::filesystem;

// Names end up inside references ("heap.x", "control.gain[1]"), so no dots or brackets.
void check_name(const Table& t, const char* k, const std::string& name) {
  bool ok = !name.empty() && (std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_');
  for (char c : name) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-');
  if (!ok) t.bad_key(k, "'" + name + "' is not a valid name (letters, digits, '_' and '-', starting with a letter or '_')");
}

// Every element of an array-of-tables key, with its "key[i]" path.
template <class F>
void each_table(const Table& root, const char* k, F&& f) {
  const toml::node* n = root.get(k);
  if (!n) return;
  if (!n->is_array()) bad(root.file(), k, std::string("expected an array of tables ([[") + k + "]]), got " + type_name(*n), n);
  const toml::array& a = *n->as_array();
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string path = std::string(k) + "[" + std::to_string(i) + "]";
    if (!a[i].is_table()) bad(root.file(), path, std::string("expected a table, got ") + type_name(a[i]), &a[i]);
    f(*a[i].as_table(), path);
  }
}

std::string resolve(const Manifest& m, const std::string& rel) { return (fs::path(m.dir) / rel).lexically_normal().string(); }

// One scalar in a dtype's little-endian bytes; refuses values the dtype cannot hold.
void encode_scalar(const Number& v, DType t, const std::string& file, const std::string& where, std::vector<uint8_t>* out) {
  uint8_t bytes[8] = {};
  if (dtype_is_float(t)) {
    const double d = v.as_double();
    if (t == DType::F64) std::memcpy(bytes, &d, 8);
    else if (t == DType::F32) {
      const float f = float(d);
      std::memcpy(bytes, &f, 4);
    } else {
      const uint16_t h = float_to_half(float(d));
      std::memcpy(bytes, &h, 2);
    }
  } else {
    if (!v.is_int) bad(file, where, "value " + std::to_string(v.d) + " is not an integer, but the dtype is " + dtype_descr(t));
    const size_t size = dtype_size(t);
    const bool is_signed = dtype_is_signed(t);
    const int64_t lo = t == DType::Bool ? 0 : is_signed ? (size == 8 ? INT64_MIN : -(int64_t(1) << (8 * size - 1))) : 0;
    const int64_t hi = t == DType::Bool ? 1 : is_signed ? (size == 8 ? INT64_MAX : (int64_t(1) << (8 * size - 1)) - 1)
                                                        : (size == 8 ? INT64_MAX : (int64_t(1) << (8 * size)) - 1);
    if (v.i < lo || v.i > hi)
      bad(file, where, "value " + std::to_string(v.i) + " does not fit " + dtype_descr(t) + " [" + std::to_string(lo) + ", " +
                           std::to_string(hi) + "]");
    std::memcpy(bytes, &v.i, size);  // little-endian host: the low bytes
  }
  out->insert(out->end(), bytes, bytes + dtype_size(t));
}

std::vector<uint64_t> read_shape(const Table& t, const char* k) {
  std::vector<uint64_t> shape;
  const toml::array* a = t.array(k);
  if (!a) return shape;
  for (size_t i = 0; i < a->size(); ++i)
    shape.push_back(uint64_t(t.integer_node((*a)[i], t.key(k) + "[" + std::to_string(i) + "]", 0, INT64_MAX)));
  return shape;
}

uint64_t product(const std::vector<uint64_t>& shape) {
  uint64_t n = 1;
  for (uint64_t d : shape) n = d && n > UINT64_MAX / d ? UINT64_MAX : n * d;
  return n;
}

std::string shape_string(const std::vector<uint64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

void parse_kernels(Manifest& m, const Table& root) {
  each_table(root, "kernels", [&](const toml::table& tt, const std::string& path) {
    Table t(m.path, tt, path, {"name", "file", "defines", "include_dirs"});
    ManifestKernel k;
    k.name = t.str("name", true);
    check_name(t, "name", k.name);
    for (const auto& other : m.kernels)
      if (other.name == k.name) t.bad_key("name", "duplicate kernel name '" + k.name + "'");
    k.path = resolve(m, t.str("file", true));
    std::error_code ec;  // the throwing form lets e.g. "File name too long" escape as filesystem_error
    if (!fs::is_regular_file(k.path, ec)) t.bad_key("file", "kernel source '" + k.path + "' does not exist");
    if (const toml::node* d = t.get("defines")) {
      if (!d->is_table()) t.bad_key("defines", std::string("expected a table of NAME = value, got ") + type_name(*d));
      for (auto&& [name, v] : *d->as_table()) {
        const std::string where = t.key("defines") + "." + std::string(name.str());
        std::string value;
        if (v.is_string()) value = v.as_string()->get();
        else if (v.is_integer()) value = std::to_string(v.as_integer()->get());
        else if (v.is_floating_point()) {
          std::ostringstream s;
          s.precision(9);
          s << std::showpoint << v.as_floating_point()->get();
          value = s.str();
        } else if (v.is_boolean()) value = v.as_boolean()->get() ? "1" : "0";
        else bad(m.path, where, std::string("expected a string, number or boolean, got ") + type_name(v), &v);
        k.options.defines.emplace_back(std::string(name.str()), value);
      }
    }
    for (const auto& dir : t.strings("include_dirs")) k.options.include_dirs.push_back(resolve(m, dir.text));
    m.kernels.push_back(std::move(k));
  });
}

void parse_segments(Manifest& m, const Table& root, const char* section, Binding binding) {
  each_table(root, section, [&](const toml::table& tt, const std::string& path) {
    Table t(m.path, tt, path, {"name", "file", "dtype", "shape", "count", "fill", "align", "far", "record_bytes"});
    ManifestSegment s;
    s.key = path;
    s.binding = binding;
    s.name = t.str("name", true);
    check_name(t, "name", s.name);
    for (const auto& other : m.segments)
      if (other.binding == binding && other.name == s.name) t.bad_key("name", std::string("duplicate ") + section + " segment '" + s.name + "'");
    const int64_t align = t.integer("align", false, 256, 4, 1 << 16);
    if (align & (align - 1)) t.bad_key("align", "alignment " + std::to_string(align) + " is not a power of two");
    s.align = uint64_t(align);
    s.far = t.boolean("far", false);
    if (s.far && t.has("align")) t.bad_key("align", "a far segment has allocations of its own; align does not apply");
    if (!s.far && t.has("record_bytes")) t.bad_key("record_bytes", "record_bytes is only used with far = true");
    s.record_bytes = uint64_t(t.integer("record_bytes", false, 4, 4, int64_t(1) << 32));
    if (s.record_bytes % 4) t.bad_key("record_bytes", "a record is a whole number of 32-bit words");
    const bool has_dtype = t.has("dtype");
    const DType dtype = has_dtype ? parse_dtype(t.str("dtype", false), m.path + ": " + t.key("dtype")) : DType::F32;
    std::vector<uint64_t> shape = read_shape(t, "shape");
    const bool has_count = t.has("count");
    const uint64_t count = uint64_t(t.integer("count", false, 0, 0, INT64_MAX));
    if (has_count && !shape.empty() && product(shape) != count)
      t.bad_key("count", "count " + std::to_string(count) + " does not match shape " + shape_string(shape));
    if (t.has("file")) {
      if (t.has("fill")) t.bad_key("fill", "give either file or fill, not both");
      const std::string file = resolve(m, t.str("file", true));
      try {
        s.initial = read_npy(file);
      } catch (const Error& e) {
        bad(m.path, t.key("file"), std::string(e.what()).substr(std::string(to_string(e.code())).size() + 2), t.get("file"));
      }
      if (has_dtype && dtype != s.initial.dtype)
        t.bad_key("dtype", std::string("declared ") + dtype_descr(dtype) + " but the file holds " + dtype_descr(s.initial.dtype));
      if (!shape.empty() && shape != s.initial.shape)
        t.bad_key("shape", "declared " + shape_string(shape) + " but the file has shape " + shape_string(s.initial.shape));
      if (has_count && count != s.initial.count())
        t.bad_key("count", "declared " + std::to_string(count) + " elements but the file has " + std::to_string(s.initial.count()));
    } else {
      if (!has_count && shape.empty()) t.missing("count", "a segment without a file needs count or shape");
      if (shape.empty()) shape = {count};
      Number fill;
      if (!t.number("fill", &fill)) fill = {};
      s.initial.dtype = dtype;
      s.initial.shape = shape;
      const uint64_t n = product(shape);
      // A fill is materialised on the host before upload; bulk data belongs in a .npy file.
      if (n > (uint64_t(1) << 32) / dtype_size(dtype)) t.bad_key(has_count ? "count" : "shape", "a filled segment is limited to 4 GiB");
      std::vector<uint8_t> one;
      encode_scalar(fill, dtype, m.path, t.key("fill"), &one);
      try {
        s.initial.data.reserve(n * one.size());
      } catch (const std::bad_alloc&) {
        fail(ErrorCode::OutOfMemory, m.path + ": " + path + ": cannot allocate " + std::to_string(n * one.size()) + " bytes");
      }
      for (uint64_t i = 0; i < n; ++i) s.initial.data.insert(s.initial.data.end(), one.begin(), one.end());
    }
    m.segments.push_back(std::move(s));
  });
}

void parse_instances(Manifest& m, const Table& root) {
  each_table(root, "instances", [&](const toml::table& tt, const std::string& path) {
    Table t(m.path, tt, path, {"name", "width", "inbox"});
    ManifestInstance in;
    in.key = path;
    in.name = t.str("name", true);
    check_name(t, "name", in.name);
    for (const auto& other : m.instances)
      if (other.name == in.name) t.bad_key("name", "duplicate instance name '" + in.name + "'");
    in.width = uint32_t(t.integer("width", true, 1, 1, 1 << 24));
    if (t.has("inbox")) {
      const std::string file = resolve(m, t.str("inbox", true));
      NpyArray a;
      try {
        a = read_npy(file);
      } catch (const Error& e) {
        bad(m.path, t.key("inbox"), std::string(e.what()).substr(std::string(to_string(e.code())).size() + 2), t.get("inbox"));
      }
      if (a.data.size() > uint64_t(in.width) * 4)
        t.bad_key("inbox", "the file holds " + std::to_string(a.data.size()) + " bytes but a register of width " +
                               std::to_string(in.width) + " holds " + std::to_string(in.width * 4));
      in.inbox = std::move(a.data);
    }
    m.instances.push_back(std::move(in));
  });
}

void parse_chain(Manifest& m, const Table& root) {
  const toml::array* chain = root.array("chain");
  if (!chain) return;
  auto one_chain = [&](const toml::array& a, const std::string& path) {
    std::string prev;
    for (size_t i = 0; i < a.size(); ++i) {
      const std::string where = path + "[" + std::to_string(i) + "]";
      if (!a[i].is_string()) bad(m.path, where, std::string("expected an instance name, got ") + type_name(a[i]), &a[i]);
      const std::string name = a[i].as_string()->get();
      bool known = false;
      for (const auto& in : m.instances) known = known || in.name == name;
      if (!known) bad(m.path, where, "unknown instance '" + name + "'", &a[i]);
      if (!prev.empty()) {
        for (const auto& [from, to] : m.connections)
          if (to == name) bad(m.path, where, "instance '" + name + "' already receives from '" + from + "'", &a[i]);
        if (prev == name) bad(m.path, where, "instance '" + name + "' cannot read its own outbox", &a[i]);
        // Walking back from prev along who-receives-from-whom must not reach name: a cycle has no
        // first instance, so no message order.
        for (std::string at = prev;;) {
          const auto in = std::find_if(m.connections.begin(), m.connections.end(), [&](const auto& c) { return c.second == at; });
          if (in == m.connections.end()) break;
          if (in->first == name) bad(m.path, where, "instance '" + name + "' closes a cycle (it already sends to '" + prev + "' through the chain)", &a[i]);
          at = in->first;
        }
        m.connections.emplace_back(prev, name);
      }
      prev = name;
    }
  };
  // chain = ["a", "b", "c"], or several: chain = [["a", "b"], ["x", "y"]]
  if (!chain->empty() && (*chain)[0].is_array()) {
    for (size_t c = 0; c < chain->size(); ++c) {
      const std::string where = "chain[" + std::to_string(c) + "]";
      if (!(*chain)[c].is_array()) bad(m.path, where, std::string("expected an array of instance names, got ") + type_name((*chain)[c]), &(*chain)[c]);
      one_chain(*(*chain)[c].as_array(), where);
    }
  } else {
    one_chain(*chain, "chain");
  }
}

void parse_slots_and_control(Manifest& m, const Table& root) {
  each_table(root, "slots", [&](const toml::table& tt, const std::string& path) {
    Table t(m.path, tt, path, {"name", "groups"});
    ManifestSlot s;
    s.key = path;
    s.name = t.str("name", true);
    check_name(t, "name", s.name);
    for (const auto& other : m.slots)
      if (other.name == s.name) t.bad_key("name", "duplicate slot name '" + s.name + "'");
    if (!t.has("groups")) t.missing("groups", "the dispatch size a run starts from, e.g. groups = [4, 1, 1]");
    s.groups = t.groups("groups");
    m.slots.push_back(std::move(s));
  });
  each_table(root, "control", [&](const toml::table& tt, const std::string& path) {
    Table t(m.path, tt, path, {"name", "dtype", "values", "value", "count"});
    ManifestControl c;
    c.key = path;
    c.name = t.str("name", true);
    check_name(t, "name", c.name);
    if (c.name == "header") t.bad_key("name", "'header' is reserved (control.header is the run header)");
    for (const auto& other : m.controls)
      if (other.name == c.name) t.bad_key("name", "duplicate control block '" + c.name + "'");
    std::vector<std::pair<Number, std::string>> values;
    if (const toml::array* a = t.array("values")) {
      if (t.has("value")) t.bad_key("value", "give either values or value (with count), not both");
      for (size_t i = 0; i < a->size(); ++i) {
        const std::string where = t.key("values") + "[" + std::to_string(i) + "]";
        values.push_back({t.number_node((*a)[i], where), where});
      }
      if (t.has("count") && uint64_t(t.integer("count", true, 0, 1, 1 << 20)) != values.size())
        t.bad_key("count", "count does not match the " + std::to_string(values.size()) + " values given");
    } else {
      Number v;
      if (!t.number("value", &v)) t.missing("values", "values = [...] or value = x with count = n");
      const int64_t n = t.integer("count", false, 1, 1, 1 << 20);
      for (int64_t i = 0; i < n; ++i) values.push_back({v, t.key("value")});
    }
    if (values.empty()) t.bad_key("values", "a control block needs at least one word");
    bool any_float = false;
    for (const auto& [v, w] : values) any_float = any_float || !v.is_int;
    c.dtype = t.has("dtype") ? parse_dtype(t.str("dtype", true), m.path + ": " + t.key("dtype")) : any_float ? DType::F32 : DType::U32;
    if (c.dtype != DType::F32 && c.dtype != DType::U32 && c.dtype != DType::I32)
      t.bad_key("dtype", std::string("control words are 32-bit: f4, u4 or i4, not ") + dtype_descr(c.dtype));
    for (const auto& [v, where] : values) {
      std::vector<uint8_t> b;
      encode_scalar(v, c.dtype, m.path, where, &b);
      uint32_t w;
      std::memcpy(&w, b.data(), 4);
      c.words.push_back(w);
    }
    m.controls.push_back(std::move(c));
  });
}

void parse_outputs(Manifest& m, const Table& root) {
  each_table(root, "outputs", [&](const toml::table& tt, const std::string& path) {
    Table t(m.path, tt, path, {"source", "file", "dtype", "shape"});
    ManifestOutput o;
    o.key = path;
    o.source = {t.str("source", true), t.key("source"), manifest_detail::line_of(t.get("source"))};
    std::string def = o.source.text;
    for (char& c : def)
      if (c == '.' || c == '[' || c == ']') c = '_';
    o.file = t.str("file", false, def + ".npy");
    const fs::path f(o.file);
    if (f.is_absolute() || o.file.empty() || o.file.find("..") != std::string::npos)
      t.bad_key("file", "'" + o.file + "' must be a relative path inside the output folder");
    for (const auto& other : m.outputs)
      if (other.file == o.file) t.bad_key("file", "two outputs write '" + o.file + "'");
    if (t.has("dtype")) {
      o.dtype = parse_dtype(t.str("dtype", true), m.path + ": " + t.key("dtype"));
      o.dtype_given = true;
    }
    o.shape = read_shape(t, "shape");
    m.outputs.push_back(std::move(o));
  });
}

}  // namespace


Manifest parse_manifest(const std::string& text, const std::string& path) {
  Manifest m;
  m.path = path;
  m.dir = fs::path(path).parent_path().string();
  if (m.dir.empty()) m.dir = ".";
  toml::table doc;
  try {
    doc = toml::parse(toml_text_for_parser(text, path), path);
  } catch (const toml::parse_error& e) {
    fail(ErrorCode::BadInput, path + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
                                  ": TOML syntax error: " + std::string(e.description()));
  }
  Table root(m.path, doc, "",
             {"name", "kernels", "heap", "globals", "instances", "chain", "slots", "control", "stages", "outputs"});
  m.name = root.str("name", false, fs::path(path).stem().string());
  parse_kernels(m, root);
  parse_segments(m, root, "heap", Binding::Heap);
  parse_segments(m, root, "globals", Binding::Globals);
  parse_instances(m, root);
  parse_chain(m, root);
  parse_slots_and_control(m, root);
  manifest_detail::parse_stages(m, root);  // manifest_stages.cpp
  parse_outputs(m, root);
  if (m.stages.empty()) bad(m.path, "stages", "a manifest needs at least one [[stages]] entry");
  for (auto& k : m.kernels) k.kernel = compile_kernel_file(k.path, k.options);
  build_program(m);  // resolves every reference; throws naming the key that is wrong
  return m;
}

Manifest load_manifest(const std::string& path) {
  return parse_manifest(read_text_file(path, "cannot read the manifest"), path);
}

}  // namespace weft
