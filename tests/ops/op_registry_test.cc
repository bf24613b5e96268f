// Copyright 2026 The inflow Authors.
//
// Registration (RegisterOps, the checks LoadOpLibrary makes too) and Op:
// attributes and their defaults, input and output checks naming the op,
// stateful kernels, concurrent calls. Each test registers ops of its own
// names: the registry is the process's.

#include <atomic>
#include <span>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/ops/op.h"
#include "inflow/ops/op_library.h"

namespace inflow::ops {
namespace {

using ::testing::HasSubstr;

// y = x (any dtype float32), passing the input through.
class Identity : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    return c.SetOutput(0, c.input(0));
  }
};

// Writes the attributes it was made with into its outputs.
class AttrEcho : public OpKernel {
 public:
  Status Initialize(const OpKernelConstruction& c) override {
    INFLOW_ASSIGN_OR_RETURN(n_, c.GetAttr<int64_t>("n"));
    INFLOW_ASSIGN_OR_RETURN(rate_, c.GetAttr<double>("rate"));
    INFLOW_ASSIGN_OR_RETURN(name_, c.GetAttr<std::string>("label"));
    INFLOW_ASSIGN_OR_RETURN(dims_, c.GetAttr<std::vector<int64_t>>("dims"));
    return OkStatus();
  }
  Status Compute(OpKernelContext& c) override {
    INFLOW_RETURN_IF_ERROR(c.SetOutput(0, Tensor::Scalar<int64_t>(n_)));
    INFLOW_RETURN_IF_ERROR(c.SetOutput(1, Tensor::Scalar<double>(rate_)));
    INFLOW_RETURN_IF_ERROR(c.SetOutput(2, Tensor::Scalar<std::string>(name_)));
    return c.SetOutput(3, Tensor::FromVector(dims_));
  }

 private:
  int64_t n_ = 0;
  double rate_ = 0;
  std::string name_;
  std::vector<int64_t> dims_;
};

// Counts its calls: the state of a stateful op.
class CallCount : public OpKernel {
 public:
  Status Compute(OpKernelContext& c) override {
    // Not atomic: the op is stateful, so its calls never overlap.
    ++calls_;
    return c.SetOutput(0, Tensor::Scalar<int64_t>(calls_));
  }

 private:
  int64_t calls_ = 0;
};

void RegisterOrDie(std::string_view source,
                   const std::function<void(OpLibraryBuilder&)>& fn) {
  Result<OpLibraryInfo> r = RegisterOps(source, fn);
  ASSERT_TRUE(r.ok()) << r.status();
}

TEST(OpRegistryTest, RegisteredOpsAreFoundWithTheirDeclaration) {
  RegisterOrDie("registry_test_found", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegFound")
                .Input("x", DType::kFloat32, PartialShape({-1, 3}))
                .Output("y", DType::kFloat32)
                .Attr("k", 2)
                .Doc("Found."));
    b.AddKernel(MakeKernelDef<Identity>("RegFound", {DType::kFloat32}));
  });
  const OpDef* def = FindOp("RegFound");
  ASSERT_NE(def, nullptr);
  EXPECT_EQ(def->doc(), "Found.");
  ASSERT_EQ(def->inputs().size(), 1u);
  EXPECT_EQ(def->inputs()[0].shape, PartialShape({-1, 3}));
  ASSERT_EQ(def->attrs().size(), 1u);
  EXPECT_EQ(def->attrs()[0].type, AttrType::kInt);
  EXPECT_EQ(FindOp("RegNotThere"), nullptr);
  std::vector<std::string> names = RegisteredOps();
  EXPECT_NE(std::find(names.begin(), names.end(), "RegFound"), names.end());
}

TEST(OpRegistryTest, RegisteringANameTwiceIsAlreadyExistsAndRegistersNothing) {
  const auto make = [](std::string second) {
    return [second](OpLibraryBuilder& b) {
      for (const std::string& name : {std::string("RegTwice"), second}) {
        b.AddOp(OpDef(name)
                    .Input("x", DType::kFloat32)
                    .Output("y", DType::kFloat32));
        b.AddKernel(MakeKernelDef<Identity>(name, {DType::kFloat32}));
      }
    };
  };
  RegisterOrDie("first", make("RegTwiceOther"));
  Result<OpLibraryInfo> again = RegisterOps("second", make("RegTwiceNew"));
  ASSERT_TRUE(IsAlreadyExists(again.status())) << again.status();
  EXPECT_THAT(again.status().message(),
              HasSubstr("op 'RegTwice' is already registered (by first)"));
  // All or nothing: the other op of the failed registration is not there.
  EXPECT_EQ(FindOp("RegTwiceNew"), nullptr);

  Result<OpLibraryInfo> within = RegisterOps("within", [](OpLibraryBuilder& b) {
    for (int i = 0; i < 2; ++i) {
      b.AddOp(OpDef("RegWithin").Output("y", DType::kFloat32));
    }
    b.AddKernel(MakeKernelDef<Identity>("RegWithin", {DType::kFloat32}));
  });
  EXPECT_FALSE(within.ok());
  EXPECT_THAT(within.status().message(),
              HasSubstr("op 'RegWithin' is declared twice in within"));
}

