// Copyright 2026 The inflow Authors.
//
// LoadOpLibrary with the libraries of tests/ops/libs (built by
// inflow_add_op_library): their ops run directly, as Dataset maps and as
// a Pipeline map; a stateful op keeps its state; OUT_OF_RANGE ends the
// input; a missing file, a missing symbol, a library of another ABI
// version, a duplicate name and a bad kernel are errors naming what is
// wrong.

#include "inflow/ops/op_library.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/data/dataset.h"
#include "inflow/input/pipeline.h"
#include "inflow/ops/op.h"
#include "inflow/version.h"

namespace inflow::ops {
namespace {

using ::testing::HasSubstr;

std::string LibraryPath(const std::string& name) {
  return std::string(INFLOW_TEST_OP_LIBRARY_DIR) + "/lib" + name + ".so";
}

class OpLibraryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Result<OpLibraryInfo> info = LoadOpLibrary(LibraryPath("inflow_test_ops"));
    ASSERT_TRUE(info.ok()) << info.status();
  }
};

TEST_F(OpLibraryTest, LoadingRegistersTheLibrarysOpsAndLoadingAgainIsTheSame) {
  Result<OpLibraryInfo> info = LoadOpLibrary(LibraryPath("inflow_test_ops"));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->op_names,
            (std::vector<std::string>{"ZeroOut", "Scale", "Counter",
                                      "RunningSum", "LineLength", "Lengths",
                                      "WrongShape", "AddInPlace", "Fail"}));
  // Another path to the same file is the same library.
  const std::string other =
      std::string(INFLOW_TEST_OP_LIBRARY_DIR) + "/./libinflow_test_ops.so";
  Result<OpLibraryInfo> again = LoadOpLibrary(other);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->op_names, info->op_names);
  const OpDef* zero_out = FindOp("ZeroOut");
  ASSERT_NE(zero_out, nullptr);
  EXPECT_THAT(zero_out->doc(), HasSubstr("Zeroes every element"));
}

TEST_F(OpLibraryTest, ALibrarysOpRunsWithItsAttributesAndDefaults) {
  auto op = Op::Create("ZeroOut");
  ASSERT_TRUE(op.ok()) << op.status();
  auto out = (*op)->Run({Tensor::FromVector<int32_t>({5, 6, 7})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Tensor::FromVector<int32_t>({5, 0, 0}));

  auto keep2 = Op::Create("ZeroOut", {{"preserve_index", 2}});
  ASSERT_TRUE(keep2.ok()) << keep2.status();
  EXPECT_EQ((*(*keep2)->Run({Tensor::FromVector<int32_t>({5, 6, 7})}))[0],
            Tensor::FromVector<int32_t>({0, 0, 7}));
  // The kernel's own errors, from Initialize and from Compute.
  EXPECT_EQ(Op::Create("ZeroOut", {{"preserve_index", -1}}).status(),
            InvalidArgumentError(
                "op 'ZeroOut': preserve_index must be >= 0, got -1"));
  auto beyond = (*keep2)->Run({Tensor::FromVector<int32_t>({1})});
  EXPECT_THAT(beyond.status().message(),
              HasSubstr("op 'ZeroOut': preserve_index 2 is not below 1"));

  auto scale = Op::Create("Scale", {{"factor", 3}, {"bias", 0.5}});
  ASSERT_TRUE(scale.ok()) << scale.status();
  EXPECT_EQ((*(*scale)->Run({Tensor::FromVector<float>({1, 2})}))[0],
            Tensor::FromVector<float>({3.5f, 6.5f}));
}

TEST_F(OpLibraryTest, AnOutputOfAnotherShapeThanDeclaredIsAnErrorNamingTheOp) {
  auto op = Op::Create("WrongShape");
  ASSERT_TRUE(op.ok()) << op.status();
  auto out = (*op)->Run({Tensor::FromVector<float>({1})});
  ASSERT_TRUE(IsInvalidArgument(out.status()));
  EXPECT_THAT(out.status().message(),
              HasSubstr("op 'WrongShape': output 'y' must be float32 [2], got "
                        "float32 [3]"));
  auto fail = Op::Create("Fail", {{"message", "disk on fire"}});
  EXPECT_EQ((*fail)->Run({Tensor::FromVector<float>({1})}).status(),
            FailedPreconditionError("op 'Fail': disk on fire"));
}

TEST_F(OpLibraryTest, AStatefulOpKeepsItsStateAndEndsWithOutOfRange) {
  auto counter = Op::Create("Counter", {{"limit", 3}});
  ASSERT_TRUE(counter.ok()) << counter.status();
  for (int64_t i = 0; i < 3; ++i) {
    auto out = (*counter)->Run({});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0], Tensor::Scalar<int64_t>(i));
  }
  for (int i = 0; i < 2; ++i) {
    auto end = (*counter)->Run({});
    EXPECT_EQ(end.status(), OutOfRangeError("op 'Counter': counted to 3"));
  }
}

