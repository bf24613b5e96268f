// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/npy.h"

#include <cstring>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"

#include "datafiles/dataset_bytes.h"

namespace inflow {
namespace {

using testing::Gzip;
using ::testing::HasSubstr;
using testing::NpyBytes;

std::string Floats(std::initializer_list<float> values) {
  std::string out;
  for (float v : values) out.append(reinterpret_cast<const char*>(&v), 4);
  return out;
}

std::string Dict(const std::string& descr, bool fortran,
                 const std::string& shape) {
  return "{'descr': '" + descr +
         "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

class NpyTest : public ::testing::Test {
 protected:
  Result<Tensor> Read(const std::string& bytes) {
    EXPECT_TRUE(WriteStringToFile(env_, kPath, bytes).ok());
    return ReadNpyFile(env_, kPath);
  }
  Status ReadError(const std::string& dict, const std::string& payload = "") {
    Result<Tensor> t = Read(NpyBytes(1, dict, payload));
    EXPECT_FALSE(t.ok()) << dict;
    if (t.ok()) return OkStatus();
    EXPECT_THAT(t.status().message(), HasSubstr(kPath));
    return t.status();
  }
  static constexpr char kPath[] = "/d/array.npy";
  MemEnv env_;
};

TEST_F(NpyTest, ReadsVersion1LittleEndianFloat32) {
  Result<Tensor> t =
      Read(NpyBytes(1, Dict("<f4", false, "(2, 2)"), Floats({1, 2, 3, 4})));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->dtype(), DType::kFloat32);
  EXPECT_EQ(t->shape().dims(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(t->data<float>()[3], 4.0f);
}

TEST_F(NpyTest, ReadsVersions2And3WithTheirFourByteHeaderLength) {
  for (int major : {2, 3}) {
    Result<Tensor> t = Read(NpyBytes(major, Dict("|u1", false, "(3,)"), "xyz"));
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype(), DType::kUInt8);
    EXPECT_EQ(std::string(static_cast<const char*>(t->raw_data()), 3), "xyz");
  }
  ASSERT_TRUE(WriteStringToFile(env_, kPath,
                                NpyBytes(3, Dict("<i8", false, "(0,)"), ""))
                  .ok());
  Result<NpyHeader> h = ReadNpyHeader(env_, kPath);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->major_version, 3);
  EXPECT_EQ(h->dtype, DType::kInt64);
  EXPECT_EQ(h->data_offset, 128u);  // 12 + header, padded to 64
}

TEST_F(NpyTest, BigEndianElementsAreConvertedToHostOrder) {
  Result<Tensor> t =
      Read(NpyBytes(1, Dict(">i4", false, "(2,)"),
                    std::string("\x00\x00\x01\x02\xff\xff\xff\xfe", 8)));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->data<int32_t>()[0], 258);
  EXPECT_EQ(t->data<int32_t>()[1], -2);
}

TEST_F(NpyTest, FortranOrderIsTransposedToRowMajor) {
  // [[0, 1, 2], [3, 4, 5]] stored column by column.
  Result<Tensor> t = Read(
      NpyBytes(1, Dict("<f4", true, "(2, 3)"), Floats({0, 3, 1, 4, 2, 5})));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(std::vector<float>(t->data<float>(), t->data<float>() + 6),
            (std::vector<float>{0, 1, 2, 3, 4, 5}));
  // 2x2x2: element (i, j, k) = 4i + 2j + k sits at i + 2j + 4k.
  std::string col(8, '\0');
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 2; ++j) {
      for (int k = 0; k < 2; ++k)
        col[i + 2 * j + 4 * k] = char(4 * i + 2 * j + k);
    }
  }
  Result<Tensor> cube = Read(NpyBytes(1, Dict("|i1", true, "(2, 2, 2)"), col));
  ASSERT_TRUE(cube.ok()) << cube.status();
  for (int n = 0; n < 8; ++n) EXPECT_EQ(cube->data<int8_t>()[n], n);
}

TEST_F(NpyTest, ScalarEmptyAndPythonTwoShapesAreRead) {
  Result<Tensor> scalar = Read(NpyBytes(
      1, Dict("<f8", false, "()"), std::string("\0\0\0\0\0\0\xf0\x3f", 8)));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(scalar->shape().dims().empty());
  EXPECT_EQ(scalar->data<double>()[0], 1.0);
  Result<Tensor> empty = Read(NpyBytes(1, Dict("<u2", false, "(0, 5)"), ""));
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->shape().dims(), (std::vector<int64_t>{0, 5}));
  Result<Tensor> py2 = Read(
      NpyBytes(1, "{'descr': '<i2', 'fortran_order': False, 'shape': (1L, 2L)}",
               "abcd"));
  ASSERT_TRUE(py2.ok()) << py2.status();
  EXPECT_EQ(py2->shape().dims(), (std::vector<int64_t>{1, 2}));
}