TEST(OpRegistryTest, AKernelWhoseOutputsAreNotItsOpsIsAnErrorNamingBoth) {
  Result<OpLibraryInfo> r = RegisterOps("bad_kernel", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegBadKernel")
                .Input("x", DType::kFloat32)
                .Output("y", DType::kFloat32)
                .Output("z", DType::kInt64));
    b.AddKernel(MakeKernelDef<Identity>("RegBadKernel", {DType::kInt32}));
  });
  ASSERT_TRUE(IsInvalidArgument(r.status())) << r.status();
  EXPECT_THAT(r.status().message(),
              HasSubstr("the kernel of op 'RegBadKernel' writes (int32) but "
                        "the op declares the outputs (float32, int64)"));
  EXPECT_EQ(FindOp("RegBadKernel"), nullptr);
}

TEST(OpRegistryTest, MalformedDeclarationsAreErrorsListingEveryProblem) {
  Result<OpLibraryInfo> r = RegisterOps("malformed", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("lower_case").Output("y", DType::kFloat32));
    b.AddOp(OpDef("RegMalformed")
                .Input("X", DType::kFloat32)
                .Input("x", DType::kInvalid)
                .Output("x", DType::kFloat32)
                .Attr("x", AttrType::kInt));
    b.AddOp(OpDef("RegNoKernel").Output("y", DType::kFloat32));
    b.AddKernel(MakeKernelDef<Identity>("lower_case", {DType::kFloat32}));
    b.AddKernel(MakeKernelDef<Identity>("RegMalformed", {DType::kFloat32}));
    b.AddKernel(MakeKernelDef<Identity>("RegUndeclared", {DType::kFloat32}));
  });
  ASSERT_TRUE(IsInvalidArgument(r.status())) << r.status();
  const std::string m(r.status().message());
  EXPECT_THAT(m, HasSubstr("op 'lower_case': the name must match"));
  EXPECT_THAT(m, HasSubstr("input name 'X' must match [a-z][a-z0-9_]*"));
  EXPECT_THAT(m, HasSubstr("input 'x' has no valid dtype"));
  EXPECT_THAT(m, HasSubstr("op 'RegMalformed': the name 'x' is declared "
                           "twice"));
  EXPECT_THAT(m, HasSubstr("op 'RegNoKernel' has no kernel"));
  EXPECT_THAT(m, HasSubstr("a kernel for op 'RegUndeclared', which malformed "
                           "does not declare"));
  EXPECT_EQ(FindOp("RegNoKernel"), nullptr);
}

class OpAttrTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    RegisterOrDie("attr_test", [](OpLibraryBuilder& b) {
      b.AddOp(OpDef("RegAttrEcho")
                  .Output("n", DType::kInt64)
                  .Output("rate", DType::kFloat64)
                  .Output("label", DType::kString)
                  .Output("dims", DType::kInt64)
                  .Attr("n", AttrType::kInt)
                  .Attr("rate", 0.5)
                  .Attr("label", "none")
                  .Attr("dims", std::vector<int64_t>{1, 2}));
      b.AddKernel(MakeKernelDef<AttrEcho>(
          "RegAttrEcho",
          {DType::kInt64, DType::kFloat64, DType::kString, DType::kInt64}));
    });
  }
};

TEST_F(OpAttrTest, DefaultsFillTheAttributesNotGiven) {
  auto op = Op::Create("RegAttrEcho", {{"n", 7}});
  ASSERT_TRUE(op.ok()) << op.status();
  auto out = (*op)->Run({});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0], Tensor::Scalar<int64_t>(7));
  EXPECT_EQ((*out)[1], Tensor::Scalar<double>(0.5));
  EXPECT_EQ((*out)[2], Tensor::Scalar<std::string>("none"));
  EXPECT_EQ((*out)[3], Tensor::FromVector<int64_t>({1, 2}));
  EXPECT_EQ(*(*op)->attrs().Get<double>("rate"), 0.5);
}