TEST_F(OpLibraryTest,
       AnOpIsADatasetMapAndAStatefulOneKeepsStateAcrossElements) {
  auto sum = Op::Create("RunningSum");
  ASSERT_TRUE(sum.ok()) << sum.status();
  data::Dataset ds = data::Dataset::Range(1, 6).Map(OpMapFn(*sum));
  auto it = ds.MakeIterator();
  ASSERT_TRUE(it.ok()) << it.status();
  std::vector<int64_t> sums;
  for (Result<Tuple> e = it->Next(); e.ok(); e = it->Next()) {
    sums.push_back((*e)[0].flat<int64_t>()[0]);
  }
  EXPECT_EQ(sums, (std::vector<int64_t>{1, 3, 6, 10, 15}));

  // A parallel map of a stateless op.
  auto scale = Op::Create("Scale", {{"factor", 10}});
  data::Dataset floats =
      data::Dataset::FromTensorSlices({Tensor::FromVector<float>({1, 2, 3, 4})})
          .Map(OpMapFn(*scale), {.num_parallel_calls = 3});
  auto fit = floats.MakeIterator();
  ASSERT_TRUE(fit.ok()) << fit.status();
  std::vector<float> scaled;
  for (Result<Tuple> e = fit->Next(); e.ok(); e = fit->Next()) {
    scaled.push_back((*e)[0].flat<float>()[0]);
  }
  EXPECT_EQ(scaled, (std::vector<float>{10, 20, 30, 40}));
}

TEST_F(OpLibraryTest, OutOfRangeFromAnOpEndsADataset) {
  auto lengths = Op::Create("LineLength", {{"limit", 2}});
  ASSERT_TRUE(lengths.ok()) << lengths.status();
  data::Dataset ds =
      data::Dataset::FromTensorSlices(
          {Tensor::FromVector<std::string>({"a", "bb", "ccc", "dddd"})})
          .Map(OpMapFn(*lengths));
  auto it = ds.MakeIterator();
  ASSERT_TRUE(it.ok()) << it.status();
  std::vector<int64_t> got;
  Result<Tuple> e = it->Next();
  for (; e.ok(); e = it->Next()) got.push_back((*e)[0].flat<int64_t>()[0]);
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(IsOutOfRange(e.status())) << e.status();
  EXPECT_THAT(e.status().message(), HasSubstr("op 'LineLength': read 2 lines"));
}

class OpPipelineTest : public OpLibraryTest {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("inflow_ops_test_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    std::ofstream f(dir_ / "lines.txt");
    for (int i = 1; i <= 10; ++i) f << std::string(i, 'x') << "\n";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  PipelineOptions Options(std::shared_ptr<const Op> op, std::string name,
                          OpMapUnit unit = OpMapUnit::kRecord) {
    PipelineOptions o;
    o.files = {(dir_ / "lines.txt").string()};
    o.num_epochs = 1;
    o.shuffle_files = false;
    o.format = RecordFormat::kTextLine;
    o.read_batch = 4;
    Result<MapFunction> map = OpPipelineMap(std::move(op), unit);
    EXPECT_TRUE(map.ok()) << map.status();
    o.map = *map;
    o.batching.batch_size = 3;
    o.batching.allow_smaller_final_batch = true;
    o.name = std::move(name);
    return o;
  }

  // Every value of the batches' first component until the pipeline ends;
  // the status it ended with in *end.
  static std::vector<int64_t> Drain(Pipeline& pipeline, Status* end) {
    std::vector<int64_t> got;
    Result<Tuple> b = pipeline.Next();
    for (; b.ok(); b = pipeline.Next()) {
      for (int64_t v : (*b)[0].flat<int64_t>()) got.push_back(v);
    }
    *end = b.status();
    return got;
  }

  std::filesystem::path dir_;
};

TEST_F(OpPipelineTest, AnOpIsAPipelineMapRunOnEachRecord) {
  auto lengths = Op::Create("LineLength");
  ASSERT_TRUE(lengths.ok()) << lengths.status();
  auto pipeline = Pipeline::Create(Options(*lengths, "ops_pipeline_all"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Status end;
  const std::vector<int64_t> got = Drain(**pipeline, &end);
  EXPECT_TRUE(IsOutOfRange(end)) << end;
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_TRUE((*pipeline)->Close().ok());
}

TEST_F(OpPipelineTest, OutOfRangeFromAnOpEndsAPipeline) {
  // The op ends after 6 lines; reads are chunks of 4: the first chunk
  // goes through, the second ends the input.
  auto lengths = Op::Create("LineLength", {{"limit", 6}});
  ASSERT_TRUE(lengths.ok()) << lengths.status();
  auto pipeline = Pipeline::Create(Options(*lengths, "ops_pipeline_end"));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Status end;
  const std::vector<int64_t> got = Drain(**pipeline, &end);
  EXPECT_TRUE(IsOutOfRange(end)) << end;
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3, 4}));
  (*pipeline)->Close().IgnoreError();
}