TEST_F(NpyTest, EveryNumericAndBoolDescrMapsToItsDType) {
  const std::vector<std::pair<std::string, DType>> cases = {
      {"|b1", DType::kBool},    {"|i1", DType::kInt8},
      {"<i2", DType::kInt16},   {"<i4", DType::kInt32},
      {"<i8", DType::kInt64},   {"|u1", DType::kUInt8},
      {"<u2", DType::kUInt16},  {"<u4", DType::kUInt32},
      {"<u8", DType::kUInt64},  {"<f2", DType::kFloat16},
      {"<f4", DType::kFloat32}, {"<f8", DType::kFloat64}};
  for (const auto& [descr, dtype] : cases) {
    const size_t size = DTypeSize(dtype);
    Result<Tensor> t =
        Read(NpyBytes(1, Dict(descr, false, "(1,)"), std::string(size, '\1')));
    ASSERT_TRUE(t.ok()) << descr << ": " << t.status();
    EXPECT_EQ(t->dtype(), dtype) << descr;
  }
}

TEST_F(NpyTest, UnsupportedDescrsAreInvalidArgumentNamingTheDescr) {
  for (const std::string descr :
       {"<c8", "|S5", "<U3", "|O", "<M8[s]", "<f16"}) {
    Status s = ReadError(Dict(descr, false, "(1,)"), std::string(16, '\0'));
    EXPECT_TRUE(IsInvalidArgument(s)) << s;
    EXPECT_THAT(s.message(), HasSubstr("'" + descr + "'"));
  }
  Status structured = ReadError(
      "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}");
  EXPECT_THAT(structured.message(), HasSubstr("structured"));
}

TEST_F(NpyTest, MalformedHeadersAreInvalidArgumentWithTheirOffset) {
  struct Case {
    std::string dict, message;
  };
  const std::vector<Case> cases = {
      {"{'descr': '<f4', 'shape': (1,)}", "no 'fortran_order'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
       "unexpected key 'x'"},
      {"{'descr': '<f4', 'descr': '<f4'}", "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", "not a tuple"},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (1,)}",
       "True or False"},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}",
       "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}",
       "non-negative integer"},
      {"['descr']", "expected '{'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x",
       "after '}'"},
  };
  for (const Case& c : cases) {
    Status s = ReadError(c.dict, std::string(4, '\0'));
    EXPECT_TRUE(IsInvalidArgument(s)) << c.dict << ": " << s;
    EXPECT_THAT(s.message(), HasSubstr(c.message)) << c.dict;
    EXPECT_THAT(s.message(), HasSubstr("(at byte offset ")) << c.dict;
  }
}

TEST_F(NpyTest, BadMagicVersionAndHeaderLengthAreInvalidArgument) {
  std::string good = NpyBytes(1, Dict("|u1", false, "(1,)"), "x");
  std::string magic = good;
  magic[1] = 'n';
  Result<Tensor> t = Read(magic);
  ASSERT_TRUE(IsInvalidArgument(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("not an NPY file"));
  std::string version = good;
  version[6] = 4;
  t = Read(version);
  ASSERT_TRUE(IsInvalidArgument(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("version 4.0"));
  std::string v2 = NpyBytes(2, Dict("|u1", false, "(1,)"), "x");
  v2[11] = 0x7f;  // header length ~2 GiB
  t = Read(v2);
  ASSERT_TRUE(IsInvalidArgument(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("header length"));
}

TEST_F(NpyTest, BoolBytesOtherThanZeroOrOneAreInvalidArgument) {
  Result<Tensor> t =
      Read(NpyBytes(1, Dict("|b1", false, "(3,)"), std::string("\1\0\2", 3)));
  ASSERT_TRUE(IsInvalidArgument(t.status())) << t.status();
  EXPECT_THAT(t.status().message(), HasSubstr("byte offset 130"));
}

TEST_F(NpyTest, ShortAndLongDataAreErrorsAndGzipIsRead) {
  Result<Tensor> shorter =
      Read(NpyBytes(1, Dict("<f4", false, "(2,)"), Floats({1})));
  ASSERT_TRUE(IsDataLoss(shorter.status())) << shorter.status();
  EXPECT_THAT(shorter.status().message(), HasSubstr("truncated NPY data"));
  Result<Tensor> longer =
      Read(NpyBytes(1, Dict("<f4", false, "(1,)"), Floats({1, 2})));
  EXPECT_TRUE(IsInvalidArgument(longer.status())) << longer.status();
  Result<Tensor> gz =
      Read(Gzip(NpyBytes(1, Dict("<f4", false, "(2,)"), Floats({1, 2}))));
  ASSERT_TRUE(gz.ok()) << gz.status();
  EXPECT_EQ(gz->data<float>()[1], 2.0f);
}

}  // namespace
}  // namespace inflow
