// Copyright 2026 The inflow Authors.
//
// Producer arguments rejected at construction: INVALID_ARGUMENT with a
// message naming the argument.

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/input/producers.h"

#include "producer_test_util.h"

namespace inflow {
namespace {

class ProducerErrorTest : public ::testing::Test {
 protected:
  ProducerOptions Options() {
    return testing::LocalOptions(collection_, registry_);
  }

  // The status is INVALID_ARGUMENT and its message contains `words`, and
  // nothing was registered.
  void ExpectInvalid(const Status& s, const std::string& words) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s;
    EXPECT_NE(std::string(s.message()).find(words), std::string::npos) << s;
    EXPECT_TRUE(collection_.Get().empty());
    EXPECT_TRUE(registry_.Snapshot().empty());
  }

  QueueRunnerCollection collection_;
  MetricsRegistry registry_;
};

TEST_F(ProducerErrorTest, NonPositiveNumEpochsIsRejected) {
  for (int64_t n : {0, -1}) {
    ProducerOptions options = Options();
    options.num_epochs = n;
    ExpectInvalid(RangeInputProducer(3, options).status(), "num_epochs");
    ExpectInvalid(EpochLimit::Create({}, n).status(), "num_epochs");
  }
}

TEST_F(ProducerErrorTest, EmptyStringListIsRejected) {
  ExpectInvalid(StringInputProducer({}, Options()).status(),
                "string_input_producer requires a non-null input tensor");
}

TEST_F(ProducerErrorTest, EmptyInputIsRejected) {
  ExpectInvalid(InputProducer(Tensor(DType::kFloat32, TensorShape({0, 2})),
                              PartialShape::UnknownRank(), Options())
                    .status(),
                "input must not be empty");
  ExpectInvalid(RangeInputProducer(0, Options()).status(), "limit");
}

TEST_F(ProducerErrorTest, ScalarInputIsRejected) {
  ExpectInvalid(InputProducer(Tensor::Scalar<int32_t>(1),
                              PartialShape::UnknownRank(), Options())
                    .status(),
                "input must have rank >= 1");
}

TEST_F(ProducerErrorTest, ElementShapeDisagreeingWithTheInputIsRejected) {
  const Tensor input(DType::kFloat32, TensorShape({4, 2}));
  ExpectInvalid(InputProducer(input, PartialShape({3}), Options()).status(),
                "element_shape");
  ExpectInvalid(InputProducer(input, PartialShape({2, 1}), Options()).status(),
                "element_shape");
  auto ok = InputProducer(input, PartialShape({-1}), Options());
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->queue->component_shapes(),
            (std::vector<PartialShape>{PartialShape({2})}));
}

TEST_F(ProducerErrorTest, SliceProducerRejectsAnEmptyList) {
  ExpectInvalid(SliceInputProducer({}, Options()).status(), "tensor_list");
}

TEST_F(ProducerErrorTest, SliceProducerRejectsAScalar) {
  ExpectInvalid(SliceInputProducer({Tensor::FromVector<int32_t>({1, 2}),
                                    Tensor::Scalar<int32_t>(3)},
                                   Options())
                    .status(),
                "tensor_list[1] must have rank >= 1");
}

// TF does not check this (docs/conformance.md, "Differs from TF").
TEST_F(ProducerErrorTest, SliceProducerRejectsDifferentFirstDimensions) {
  ExpectInvalid(SliceInputProducer({Tensor::FromVector<int32_t>({1, 2, 3}),
                                    Tensor::FromVector<int32_t>({1, 2})},
                                   Options())
                    .status(),
                "tensor_list[1] has 2 rows, tensor_list[0] has 3");
}

}  // namespace
}  // namespace inflow