TEST_F(OpPipelineTest, AnOpOverChunksRunsOncePerChunkOfRecords) {
  auto lengths = Op::Create("Lengths");
  ASSERT_TRUE(lengths.ok()) << lengths.status();
  auto pipeline = Pipeline::Create(
      Options(*lengths, "ops_pipeline_chunks", OpMapUnit::kChunk));
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  Status end;
  const std::vector<int64_t> got = Drain(**pipeline, &end);
  EXPECT_TRUE(IsOutOfRange(end)) << end;
  EXPECT_EQ(got, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_TRUE((*pipeline)->Close().ok());
}

TEST_F(OpLibraryTest, APipelineMapNeedsOutputsOfFullyDefinedShape) {
  auto scale = Op::Create("Scale");
  ASSERT_TRUE(scale.ok()) << scale.status();
  Result<MapFunction> map = OpPipelineMap(*scale);
  EXPECT_TRUE(IsInvalidArgument(map.status()));
  EXPECT_THAT(map.status().message(),
              HasSubstr("op 'Scale': a Pipeline map needs outputs of fully "
                        "defined shape, and output 'y' has the shape "
                        "<unknown>"));
  // Over chunks: [?] + a fully defined row shape.
  Result<MapFunction> chunks = OpPipelineMap(*scale, OpMapUnit::kChunk);
  EXPECT_THAT(chunks.status().message(),
              HasSubstr("op 'Scale': a Pipeline map needs outputs of shape "
                        "[?] + a fully defined row shape, and output 'y' has "
                        "the shape <unknown>"));
}

TEST(OpLibraryLoadTest, AMissingFileIsNotFoundNamingIt) {
  Result<OpLibraryInfo> r = LoadOpLibrary("/nonexistent/libnothing.so");
  EXPECT_TRUE(IsNotFound(r.status())) << r.status();
  EXPECT_THAT(r.status().message(),
              HasSubstr("op library /nonexistent/libnothing.so: no such file"));
}

TEST(OpLibraryLoadTest, AMissingSymbolIsAnErrorNamingIt) {
  const std::string path = LibraryPath("inflow_test_missing_symbol_ops");
  Result<OpLibraryInfo> r = LoadOpLibrary(path);
  EXPECT_TRUE(IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(r.status().message(), HasSubstr("op library " + path));
  EXPECT_THAT(r.status().message(),
              HasSubstr("undefined symbol: inflow_test_undefined_function"));
  EXPECT_EQ(FindOp("Undefined"), nullptr);
}

TEST(OpLibraryLoadTest, ALibraryWithoutTheInfoSymbolIsNoOpLibrary) {
  Result<OpLibraryInfo> r = LoadOpLibrary(LibraryPath("inflow_test_no_info"));
  EXPECT_TRUE(IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(r.status().message(),
              HasSubstr("not an inflow op library (no symbol "
                        "inflow_op_library_info"));
}

TEST(OpLibraryLoadTest, AnotherAbiVersionIsAnErrorNamingBothVersions) {
  Result<OpLibraryInfo> r =
      LoadOpLibrary(LibraryPath("inflow_test_abi_mismatch_ops"));
  EXPECT_TRUE(IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(
      r.status().message(),
      HasSubstr("built against inflow ABI version 999 (inflow "
                "9.9.9), but this is inflow ABI version " +
                std::to_string(kAbiVersion) + " (inflow " + kVersion + ")"));
}

TEST(OpLibraryLoadTest, AnotherCxxLibraryIsAnErrorNamingBoth) {
  Result<OpLibraryInfo> r =
      LoadOpLibrary(LibraryPath("inflow_test_cxx_library_mismatch_ops"));
  EXPECT_TRUE(IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(r.status().message(),
              HasSubstr("built with the C++ standard library some other C++ "
                        "library, but this inflow uses libstdc++ (C++11 "
                        "ABI)"));
}

TEST(OpLibraryLoadTest, ABadKernelRegistersNothingOfItsLibrary) {
  Result<OpLibraryInfo> r =
      LoadOpLibrary(LibraryPath("inflow_test_bad_kernel_ops"));
  EXPECT_TRUE(IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(r.status().message(),
              HasSubstr("the kernel of op 'BadKernel' writes (int32) but the "
                        "op declares the outputs (float32)"));
  EXPECT_EQ(FindOp("GoodIdentity"), nullptr);
  EXPECT_EQ(FindOp("BadKernel"), nullptr);
}

TEST_F(OpLibraryTest, ALibraryRedeclaringARegisteredOpIsAlreadyExists) {
  const std::string path = LibraryPath("inflow_test_duplicate_ops");
  Result<OpLibraryInfo> r = LoadOpLibrary(path);
  EXPECT_TRUE(IsAlreadyExists(r.status())) << r.status();
  EXPECT_THAT(r.status().message(),
              HasSubstr("op 'ZeroOut' is already registered (by " +
                        LibraryPath("inflow_test_ops") + ")"));
}

}  // namespace
}  // namespace inflow::ops
