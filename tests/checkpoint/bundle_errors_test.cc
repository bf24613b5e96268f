// Copyright 2026 The inflow Authors.
//
// BundleWriter and BundleReader errors, publishing by rename, and the
// bytes of the specified worked example.

#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/io/crc32c.h"
#include "inflow/io/mem_env.h"

#include "checkpoint/bundle_index.h"
#include "checkpoint/bundle_test_util.h"

namespace inflow {
namespace {

using ::testing::HasSubstr;

BundleWriterOptions On(Env* env) {
  BundleWriterOptions options;
  options.env = env;
  return options;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

Status WriteOne(Env* env, const std::string& prefix, const Tensor& t) {
  BundleWriter writer(prefix, On(env));
  INFLOW_RETURN_IF_ERROR(writer.Add("t", t));
  return writer.Finish();
}

// Rewrites P.index with `edit` applied to every entry and the header.
template <typename Edit>
void RewriteIndex(
    MemEnv& env, const std::string& prefix, Edit edit,
    internal::BundleHeader header = internal::MakeBundleHeader(1)) {
  Result<internal::BundleIndex> index = internal::ReadBundleIndex(env, prefix);
  ASSERT_TRUE(index.ok()) << index.status();
  std::map<std::string, internal::StoredEntry> entries;
  for (internal::StoredEntry& e : index->entries) {
    edit(e);
    entries[e.entry.name] = e;
  }
  ASSERT_TRUE(internal::WriteBundleIndex(env, BundleIndexFilename(prefix),
                                         header, entries, false)
                  .ok());
}

std::vector<std::string> Children(MemEnv& env, const std::string& dir) {
  Result<std::vector<std::string>> children = env.GetChildren(dir);
  return children.ok() ? *children : std::vector<std::string>{};
}

TEST(BundleBytesTest, WorkedExampleIsByteExact) {
  MemEnv env;
  BundleWriter writer("d/P", On(&env));
  ASSERT_TRUE(writer.Add("v", Tensor::Scalar<float>(1.0f)).ok());
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(env.Contents("d/P.data-00000-of-00001").value(),
            Bytes({0x00, 0x00, 0x80, 0x3f}));
  const std::string index = Bytes(
      {0x00, 0x00, 0x06, 0x08, 0x01, 0x1a, 0x02, 0x08, 0x01, 0x00, 0x01, 0x0b,
       0x76, 0x08, 0x01, 0x12, 0x00, 0x28, 0x04, 0x35, 0x81, 0xa5, 0xda, 0x2b,
       0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x95, 0xce, 0xd3,
       0xf3, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xf2,
       0xa1, 0xb0, 0x00, 0x01, 0x02, 0x77, 0x00, 0x20, 0x00, 0x00, 0x00, 0x00,
       0x01, 0x00, 0x00, 0x00, 0x00, 0x3e, 0x1e, 0xa4, 0x62, 0x25, 0x08, 0x32,
       0x0e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
       0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
       0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
       0x00, 0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb});
  ASSERT_EQ(index.size(), 117u);
  EXPECT_EQ(env.Contents("d/P.index").value(), index);
}

TEST(BundleErrorsTest, MissingIndexIsNotFound) {
  MemEnv env;
  Result<std::unique_ptr<BundleReader>> reader = BundleReader::Open("no", &env);
  EXPECT_TRUE(IsNotFound(reader.status())) << reader.status();
  EXPECT_THAT(std::string(reader.status().message()), HasSubstr("no.index"));
}

TEST(BundleErrorsTest, MissingDataFileIsNotFoundWhenRead) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::Scalar<float>(1)).ok());
  ASSERT_TRUE(env.DeleteFile(BundleDataFilename("m", 0, 1)).ok());
  Result<std::unique_ptr<BundleReader>> reader = BundleReader::Open("m", &env);
  ASSERT_TRUE(reader.ok()) << reader.status();
  Status s = (*reader)->Read("t").status();
  EXPECT_TRUE(IsNotFound(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("m.data-00000-of-00001"));
}

TEST(BundleErrorsTest, UnknownKeyIsNotFoundWithTensorFlowsMessage) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::Scalar<float>(1)).ok());
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  Status s = reader->Read("nope").status();
  EXPECT_TRUE(IsNotFound(s));
  EXPECT_EQ(s.message(), "Key nope not found in checkpoint");
  EXPECT_TRUE(IsNotFound(reader->Lookup("nope").status()));
  Tensor t(DType::kFloat32, {});
  EXPECT_TRUE(IsNotFound(reader->ReadInto("nope", &t)));
}