TEST_F(OpAttrTest, GivenAttributesOverrideDefaultsAndAnIntIsTakenForAFloat) {
  auto op = Op::Create("RegAttrEcho", {{"n", 1},
                                       {"rate", 3},
                                       {"label", "x"},
                                       {"dims", std::vector<int64_t>{4}}});
  ASSERT_TRUE(op.ok()) << op.status();
  auto out = (*op)->Run({});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[1], Tensor::Scalar<double>(3.0));
  EXPECT_EQ((*out)[2], Tensor::Scalar<std::string>("x"));
  EXPECT_EQ((*out)[3], Tensor::FromVector<int64_t>({4}));
}

TEST_F(OpAttrTest, AttributeErrorsNameTheOpAndTheAttribute) {
  struct Case {
    AttrMap attrs;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{},
       "op 'RegAttrEcho': attribute 'n' (int) has no default and was "
       "not given"},
      {{{"n", 1}, {"nope", 2}}, "op 'RegAttrEcho' has no attribute 'nope'"},
      {{{"n", "seven"}},
       "op 'RegAttrEcho': attribute 'n' must be int, got string \"seven\""},
      {{{"n", 1}, {"label", 3}},
       "op 'RegAttrEcho': attribute 'label' must be string, got int 3"},
      {{{"n", 1.5}}, "attribute 'n' must be int, got float 1.5"},
  };
  for (const Case& c : cases) {
    auto op = Op::Create("RegAttrEcho", c.attrs);
    ASSERT_TRUE(IsInvalidArgument(op.status())) << c.message;
    EXPECT_THAT(op.status().message(), HasSubstr(c.message));
  }
  EXPECT_TRUE(IsNotFound(Op::Create("RegNoSuchOp").status()));
}

TEST(OpTest, InputsOfAnotherDtypeShapeOrCountAreErrorsNamingTheOpAndInput) {
  RegisterOrDie("input_test", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegPair")
                .Input("pair", DType::kFloat32, PartialShape({2}))
                .Output("y", DType::kFloat32));
    b.AddKernel(MakeKernelDef<Identity>("RegPair", {DType::kFloat32}));
  });
  auto op = Op::Create("RegPair");
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_TRUE((*op)->Run({Tensor::FromVector<float>({1, 2})}).ok());
  auto shape = (*op)->Run({Tensor::FromVector<float>({1, 2, 3})});
  EXPECT_TRUE(IsInvalidArgument(shape.status()));
  EXPECT_THAT(shape.status().message(),
              HasSubstr("op 'RegPair': input 'pair' must be float32 [2], got "
                        "float32 [3]"));
  auto dtype = (*op)->Run({Tensor::FromVector<int32_t>({1, 2})});
  EXPECT_THAT(dtype.status().message(),
              HasSubstr("input 'pair' must be float32 [2], got int32 [2]"));
  auto count = (*op)->Run({});
  EXPECT_THAT(count.status().message(),
              HasSubstr("op 'RegPair' takes 1 inputs, got 0"));
  // Static shapes not compatible with the declaration fail at Create.
  auto static_shape = Op::Create("RegPair", {}, {PartialShape({3})});
  EXPECT_THAT(static_shape.status().message(),
              HasSubstr("op 'RegPair': input 'pair' takes shape [2], got "
                        "[3]"));
}

TEST(OpTest, AnOutputNotSetOrNotAsDeclaredIsAnErrorNamingTheOp) {
  class SetsNothing : public OpKernel {
   public:
    Status Compute(OpKernelContext&) override { return OkStatus(); }
  };
  class WrongDtype : public OpKernel {
   public:
    Status Compute(OpKernelContext& c) override {
      return c.SetOutput(0, Tensor::Scalar<int32_t>(1));
    }
  };
  RegisterOrDie("output_test", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegSetsNothing").Output("y", DType::kFloat32));
    b.AddKernel(
        MakeKernelDef<SetsNothing>("RegSetsNothing", {DType::kFloat32}));
    b.AddOp(OpDef("RegWrongDtype").Output("y", DType::kFloat32));
    b.AddKernel(MakeKernelDef<WrongDtype>("RegWrongDtype", {DType::kFloat32}));
  });
  auto nothing = (*Op::Create("RegSetsNothing"))->Run({});
  EXPECT_THAT(nothing.status().message(),
              HasSubstr("op 'RegSetsNothing': the kernel did not set output "
                        "'y'"));
  auto wrong = (*Op::Create("RegWrongDtype"))->Run({});
  EXPECT_TRUE(IsInvalidArgument(wrong.status()));
  EXPECT_THAT(wrong.status().message(),
              HasSubstr("op 'RegWrongDtype': output 'y' must be float32 "
                        "<unknown>, got int32 []"));
}

