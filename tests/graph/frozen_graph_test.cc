// Copyright 2026 The inflow Authors.
//
// SerializeFrozenGraphDef / WriteFrozenGraph: the weights' bytes are in
// the GraphDef, the variables' nodes are constants, and a missing value
// or one of another shape is an error naming the variable. TensorFlow
// loads and runs the file in tests/py/test_frozen_graph_vs_tf.py.

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/graph/meta_graph.h"
#include "inflow/io/mem_env.h"

namespace inflow {
namespace {

using ::testing::HasSubstr;

struct Model {
  Tensor w1 = *Tensor::FromVector<float>(
      {0.5f, -1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, TensorShape({4, 3}));
  Tensor b1 = Tensor::FromVector<float>({0.25f, 0, -0.25f});
  Tensor w2 =
      *Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Tensor b2 = Tensor::FromVector<float>({7, 8});
  std::vector<std::pair<std::string, Tensor*>> variables() {
    return {{"hidden/weights", &w1},
            {"hidden/biases", &b1},
            {"out/weights", &w2},
            {"out/biases", &b2}};
  }
};

std::string Bytes(const Tensor& t) {
  return std::string(static_cast<const char*>(t.raw_data()),
                     t.num_elements() * sizeof(float));
}

TEST(FrozenGraphTest, TheWeightsAreConstantsOfTheGraph) {
  Model m;
  Result<MlpGraph> graph = MlpGraphForVariables(m.variables(), 0.1f);
  ASSERT_TRUE(graph.ok()) << graph.status();
  Result<std::string> pb = SerializeFrozenGraphDef(*graph, m.variables());
  ASSERT_TRUE(pb.ok()) << pb.status();
  // Every value's bytes (little-endian float32, as tensor_content holds
  // them on this little-endian machine), the ops of inference only.
  for (const auto& [name, tensor] : m.variables()) {
    EXPECT_NE(pb->find(Bytes(*tensor)), std::string::npos) << name;
    EXPECT_NE(pb->find(name + "/read"), std::string::npos) << name;
  }
  for (const char* op : {"Placeholder", "Const", "MatMul", "Relu", "Softmax"}) {
    EXPECT_NE(pb->find(op), std::string::npos) << op;
  }
  for (const char* op : {"VariableV2", "Assign", "SaveV2", "RestoreV2"}) {
    EXPECT_EQ(pb->find(op), std::string::npos) << op;
  }
}

TEST(FrozenGraphTest, AMissingOrMisshapenValueIsAnErrorNamingTheVariable) {
  Model m;
  MlpGraph graph = *MlpGraphForVariables(m.variables(), 0.1f);
  std::vector<std::pair<std::string, Tensor*>> missing = m.variables();
  missing.pop_back();
  EXPECT_EQ(SerializeFrozenGraphDef(graph, missing).status(),
            InvalidArgumentError("frozen graph: no value for variable "
                                 "out/biases"));
  Tensor wrong = Tensor::FromVector<float>({1, 2, 3});
  std::vector<std::pair<std::string, Tensor*>> misshapen = m.variables();
  misshapen[3].second = &wrong;
  EXPECT_EQ(SerializeFrozenGraphDef(graph, misshapen).status(),
            InvalidArgumentError("frozen graph: variable out/biases is "
                                 "float32 [2], its value float32 [3]"));
}

TEST(FrozenGraphTest, WriteFrozenGraphPublishesTheSerializedBytes) {
  Model m;
  MlpGraph graph = *MlpGraphForVariables(m.variables(), 0.1f);
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("ckpt").ok());
  MetaGraphOptions options;
  options.env = &env;
  ASSERT_TRUE(
      WriteFrozenGraph(graph, m.variables(), "ckpt/frozen_graph.pb", options)
          .ok());
  Result<std::string> written = ReadFileToString(env, "ckpt/frozen_graph.pb");
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, *SerializeFrozenGraphDef(graph, m.variables()));
  std::vector<std::pair<std::string, Tensor*>> missing = m.variables();
  missing.pop_back();
  EXPECT_THAT(WriteFrozenGraph(graph, missing, "ckpt/f.pb", options).ToString(),
              HasSubstr("frozen graph ckpt/f.pb: frozen graph: no value for "
                        "variable out/biases"));
}

}  // namespace
}  // namespace inflow