TEST(BundleErrorsTest, DuplicateKeyIsInvalidArgumentAndSticky) {
  MemEnv env;
  {
    BundleWriter writer("dir/m", On(&env));
    ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
    Status s = writer.Add("x", Tensor::Scalar<float>(2));
    EXPECT_TRUE(IsInvalidArgument(s));
    EXPECT_THAT(std::string(s.message()), HasSubstr("Adding duplicate key: x"));
    EXPECT_EQ(writer.Finish(), s);
    EXPECT_EQ(writer.Add("y", Tensor::Scalar<float>(2)), s);
    EXPECT_THAT(Children(env, "dir"), ::testing::IsEmpty());
  }
  EXPECT_THAT(Children(env, "dir"), ::testing::IsEmpty());
}

TEST(BundleErrorsTest, EmptyNameIsInvalidArgument) {
  MemEnv env;
  BundleWriter writer("m", On(&env));
  EXPECT_TRUE(IsInvalidArgument(writer.Add("", Tensor::Scalar<float>(1))));
  EXPECT_TRUE(IsInvalidArgument(writer.Add("u", Tensor())));
}

TEST(BundleErrorsTest, ReadIntoMismatchNamesTheTensorAndBothSides) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::FromVector<float>({1, 2, 3})).ok());
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  Tensor wrong_dtype(DType::kInt32, {3});
  Status s = reader->ReadInto("t", &wrong_dtype);
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_THAT(std::string(s.message()), HasSubstr("'t'"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("float32"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("int32"));
  Tensor wrong_shape(DType::kFloat32, {1, 3});
  s = reader->ReadInto("t", &wrong_shape);
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_THAT(std::string(s.message()), HasSubstr("[3]"));
  EXPECT_THAT(std::string(s.message()), HasSubstr("[1,3]"));
  Tensor uninitialized;
  EXPECT_TRUE(IsInvalidArgument(reader->ReadInto("t", &uninitialized)));
}

TEST(BundleErrorsTest, ReadIntoWritesTheExistingBuffer) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::FromVector<float>({1, 2, 3})).ok());
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  Tensor out(DType::kFloat32, {3});
  const void* before = out.raw_data();
  ASSERT_TRUE(reader->ReadInto("t", &out).ok());
  EXPECT_EQ(out.raw_data(), before);
  EXPECT_EQ(out, Tensor::FromVector<float>({1, 2, 3}));
}

TEST(BundleErrorsTest, ReadIntoReadOnlyTensorIsFailedPrecondition) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::Scalar<int32_t>(5)).ok());
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  static const int32_t storage = 0;
  Tensor read_only =
      Tensor::FromBuffer(DType::kInt32, {},
                         TensorBuffer::Wrap(&storage, sizeof(storage), {}))
          .value();
  EXPECT_TRUE(IsFailedPrecondition(reader->ReadInto("t", &read_only)));
}

TEST(BundleErrorsTest, SizeNotElementsTimesElementSizeIsDataLoss) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::FromVector<float>({1, 2})).ok());
  RewriteIndex(env, "m", [](internal::StoredEntry& e) { e.entry.size = 7; });
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  Status s = reader->Read("t").status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("stored size 7"));
}

TEST(BundleErrorsTest, EntryPastTheEndOfTheDataFileIsDataLoss) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::FromVector<float>({1, 2})).ok());
  RewriteIndex(env, "m", [](internal::StoredEntry& e) { e.entry.offset = 4; });
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  Status s = reader->Read("t").status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("m.data-00000-of-00001"));
  EXPECT_TRUE(IsDataLoss(reader->Verify()));
}

TEST(BundleErrorsTest, HugeShapeIsDataLossBeforeAnyAllocation) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::FromVector<std::string>({"a"})).ok());
  RewriteIndex(env, "m", [](internal::StoredEntry& e) {
    e.entry.shape = TensorShape({int64_t{1} << 40});
  });
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  EXPECT_TRUE(IsDataLoss(reader->Read("t").status()));
}

TEST(BundleErrorsTest, ShardIdOutOfRangeIsDataLossAtOpen) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::Scalar<float>(1)).ok());
  RewriteIndex(env, "m",
               [](internal::StoredEntry& e) { e.entry.shard_id = 1; });
  Status s = BundleReader::Open("m", &env).status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("m.index"));
}

TEST(BundleErrorsTest, IncompatibleVersionIsInvalidArgument) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::Scalar<float>(1)).ok());
  internal::BundleHeader header = internal::MakeBundleHeader(1);
  header.min_consumer = 2;
  RewriteIndex(
      env, "m", [](internal::StoredEntry&) {}, header);
  EXPECT_TRUE(IsInvalidArgument(BundleReader::Open("m", &env).status()));
}

TEST(BundleErrorsTest, BigEndianBundleIsUnimplemented) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::Scalar<float>(1)).ok());
  internal::BundleHeader header = internal::MakeBundleHeader(1);
  header.endianness = internal::kBundleBigEndian;
  RewriteIndex(
      env, "m", [](internal::StoredEntry&) {}, header);
  EXPECT_TRUE(IsUnimplemented(BundleReader::Open("m", &env).status()));
}