TEST(OpTest, TheShapeFunctionGivesTheStaticOutputShapes) {
  RegisterOrDie("shape_fn_test", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegShapeFn")
                .Input("x", DType::kFloat32)
                .Output("y", DType::kFloat32)
                .SetShapeFn(SameShapeAsInput(0)));
    b.AddKernel(MakeKernelDef<Identity>("RegShapeFn", {DType::kFloat32}));
    b.AddOp(
        OpDef("RegBadShapeFn")
            .Input("x", DType::kFloat32)
            .Output("y", DType::kFloat32, PartialShape({2}))
            .SetShapeFn(
                [](const ShapeContext&) -> Result<std::vector<PartialShape>> {
                  return std::vector<PartialShape>{PartialShape({5})};
                }));
    b.AddKernel(MakeKernelDef<Identity>("RegBadShapeFn", {DType::kFloat32}));
  });
  auto op = Op::Create("RegShapeFn", {}, {PartialShape({-1, 4})});
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ((*op)->output_shapes()[0], PartialShape({-1, 4}));
  // The kernel's output is checked against the inferred shape.
  auto bad = (*op)->Run({Tensor(DType::kFloat32, TensorShape({2, 5}))});
  EXPECT_THAT(bad.status().message(),
              HasSubstr("input 'x' must be float32 [?,4], got float32 [2,5]"));
  auto fn = Op::Create("RegBadShapeFn");
  EXPECT_THAT(fn.status().message(),
              HasSubstr("op 'RegBadShapeFn': the shape function gave output "
                        "'y' the shape [5], but the op declares [2]"));
}

TEST(OpTest, StaticShapesJoinWhatTheCallerAndTheDeclarationKnow) {
  RegisterOrDie("merge_test", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegMerge")
                .Input("x", DType::kFloat32, PartialShape({-1, 3}))
                .Output("y", DType::kFloat32, PartialShape({-1, -1}))
                .SetShapeFn(SameShapeAsInput(0)));
    b.AddKernel(MakeKernelDef<Identity>("RegMerge", {DType::kFloat32}));
  });
  auto op = Op::Create("RegMerge", {}, {PartialShape({2, -1})});
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ((*op)->input_shapes()[0], PartialShape({2, 3}));
  EXPECT_EQ((*op)->output_shapes()[0], PartialShape({2, 3}));
  auto unknown = Op::Create("RegMerge");
  ASSERT_TRUE(unknown.ok()) << unknown.status();
  EXPECT_EQ((*unknown)->output_shapes()[0], PartialShape({-1, 3}));
}

TEST(OpTest, KernelErrorsComeBackWithTheOpsName) {
  class Fails : public OpKernel {
   public:
    Status Compute(OpKernelContext&) override {
      return FailedPreconditionError("not ready");
    }
  };
  class InitFails : public OpKernel {
   public:
    Status Initialize(const OpKernelConstruction&) override {
      return InvalidArgumentError("bad attrs");
    }
    Status Compute(OpKernelContext&) override { return OkStatus(); }
  };
  RegisterOrDie("error_test", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegFails").Output("y", DType::kFloat32));
    b.AddKernel(MakeKernelDef<Fails>("RegFails", {DType::kFloat32}));
    b.AddOp(OpDef("RegInitFails").Output("y", DType::kFloat32));
    b.AddKernel(MakeKernelDef<InitFails>("RegInitFails", {DType::kFloat32}));
  });
  auto r = (*Op::Create("RegFails"))->Run({});
  EXPECT_EQ(r.status(), FailedPreconditionError("op 'RegFails': not ready"));
  EXPECT_EQ(Op::Create("RegInitFails").status(),
            InvalidArgumentError("op 'RegInitFails': bad attrs"));
}

TEST(OpTest, AStatefulKernelKeepsItsStateAndItsCallsNeverOverlap) {
  RegisterOrDie("stateful_test", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegCallCount")
                .Output("calls", DType::kInt64, PartialShape({}))
                .SetStateful());
    b.AddKernel(MakeKernelDef<CallCount>("RegCallCount", {DType::kInt64}));
  });
  auto op = Op::Create("RegCallCount");
  ASSERT_TRUE(op.ok()) << op.status();
  constexpr int kThreads = 4;
  constexpr int kCalls = 2000;
  std::atomic<int64_t> max_seen{0};
  {
    std::vector<std::jthread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&] {
        for (int i = 0; i < kCalls; ++i) {
          auto out = (*op)->Run({});
          ASSERT_TRUE(out.ok()) << out.status();
          int64_t v = (*out)[0].flat<int64_t>()[0];
          int64_t m = max_seen.load();
          while (v > m && !max_seen.compare_exchange_weak(m, v)) {
          }
        }
      });
    }
  }
  // Every call counted once: no increment was lost to an overlap.
  EXPECT_EQ(max_seen.load(), kThreads * kCalls);
  // Another use of the op has a kernel (and a count) of its own.
  auto other = Op::Create("RegCallCount");
  EXPECT_EQ((*(*other)->Run({}))[0], Tensor::Scalar<int64_t>(1));
}

