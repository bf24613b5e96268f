// Copyright 2026 The inflow Authors.
//
// OpPipelineMap run on each record: the outputs of each call go straight
// into the chunk's batch, whichever way the kernel makes them
// (AllocateOutput, SetOutput, assigning to AllocateOutput's tensor), and
// the inputs are each record's row. The map's function is called on
// chunks directly, without a Pipeline; each test registers ops of its own
// names.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/ops/op.h"
#include "inflow/ops/op_library.h"

namespace inflow::ops {
namespace {

using ::testing::HasSubstr;

// y = 2 x into AllocateOutput's tensor, z = x[0] set with SetOutput.
class TwiceAndFirst : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    std::span<const float> x = c.input(0).flat<float>();
    INFLOW_ASSIGN_OR_RETURN(Tensor * y,
                            c.AllocateOutput(0, c.input(0).shape()));
    INFLOW_ASSIGN_OR_RETURN(std::span<float> v, y->mutable_flat<float>());
    for (size_t i = 0; i < x.size(); ++i) v[i] = 2 * x[i];
    return c.SetOutput(1, Tensor::Scalar<int32_t>(static_cast<int32_t>(x[0])));
  }
};

// Each way of writing an output more than once, by attribute "mode".
class Rewrite : public OpKernel {
 public:
  Status Initialize(const OpKernelConstruction& c) override {
    INFLOW_ASSIGN_OR_RETURN(mode_, c.GetAttr<std::string>("mode"));
    return OkStatus();
  }
  Status Compute(OpKernelContext& c) override {
    const int64_t x = c.input(0).flat<int64_t>()[0];
    INFLOW_ASSIGN_OR_RETURN(Tensor * y, c.AllocateOutput(0, TensorShape()));
    (*y->mutable_flat<int64_t>())[0] = x + 100;
    if (mode_ == "allocate_again") {  // zero-filled again: y = 0
      INFLOW_ASSIGN_OR_RETURN(y, c.AllocateOutput(0, TensorShape()));
    } else if (mode_ == "set_then_allocate") {  // y = 0
      INFLOW_RETURN_IF_ERROR(c.SetOutput(0, Tensor::Scalar<int64_t>(x)));
      INFLOW_ASSIGN_OR_RETURN(y, c.AllocateOutput(0, TensorShape()));
    } else if (mode_ == "set_itself") {  // y = x + 100
      INFLOW_RETURN_IF_ERROR(c.SetOutput(0, *y));
    } else if (mode_ == "assign") {  // y = x + 7
      *y = Tensor::Scalar<int64_t>(x + 7);
    } else if (mode_ == "assign_wrong") {
      *y = Tensor::FromVector<int64_t>({1, 2});
    } else if (mode_ == "skip_second") {
      return OkStatus();
    }
    return c.SetOutput(1, Tensor::Scalar<int64_t>(-x));
  }

 private:
  std::string mode_;
};

// Keeps a copy of each call's input: the copies must keep their records.
class Keep : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    kept_.push_back(c.input(0));
    return c.SetOutput(
        0, Tensor::Scalar<int64_t>(static_cast<int64_t>(kept_.size())));
  }
  static std::vector<Tensor> kept_;
};
std::vector<Tensor> Keep::kept_;

class OpPipelineMapTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Result<OpLibraryInfo> r =
        RegisterOps("op_pipeline_map_test", [](OpLibraryBuilder& b) {
          b.AddOp(OpDef("MapTwiceAndFirst")
                      .Input("x", DType::kFloat32, PartialShape({3}))
                      .Output("y", DType::kFloat32, PartialShape({3}))
                      .Output("z", DType::kInt32, PartialShape({})));
          b.AddKernel(MakeKernelDef<TwiceAndFirst>(
              "MapTwiceAndFirst", {DType::kFloat32, DType::kInt32}));
          b.AddOp(OpDef("MapRewrite")
                      .Input("x", DType::kInt64, PartialShape({}))
                      .Output("y", DType::kInt64, PartialShape({}))
                      .Output("z", DType::kInt64, PartialShape({}))
                      .Attr("mode", AttrType::kString));
          b.AddKernel(MakeKernelDef<Rewrite>("MapRewrite",
                                             {DType::kInt64, DType::kInt64}));
          b.AddOp(OpDef("MapKeep")
                      .Input("x", DType::kInt64, PartialShape({}))
                      .Output("n", DType::kInt64, PartialShape({}))
                      .SetStateful());
          b.AddKernel(MakeKernelDef<Keep>("MapKeep", {DType::kInt64}));
        });
    ASSERT_TRUE(r.ok()) << r.status();
  }

  // The map of op `name` with `attrs`, run on one chunk.
  static Result<Tuple> MapChunk(const std::string& name, AttrMap attrs,
                                Tuple chunk) {
    INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<Op> op,
                            Op::Create(name, std::move(attrs)));
    INFLOW_ASSIGN_OR_RETURN(MapFunction map, OpPipelineMap(std::move(op)));
    return map.fn(std::move(chunk));
  }
};

