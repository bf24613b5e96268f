// Copyright 2026 The inflow Authors.
//
// What BundleWriter writes, BundleReader reads back: every dtype, scalars,
// empty tensors, strings, odd names, alignment, several shards merged.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/io/mem_env.h"

#include "checkpoint/bundle_test_util.h"

namespace inflow {
namespace {

using testing::kAllDTypes;
using testing::PatternTensor;

BundleWriterOptions On(Env* env) {
  BundleWriterOptions options;
  options.env = env;
  return options;
}

std::unique_ptr<BundleReader> OpenOrDie(const std::string& prefix, Env* env) {
  Result<std::unique_ptr<BundleReader>> reader =
      BundleReader::Open(prefix, env);
  EXPECT_TRUE(reader.ok()) << reader.status();
  return reader.ok() ? std::move(reader).value() : nullptr;
}

TEST(BundleRoundTripTest, EveryDTypeAndShapeRoundTrips) {
  MemEnv env;
  const std::vector<TensorShape> shapes = {
      TensorShape(), TensorShape({0}), TensorShape({7}), TensorShape({2, 0, 3}),
      TensorShape({3, 4, 5})};
  std::vector<std::pair<std::string, Tensor>> added;
  BundleWriter writer("ckpt/m", On(&env));
  int seed = 0;
  for (DType dtype : kAllDTypes) {
    for (const TensorShape& shape : shapes) {
      const std::string name =
          std::string(DTypeName(dtype)) + "/" + shape.DebugString();
      added.emplace_back(name, PatternTensor(dtype, shape, ++seed));
      ASSERT_TRUE(writer.Add(name, added.back().second).ok()) << name;
    }
  }
  ASSERT_TRUE(writer.Finish().ok());
  std::unique_ptr<BundleReader> reader = OpenOrDie("ckpt/m", &env);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->num_shards(), 1);
  EXPECT_EQ(reader->entries().size(), added.size());
  for (const auto& [name, tensor] : added) {
    SCOPED_TRACE(name);
    Result<Tensor> got = reader->Read(name);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, tensor);
    Tensor into(tensor.dtype(), tensor.shape());
    ASSERT_TRUE(reader->ReadInto(name, &into).ok());
    EXPECT_EQ(into, tensor);
    Result<const BundleEntry*> e = reader->Lookup(name);
    ASSERT_TRUE(e.ok());
    EXPECT_EQ((*e)->dtype, tensor.dtype());
    EXPECT_EQ((*e)->shape, tensor.shape());
    if (tensor.dtype() != DType::kString) {
      EXPECT_EQ((*e)->size, static_cast<int64_t>(tensor.num_bytes()));
    }
    if (tensor.num_elements() == 0 && tensor.dtype() != DType::kString) {
      EXPECT_EQ((*e)->masked_crc32c, 0xa282ead8u);  // mask(crc32c(""))
    }
  }
  EXPECT_TRUE(reader->Verify().ok());
}

TEST(BundleRoundTripTest, EntriesAreInUnsignedKeyOrderDataInAddOrder) {
  MemEnv env;
  BundleWriter writer("m", On(&env));
  const std::vector<std::string> names = {"b", "\xff-high", "a/b", "a", "B"};
  for (const std::string& name : names) {
    ASSERT_TRUE(writer.Add(name, Tensor::Scalar<int32_t>(7)).ok());
  }
  ASSERT_TRUE(writer.Finish().ok());
  std::unique_ptr<BundleReader> reader = OpenOrDie("m", &env);
  ASSERT_NE(reader, nullptr);
  std::vector<std::string> listed;
  for (const BundleEntry& e : reader->entries()) listed.push_back(e.name);
  EXPECT_EQ(listed,
            (std::vector<std::string>{"B", "a", "a/b", "b", "\xff-high"}));
  // Offsets follow the order of Add().
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(reader->Lookup(names[i]).value()->offset,
              static_cast<int64_t>(4 * i));
  }
}