TEST(OpTest, AMutableInputIsUpdatedInPlaceAndOnlyWhenWritableAndDeclared) {
  // acc += x, in place; no output.
  class AddInPlace : public OpKernel {
   public:
    Status Compute(OpKernelContext& c) override {
      INFLOW_ASSIGN_OR_RETURN(Tensor acc, c.MutableInput(0));
      INFLOW_ASSIGN_OR_RETURN(std::span<float> a, acc.mutable_flat<float>());
      std::span<const float> x = c.input(1).flat<float>();
      for (size_t i = 0; i < a.size(); ++i) a[i] += x[i];
      return OkStatus();
    }
  };
  // Asks to write into an input it did not declare mutable.
  class WritesInput : public OpKernel {
   public:
    Status Compute(OpKernelContext& c) override {
      return c.MutableInput(0).status();
    }
  };
  RegisterOrDie("mutable_test", [](OpLibraryBuilder& b) {
    b.AddOp(OpDef("RegAddInPlace")
                .MutableInput("acc", DType::kFloat32)
                .Input("x", DType::kFloat32));
    b.AddKernel(MakeKernelDef<AddInPlace>("RegAddInPlace", {}));
    b.AddOp(OpDef("RegWritesInput").Input("x", DType::kFloat32));
    b.AddKernel(MakeKernelDef<WritesInput>("RegWritesInput", {}));
  });
  auto op = Op::Create("RegAddInPlace");
  ASSERT_TRUE(op.ok()) << op.status();
  Tensor acc = Tensor::FromVector<float>({1, 2});
  for (int i = 0; i < 2; ++i) {
    auto out = (*op)->Run({acc, Tensor::FromVector<float>({10, 20})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(out->empty());
  }
  EXPECT_EQ(acc, Tensor::FromVector<float>({21, 42}));

  const float values[2] = {1, 2};
  Tensor read_only =
      *Tensor::FromBuffer(DType::kFloat32, TensorShape({2}),
                          TensorBuffer::Wrap(values, sizeof(values), {}));
  auto refused = (*op)->Run({read_only, Tensor::FromVector<float>({1, 1})});
  EXPECT_EQ(refused.status(),
            FailedPreconditionError("op 'RegAddInPlace': input 'acc' is "
                                    "read-only, and the op updates it in "
                                    "place"));
  EXPECT_EQ(values[0], 1);

  auto undeclared =
      (*Op::Create("RegWritesInput"))->Run({Tensor::FromVector<float>({1})});
  EXPECT_EQ(undeclared.status(),
            InvalidArgumentError("op 'RegWritesInput': input 'x' is not "
                                 "declared mutable"));
}

TEST(OpTest, AnExceptionFromALibrarysCodeIsAnInternalErrorNamingTheOp) {
  class Throws : public OpKernel {
   public:
    Status Initialize(const OpKernelConstruction& c) override {
      if (*c.GetAttr<bool>("in_init")) throw std::runtime_error("early");
      return OkStatus();
    }
    Status Compute(OpKernelContext&) override {
      throw std::runtime_error("boom");
    }
  };
  RegisterOrDie("throw_test", [](OpLibraryBuilder& b) {
    b.AddOp(
        OpDef("RegThrows").Output("y", DType::kFloat32).Attr("in_init", false));
    b.AddKernel(MakeKernelDef<Throws>("RegThrows", {DType::kFloat32}));
  });
  auto op = Op::Create("RegThrows");
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_EQ((*op)->Run({}).status(),
            InternalError("op 'RegThrows': the kernel threw: boom"));
  EXPECT_EQ(Op::Create("RegThrows", {{"in_init", true}}).status(),
            InternalError("op 'RegThrows': the kernel's Initialize threw: "
                          "early"));
  Result<OpLibraryInfo> r = RegisterOps(
      "throwing_library",
      [](OpLibraryBuilder&) { throw std::runtime_error("no ops today"); });
  EXPECT_EQ(r.status(),
            InternalError("throwing_library: the registration function "
                          "threw: no ops today"));
}

}  // namespace
}  // namespace inflow::ops