TEST_F(OpPipelineMapTest, AllocatedAndSetOutputsLandInEachRecordsRow) {
  Tensor x = *Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9},
                                        TensorShape({3, 3}));
  Result<Tuple> out = MapChunk("MapTwiceAndFirst", {}, {x});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0],
            *Tensor::FromVector<float>({2, 4, 6, 8, 10, 12, 14, 16, 18},
                                       TensorShape({3, 3})));
  EXPECT_EQ((*out)[1], Tensor::FromVector<int32_t>({1, 4, 7}));
}

TEST_F(OpPipelineMapTest, EachWayOfWritingAnOutputAgainKeepsTheLastWrite) {
  const Tensor x = Tensor::FromVector<int64_t>({1, 2});
  const Tensor z = Tensor::FromVector<int64_t>({-1, -2});
  struct Case {
    std::string mode;
    std::vector<int64_t> y;
  };
  for (const Case& c : std::vector<Case>{{"once", {101, 102}},
                                         {"allocate_again", {0, 0}},
                                         {"set_then_allocate", {0, 0}},
                                         {"set_itself", {101, 102}},
                                         {"assign", {8, 9}}}) {
    Result<Tuple> out = MapChunk("MapRewrite", {{"mode", c.mode}}, {x});
    ASSERT_TRUE(out.ok()) << c.mode << ": " << out.status();
    EXPECT_EQ((*out)[0], Tensor::FromVector<int64_t>(c.y)) << c.mode;
    EXPECT_EQ((*out)[1], z) << c.mode;
  }
}

TEST_F(OpPipelineMapTest, AnOutputNotSetOrAssignedAnotherShapeNamesTheOp) {
  const Tensor x = Tensor::FromVector<int64_t>({1, 2});
  Result<Tuple> skipped =
      MapChunk("MapRewrite", {{"mode", "skip_second"}}, {x});
  ASSERT_FALSE(skipped.ok());
  EXPECT_THAT(skipped.status().ToString(),
              HasSubstr("op 'MapRewrite': the kernel did not set output 'z'"));
  Result<Tuple> wrong = MapChunk("MapRewrite", {{"mode", "assign_wrong"}}, {x});
  ASSERT_FALSE(wrong.ok());
  EXPECT_THAT(wrong.status().ToString(),
              HasSubstr("op 'MapRewrite': output 'y' must be int64 [], got "
                        "int64 [2]"));
}

TEST_F(OpPipelineMapTest, ACopyOfAnInputKeepsItsRecord) {
  Keep::kept_.clear();
  Result<Tuple> out =
      MapChunk("MapKeep", {}, {Tensor::FromVector<int64_t>({5, 6, 7})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Tensor::FromVector<int64_t>({1, 2, 3}));
  ASSERT_EQ(Keep::kept_.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(Keep::kept_[i], Tensor::Scalar<int64_t>(5 + i));
  }
  Keep::kept_.clear();
}

TEST_F(OpPipelineMapTest,
       InputsOfAnotherDtypeOrRowShapeAreErrorsNamingTheInput) {
  Result<Tuple> out = MapChunk("MapTwiceAndFirst", {},
                               {Tensor(DType::kFloat32, TensorShape({2, 4}))});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(out.status().ToString(),
              HasSubstr("op 'MapTwiceAndFirst': input 'x' must be float32 [3] "
                        "rows, got float32 [2,4]"));
  Result<Tuple> empty = MapChunk(
      "MapTwiceAndFirst", {}, {Tensor(DType::kFloat32, TensorShape({0, 3}))});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ((*empty)[0].shape(), TensorShape({0, 3}));
}

}  // namespace
}  // namespace inflow::ops