// A partitioned entry whose slice is not stored under its hidden key
// (bundle_sliced_test.cc reads real ones): listed, DATA_LOSS to read.
TEST(BundleErrorsTest, PartitionedEntryWithoutItsSliceIsDataLossToRead) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::FromVector<float>({1, 2})).ok());
  RewriteIndex(env, "m", [](internal::StoredEntry& e) {
    e.slices = {Bytes({0x0a, 0x00})};  // one extent covering everything
  });
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  ASSERT_EQ(reader->entries().size(), 1u);
  EXPECT_TRUE(reader->entries()[0].partitioned);
  Status s = reader->Read("t").status();
  EXPECT_TRUE(IsDataLoss(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("data entry is missing"));
  EXPECT_TRUE(IsDataLoss(reader->Verify()));
}

TEST(BundleErrorsTest, DataTypeInflowLacksIsListedButUnimplementedToRead) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::FromVector<float>({1, 2})).ok());
  RewriteIndex(env, "m", [](internal::StoredEntry& e) { e.dtype_enum = 20; });
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  EXPECT_EQ(reader->entries()[0].dtype, DType::kInvalid);
  Status s = reader->Read("t").status();
  EXPECT_TRUE(IsUnimplemented(s));
  EXPECT_THAT(std::string(s.message()), HasSubstr("DataType 20"));
}

TEST(BundleErrorsTest, FailedDataWriteLeavesNoFiles) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("dir").ok());
  BundleWriter writer("dir/m", On(&env));
  const std::vector<std::string> temps = Children(env, "dir");
  ASSERT_EQ(temps.size(), 1u);
  EXPECT_THAT(temps[0],
              ::testing::StartsWith("m.data-00000-of-00001.tempstate"));
  env.InjectWriteError("dir/" + temps[0], 10, UnavailableError("disk gone"));
  Status s = writer.Add("big", Tensor(DType::kFloat32, {1 << 16}));
  EXPECT_TRUE(IsUnavailable(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("m.data-00000-of-00001"));
  EXPECT_THAT(Children(env, "dir"), ::testing::IsEmpty());
  EXPECT_EQ(writer.Finish(), s);
  EXPECT_THAT(Children(env, "dir"), ::testing::IsEmpty());
}

TEST(BundleErrorsTest, FailedIndexWriteLeavesNoFiles) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("dir").ok());
  BundleWriter writer("dir/m", On(&env));
  ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
  // The next file created is the index's temporary.
  env.FailNext(MemEnvOp::kNewWritableFile, PermissionDeniedError("no"));
  Status s = writer.Finish();
  EXPECT_TRUE(IsPermissionDenied(s)) << s;
  EXPECT_THAT(std::string(s.message()), HasSubstr("m.index"));
  EXPECT_THAT(Children(env, "dir"), ::testing::IsEmpty());
}

TEST(BundleErrorsTest, WriterDestroyedBeforeFinishLeavesNoFiles) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("dir").ok());
  {
    BundleWriter writer("dir/m", On(&env));
    ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
    EXPECT_EQ(Children(env, "dir").size(), 1u);
  }
  EXPECT_THAT(Children(env, "dir"), ::testing::IsEmpty());
}

TEST(BundleErrorsTest, BoolByteOtherThanZeroOrOneReadsAsTrue) {
  MemEnv env;
  ASSERT_TRUE(WriteOne(&env, "m", Tensor::FromVector<bool>({true})).ok());
  const std::string data = BundleDataFilename("m", 0, 1);
  ASSERT_TRUE(WriteStringToFile(env, data, "\x02").ok());
  RewriteIndex(env, "m", [](internal::StoredEntry& e) {
    e.entry.masked_crc32c = crc32c::Mask(crc32c::Value("\x02", 1));
  });
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  Result<Tensor> got = reader->Read("t");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*static_cast<const unsigned char*>(got->raw_data()), 1);
  EXPECT_EQ(*got, Tensor::FromVector<bool>({true}));
}

TEST(BundleErrorsTest, ReadingOneTensorReadsOnlyItsBytes) {
  MemEnv mem;
  {
    BundleWriter writer("m", On(&mem));
    for (int i = 0; i < 10; ++i) {
      ASSERT_TRUE(writer
                      .Add(testing::Indexed("t", i),
                           testing::PatternTensor(DType::kFloat32, {1000}, i))
                      .ok());
    }
    ASSERT_TRUE(writer.Finish().ok());
  }
  testing::CountingEnv env(&mem);
  std::unique_ptr<BundleReader> reader = BundleReader::Open("m", &env).value();
  const std::string data = BundleDataFilename("m", 0, 1);
  EXPECT_EQ(env.BytesRead(data), 0u);  // opening reads only the index
  ASSERT_TRUE(reader->Read("t7").ok());
  EXPECT_EQ(env.BytesRead(data), 4000u);
  Tensor into(DType::kFloat32, {1000});
  ASSERT_TRUE(reader->ReadInto("t3", &into).ok());
  EXPECT_EQ(env.BytesRead(data), 8000u);
}

}  // namespace
}  // namespace inflow