TEST(BundleRoundTripTest, StringsRoundTripWhateverTheirBytes) {
  MemEnv env;
  const Tensor strings = Tensor::FromVector<std::string>(
      {"", std::string(200, 'x'), std::string(20000, 'y'),
       std::string("\xff\xfe\x00\x80 not utf-8", 14), "\n\t\""});
  BundleWriter writer("s", On(&env));
  ASSERT_TRUE(writer.Add("strings", strings).ok());
  ASSERT_TRUE(writer.Add("empty_scalar", Tensor::Scalar("")).ok());
  ASSERT_TRUE(writer.Finish().ok());
  std::unique_ptr<BundleReader> reader = OpenOrDie("s", &env);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Read("strings").value(), strings);
  EXPECT_EQ(reader->Read("empty_scalar").value(), Tensor::Scalar(""));
  // 1 + 2 + 3 + 1 + 1 varint bytes, the checksum, the strings.
  EXPECT_EQ(reader->Lookup("strings").value()->size,
            8 + 4 + 200 + 20000 + 14 + 3);
}

TEST(BundleRoundTripTest, NamesWithSlashesAndNonAsciiBytes) {
  MemEnv env;
  const std::vector<std::string> names = {
      "dense/kernel/.ATTRIBUTES/VARIABLE_VALUE", "gr\xc3\xbc\xc3\x9f/w",
      std::string("nul\0inside", 10), "\x80\x81", "/leading/slash"};
  BundleWriter writer("n", On(&env));
  for (size_t i = 0; i < names.size(); ++i) {
    ASSERT_TRUE(
        writer.Add(names[i], Tensor::Scalar<int64_t>(static_cast<int64_t>(i)))
            .ok());
  }
  ASSERT_TRUE(writer.Finish().ok());
  std::unique_ptr<BundleReader> reader = OpenOrDie("n", &env);
  ASSERT_NE(reader, nullptr);
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(reader->Read(names[i]).value(),
              Tensor::Scalar<int64_t>(static_cast<int64_t>(i)));
  }
}

TEST(BundleRoundTripTest, DataAlignmentPadsAfterEachTensorNotCountedInSize) {
  MemEnv env;
  BundleWriterOptions options = On(&env);
  options.data_alignment = 64;
  BundleWriter writer("a", options);
  ASSERT_TRUE(writer.Add("x", Tensor::FromVector<float>({1, 2, 3})).ok());
  ASSERT_TRUE(writer.Add("y", Tensor::FromVector<std::string>({"ab"})).ok());
  ASSERT_TRUE(writer.Add("z", Tensor::Scalar<double>(2.5)).ok());
  EXPECT_EQ(writer.data_bytes(), 192u);
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(env.GetFileSize(BundleDataFilename("a", 0, 1)).value(), 192u);
  std::unique_ptr<BundleReader> reader = OpenOrDie("a", &env);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Lookup("x").value()->offset, 0);
  EXPECT_EQ(reader->Lookup("x").value()->size, 12);
  EXPECT_EQ(reader->Lookup("y").value()->offset, 64);
  EXPECT_EQ(reader->Lookup("z").value()->offset, 128);
  EXPECT_EQ(reader->Read("z").value(), Tensor::Scalar<double>(2.5));
  EXPECT_TRUE(reader->Verify().ok());
}

TEST(BundleRoundTripTest, EmptyBundleRoundTrips) {
  MemEnv env;
  BundleWriter writer("e", On(&env));
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_EQ(env.GetFileSize(BundleDataFilename("e", 0, 1)).value(), 0u);
  std::unique_ptr<BundleReader> reader = OpenOrDie("e", &env);
  ASSERT_NE(reader, nullptr);
  EXPECT_TRUE(reader->entries().empty());
  EXPECT_TRUE(reader->Verify().ok());
}

TEST(BundleRoundTripTest, FinishIsIdempotentAndAddAfterItFails) {
  MemEnv env;
  BundleWriter writer("f", On(&env));
  ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
  ASSERT_TRUE(writer.Finish().ok());
  EXPECT_TRUE(writer.Finish().ok());
  EXPECT_TRUE(IsFailedPrecondition(writer.Add("y", Tensor::Scalar<float>(1))));
}

