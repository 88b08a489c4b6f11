// .npy files: round trips for every dtype, NumPy's exact bytes, every malformed-input error.
#include <cstring>
#include <random>

#include "support.h"

using namespace weft;
using conformance::TempDir;

namespace {

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// A .npy file with a hand-written header (any version), data appended as is.
std::vector<uint8_t> npy_with_header(int major, const std::string& dict, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', uint8_t(major), 0};
  const uint32_t len = uint32_t(dict.size());
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out.push_back(uint8_t(len >> (8 * i)));
  out.insert(out.end(), dict.begin(), dict.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::string npy_error(const std::vector<uint8_t>& bytes) {
  try {
    parse_npy(bytes.data(), bytes.size(), "bad.npy");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// ---- .npy ----------------------------------------------------------------------------------

TEST_CASE("npy: every dtype round-trips through a file byte for byte, with NumPy's header layout") {
  TempDir dir("npy-test");
  std::mt19937 rng(7);
  const DType all[] = {DType::F16, DType::F32, DType::F64, DType::I8,  DType::I16, DType::I32,
                       DType::I64, DType::U8,  DType::U16, DType::U32, DType::U64, DType::Bool};
  const std::vector<std::vector<uint64_t>> shapes = {{}, {0}, {5}, {2, 3, 4}, {1, 1, 7}};
  for (DType t : all) {
    for (const auto& shape : shapes) {
      NpyArray a;
      a.dtype = t;
      a.shape = shape;
      a.data.resize(a.count() * dtype_size(t));
      for (auto& b : a.data) b = t == DType::Bool ? uint8_t(rng() & 1) : uint8_t(rng());
      const std::string path = dir.path() + "/a.npy";
      write_npy(path, a);
      const auto encoded = encode_npy(a);
      CHECK((encoded.size() - a.data.size()) % 64 == 0);  // data starts 64-byte aligned
      const NpyArray b = read_npy(path);
      INFO(dtype_descr(t) << " shape of rank " << shape.size());
      CHECK(b.dtype == t);
      CHECK(b.shape == shape);
      CHECK(b.data == a.data);
      CHECK(parse_dtype(dtype_descr(t), "test") == t);
    }
  }
}

TEST_CASE("npy: reads the exact bytes NumPy writes, and versions 2.0 and 3.0") {
  // np.save(f, np.array([7, -1, 300], dtype='<i4'))
  std::string numpy = std::string("\x93NUMPY\x01\x00v\x00", 10) + "{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }" +
                      std::string(60, ' ') + "\n";
  REQUIRE(numpy.size() == 128);
  const int32_t values[3] = {7, -1, 300};
  numpy.append(reinterpret_cast<const char*>(values), 12);
  const NpyArray a = parse_npy(numpy.data(), numpy.size(), "numpy.npy");
  CHECK(a.dtype == DType::I32);
  CHECK(a.shape == std::vector<uint64_t>{3});
  CHECK(a.as<int32_t>() == std::vector<int32_t>{7, -1, 300});
  // Our writer produces the same bytes.
  const auto mine = encode_npy(NpyArray::from(DType::I32, std::vector<int32_t>{7, -1, 300}));
  CHECK(std::string(mine.begin(), mine.end()) == numpy);

  const std::vector<uint8_t> data = {1, 0, 2, 0};
  for (int version : {2, 3}) {
    const auto file = npy_with_header(version, "{'descr': '<u2', 'fortran_order': False, 'shape': (2, 1), }\n", data);
    const NpyArray b = parse_npy(file.data(), file.size(), "v.npy");
    CHECK(b.dtype == DType::U16);
    CHECK(b.shape == std::vector<uint64_t>{2, 1});
    CHECK(b.as<uint16_t>() == std::vector<uint16_t>{1, 2});
  }
  // Scalars have shape () and one element.
  const auto scalar = npy_with_header(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (), }\n", {9});
  const NpyArray s = parse_npy(scalar.data(), scalar.size(), "s.npy");
  CHECK(s.count() == 1);
  CHECK(s.data == std::vector<uint8_t>{9});
}

TEST_CASE("npy: every malformed file is a BadInput naming the file and the problem") {
  const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }\n";
  const std::vector<uint8_t> eight(8, 0);
  struct Bad {
    const char* what;
    std::vector<uint8_t> bytes;
    const char* problem;
  };
  const std::vector<Bad> cases = {
      {"empty file", {}, "bad magic"},
      {"not npy", bytes_of("PK\x03\x04 zip file"), "bad magic"},
      {"magic only", bytes_of("\x93NUMPY"), "truncated header"},
      {"no header length", bytes_of(std::string("\x93NUMPY\x01\x00", 8)), "truncated header"},
      {"header longer than the file", bytes_of(std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 18)), "truncated header"},
      {"unknown version", npy_with_header(4, ok_dict, eight), "unsupported .npy version 4.0"},
      {"data too short", npy_with_header(1, ok_dict, std::vector<uint8_t>(7)), "shape/size mismatch"},
      {"data too long", npy_with_header(1, ok_dict, std::vector<uint8_t>(9)), "shape/size mismatch"},
      {"complex dtype", npy_with_header(1, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }\n", eight), "unsupported dtype '<c8'"},
      {"big-endian", npy_with_header(1, "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }\n", eight), "big-endian"},
      {"object dtype", npy_with_header(1, "{'descr': '|O', 'fortran_order': False, 'shape': (1,), }\n", eight), "unsupported dtype '|O'"},
      {"fortran order", npy_with_header(1, "{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }\n", eight), "fortran_order=True"},
      {"missing shape", npy_with_header(1, "{'descr': '<f4', 'fortran_order': False, }\n", eight), "lacks 'shape'"},
      {"extra key", npy_with_header(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}\n", eight), "unexpected header key 'x'"},
      {"not a dict", npy_with_header(1, "hello\n", eight), "malformed header"},
      {"negative dimension", npy_with_header(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }\n", eight), "malformed header"},
      {"unterminated string", npy_with_header(1, "{'descr': '<f4\n", eight), "malformed header"},
      {"huge shape", npy_with_header(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n", eight), "overflows"},
  };
  for (const auto& c : cases) {
    INFO(c.what);
    const std::string msg = npy_error(c.bytes);
    CHECK(msg.find("bad.npy: ") != std::string::npos);
    CHECK(msg.find(c.problem) != std::string::npos);
  }
  const std::string missing = test::error_message_of([] { read_npy("/nonexistent/weft/file.npy"); });
  CHECK(missing.find("/nonexistent/weft/file.npy: cannot open") != std::string::npos);
}

TEST_CASE("npy: half floats convert exactly both ways") {
  CHECK(float_to_half(1.0f) == 0x3C00);
  CHECK(float_to_half(-2.0f) == 0xC000);
  CHECK(float_to_half(65504.0f) == 0x7BFF);
  CHECK(float_to_half(65520.0f) == 0x7C00);       // rounds to infinity
  CHECK(float_to_half(5.960464477539063e-8f) == 0x0001);  // smallest subnormal
  CHECK(float_to_half(1e-9f) == 0x0000);
  CHECK(float_to_half(1.0f + 1.0f / 2048) == 0x3C00);     // a tie rounds to even
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue;  // NaN payloads
    REQUIRE(float_to_half(half_to_float(uint16_t(h))) == h);
  }
}

TEST_CASE("npy: random corruptions of a valid file are parsed or refused with BadInput, never crash") {
  const NpyArray a = NpyArray::from(DType::F32, std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
  const auto valid = encode_npy(a);
  std::mt19937 rng(11);
  int refused = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto bytes = valid;
    const int edits = 1 + int(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % bytes.size();
      switch (rng() % 3) {
        case 0: bytes[at] = uint8_t(rng()); break;                       // flip a byte
        case 1: bytes.resize(at); break;                                 // truncate
        default: bytes.insert(bytes.begin() + long(at), uint8_t(rng())); // insert a byte
      }
      if (bytes.empty()) break;
    }
    try {
      const NpyArray b = parse_npy(bytes.data(), bytes.size(), "fuzz.npy");
      CHECK(b.data.size() == b.count() * dtype_size(b.dtype));  // whatever parsed is consistent
    } catch (const Error& e) {
      REQUIRE(e.code() == ErrorCode::BadInput);
      ++refused;
    }
  }
  CHECK(refused > 1000);  // most corruptions must be noticed
}