TEST(BundleRoundTripTest, PosixWriterCreatesTheDirectoryAndLeavesOnlyTwoFiles) {
  testing::ScratchDir dir;
  const std::string prefix = dir.Path("a/b/model.ckpt-10");
  {
    BundleWriter writer(prefix);
    ASSERT_TRUE(writer.Add("w", Tensor::FromVector<int32_t>({1, 2})).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  std::vector<std::string> files;
  for (const auto& entry :
       std::filesystem::directory_iterator(dir.path() / "a/b")) {
    files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files,
            (std::vector<std::string>{"model.ckpt-10.data-00000-of-00001",
                                      "model.ckpt-10.index"}));
  std::unique_ptr<BundleReader> reader = OpenOrDie(prefix, &Env::Default());
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->Read("w").value(), Tensor::FromVector<int32_t>({1, 2}));
}

TEST(BundleRoundTripTest, MergeBundlesMakesOneShardPerInputShard) {
  MemEnv env;
  const std::vector<std::string> parts = {"tmp/part-0", "tmp/part-1",
                                          "tmp/part-2"};
  for (size_t i = 0; i < parts.size(); ++i) {
    BundleWriter writer(parts[i], On(&env));
    if (i != 1) {  // part-1 holds no tensor
      ASSERT_TRUE(writer
                      .Add(testing::Indexed("t", i),
                           PatternTensor(DType::kFloat32, {10}, int(i)))
                      .ok());
      ASSERT_TRUE(writer
                      .Add(testing::Indexed("s", i),
                           PatternTensor(DType::kString, {3}, int(i)))
                      .ok());
    }
    ASSERT_TRUE(writer.Finish().ok());
  }
  ASSERT_TRUE(MergeBundles(env, parts, "out/merged").ok());
  for (const std::string& part : parts) {
    EXPECT_TRUE(IsNotFound(env.FileExists(BundleIndexFilename(part))));
    EXPECT_TRUE(IsNotFound(env.FileExists(BundleDataFilename(part, 0, 1))));
  }
  for (int shard = 0; shard < 3; ++shard) {
    EXPECT_TRUE(
        env.FileExists(BundleDataFilename("out/merged", shard, 3)).ok());
  }
  std::unique_ptr<BundleReader> reader = OpenOrDie("out/merged", &env);
  ASSERT_NE(reader, nullptr);
  EXPECT_EQ(reader->num_shards(), 3);
  ASSERT_EQ(reader->entries().size(), 4u);
  EXPECT_EQ(reader->Lookup("t2").value()->shard_id, 2);
  EXPECT_EQ(reader->Lookup("s0").value()->shard_id, 0);
  EXPECT_EQ(reader->Read("t2").value(),
            PatternTensor(DType::kFloat32, {10}, 2));
  EXPECT_EQ(reader->Read("s0").value(), PatternTensor(DType::kString, {3}, 0));
  EXPECT_TRUE(reader->Verify().ok());
}

TEST(BundleRoundTripTest,
     MergeOfADuplicateNameIsInvalidArgumentAndTouchesNothing) {
  MemEnv env;
  for (const char* part : {"p0", "p1"}) {
    BundleWriter writer(part, On(&env));
    ASSERT_TRUE(writer.Add("same", Tensor::Scalar<float>(1)).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  const std::vector<std::string> parts = {"p0", "p1"};
  Status s = MergeBundles(env, parts, "m");
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("same"), std::string_view::npos) << s;
  for (const std::string& part : parts) {
    EXPECT_TRUE(env.FileExists(BundleIndexFilename(part)).ok());
    EXPECT_TRUE(env.FileExists(BundleDataFilename(part, 0, 1)).ok());
  }
  EXPECT_TRUE(IsNotFound(env.FileExists(BundleIndexFilename("m"))));
}

}  // namespace
}  // namespace inflow
