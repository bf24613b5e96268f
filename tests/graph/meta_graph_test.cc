// Copyright 2026 The inflow Authors.

#include "inflow/graph/meta_graph.h"

#include <unistd.h>

#include <regex>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/datafiles/pending_files.h"
#include "inflow/io/mem_env.h"

namespace inflow {
namespace {

using ::testing::HasSubstr;

DenseLayer Layer(const std::string& scope, int64_t inputs, int64_t units,
                 bool relu) {
  DenseLayer l;
  l.scope = scope;
  l.weights = {scope + "/weights", TensorShape({inputs, units}),
               VariableInitializer::RandomNormal(0.0f, 0.01f)};
  l.biases = {scope + "/biases", TensorShape({units}),
              VariableInitializer::Zeros()};
  l.relu = relu;
  return l;
}

// The model `inflow train` trains: 784-625-625-10.
MlpGraph Issue15Model() {
  MlpGraph g;
  g.layers = {Layer("layer1", 784, 625, true), Layer("layer2", 625, 625, true),
              Layer("layer3", 625, 10, false)};
  return g;
}

// The node names of a graph.pbtxt, in order.
std::vector<std::string> NodeNames(const std::string& text) {
  std::vector<std::string> names;
  const std::regex re("^  name: \"([^\"]*)\"$");
  std::smatch m;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    const std::string line = text.substr(pos, end - pos);
    if (std::regex_match(line, m, re)) names.push_back(m[1]);
    pos = end == std::string::npos ? text.size() : end + 1;
  }
  return names;
}

void ExpectInvalid(const MlpGraph& g, const std::string& message_part) {
  const Status s = ValidateMlpGraph(g);
  EXPECT_TRUE(IsInvalidArgument(s)) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr(message_part));
  EXPECT_FALSE(SerializeMetaGraph(g).ok());
  EXPECT_FALSE(GraphDefText(g).ok());
}

TEST(MetaGraphTest, Issue15ModelIsValid) {
  EXPECT_TRUE(ValidateMlpGraph(Issue15Model()).ok());
}

TEST(MetaGraphTest, GraphListsNodesInTensorFlowCreationOrder) {
  MlpGraph g;
  g.input_size = 3;
  g.layers = {Layer("l1", 3, 2, true)};
  Result<std::string> text = GraphDefText(g);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  const std::vector<std::string> expected = {
      "x",
      "l1/weights/Initializer/random_normal/shape",
      "l1/weights/Initializer/random_normal/mean",
      "l1/weights/Initializer/random_normal/stddev",
      "l1/weights/Initializer/random_normal/RandomStandardNormal",
      "l1/weights/Initializer/random_normal/mul",
      "l1/weights/Initializer/random_normal",
      "l1/weights",
      "l1/weights/Assign",
      "l1/weights/read",
      "l1/biases/Initializer/zeros",
      "l1/biases",
      "l1/biases/Assign",
      "l1/biases/read",
      "l1/MatMul",
      "l1/Add",
      "l1/Relu",
      "predictions",
      "save/filename/input",
      "save/filename",
      "save/Const",
      "save/SaveV2/tensor_names",
      "save/SaveV2/shape_and_slices",
      "save/SaveV2",
      "save/control_dependency",
      "save/RestoreV2/tensor_names",
      "save/RestoreV2/shape_and_slices",
      "save/RestoreV2",
      "save/Assign",
      "save/Assign_1",
      "save/restore_all",
  };
  EXPECT_EQ(NodeNames(*text), expected);
  EXPECT_THAT(*text, HasSubstr("versions {\n  producer: 1994\n}\n"));
  // graph.pbtxt carries no _output_shapes (the .meta does).
  EXPECT_THAT(*text, ::testing::Not(HasSubstr("_output_shapes")));
}

TEST(MetaGraphTest, SaverRestoresVariablesInNameOrder) {
  MlpGraph g;
  g.input_size = 3;
  g.layers = {Layer("l1", 3, 2, false)};
  g.layers[0].weights.name = "b_weights";
  g.layers[0].biases.name = "a_biases";
  Result<std::string> text = GraphDefText(g);
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  // save/Assign restores a_biases (the first name), save/Assign_1 the
  // weights from output 1.
  EXPECT_THAT(*text, HasSubstr("name: \"save/Assign\"\n  op: \"Assign\"\n"
                               "  input: \"a_biases\"\n"
                               "  input: \"save/RestoreV2\"\n"));
  EXPECT_THAT(*text, HasSubstr("name: \"save/Assign_1\"\n  op: \"Assign\"\n"
                               "  input: \"b_weights\"\n"
                               "  input: \"save/RestoreV2:1\"\n"));
}

TEST(MetaGraphTest, LargeZerosInitializerIsAFill) {
  MlpGraph g;
  g.input_size = 10;
  g.layers = {Layer("l1", 10, 100, false)};
  g.layers[0].weights.initializer = VariableInitializer::Zeros();
  Result<std::string> text = GraphDefText(g);
  ASSERT_TRUE(text.ok());
  EXPECT_THAT(*text, HasSubstr("name: \"l1/weights/Initializer/zeros\"\n"
                               "  op: \"Fill\"\n"));
  // 100 biases (fewer than 1000 elements): one Const.
  EXPECT_THAT(*text, HasSubstr("name: \"l1/biases/Initializer/zeros\"\n"
                               "  op: \"Const\"\n"));
}

TEST(MetaGraphTest, NoLayersIsInvalidArgument) {
  ExpectInvalid(MlpGraph(), "no layers");
}

TEST(MetaGraphTest, WeightsNotChainingFromTheInputIsInvalidArgument) {
  MlpGraph g = Issue15Model();
  g.layers[1].weights.shape = TensorShape({624, 625});
  ExpectInvalid(g,
                "layer 1 (scope 'layer2') variable layer2/weights has shape "
                "[624,625], expected [625,625]");
}

TEST(MetaGraphTest, BiasesNotMatchingTheUnitsIsInvalidArgument) {
  MlpGraph g = Issue15Model();
  g.layers[2].biases.shape = TensorShape({10, 1});
  ExpectInvalid(g, "variable layer3/biases has shape [10,1], expected [10]");
}

TEST(MetaGraphTest, ZeroUnitsIsInvalidArgument) {
  MlpGraph g = Issue15Model();
  g.layers[2].weights.shape = TensorShape({625, 0});
  g.layers[2].biases.shape = TensorShape({0});
  ExpectInvalid(g, "units is 0");
}

TEST(MetaGraphTest, NamesTensorFlowRejectsAreInvalidArgument) {
  for (const std::string bad :
       {"layer 1/weights", "_w", "w:0", "a//b", "a/", "", "^w", "w\xc3\xa9"}) {
    MlpGraph g = Issue15Model();
    g.layers[0].weights.name = bad;
    ExpectInvalid(g, "is not a valid TensorFlow node name");
  }
  MlpGraph g = Issue15Model();
  g.input_name = "-x";
  ExpectInvalid(g, "'-x' is not a valid");
  g = Issue15Model();
  g.layers[0].scope = "";
  ExpectInvalid(g, "'' is not a valid");
}

TEST(MetaGraphTest, NamesInTheSaverScopeAreInvalidArgument) {
  for (const std::string bad : {"save", "save/w", "Save", "SAVE/x"}) {
    MlpGraph g = Issue15Model();
    g.layers[0].biases.name = bad;
    ExpectInvalid(g, "in the scope 'save'");
  }
  MlpGraph g = Issue15Model();
  g.layers[0].biases.name = "saved/w";
  EXPECT_TRUE(ValidateMlpGraph(g).ok());
}

TEST(MetaGraphTest, ADerivedNodeNameUsedTwiceIsInvalidArgument) {
  MlpGraph g = Issue15Model();
  g.layers[0].biases.name = "layer1/MatMul";  // the layer's MatMul
  ExpectInvalid(g, "node name 'layer1/MatMul' is used twice");
  g = Issue15Model();
  g.layers[1].weights.name = "layer1/weights";
  ExpectInvalid(g, "is used twice");
  g = Issue15Model();
  g.output_name = "X";  // names are compared ignoring case, as TF does
  ExpectInvalid(g, "node name 'X' is used twice (as 'x'");
}

TEST(MetaGraphTest, MlpGraphForVariablesTakesNamesShapesAndScopesFromThem) {
  Tensor w1(DType::kFloat32, TensorShape({784, 625}));
  Tensor b1(DType::kFloat32, TensorShape({625}));
  Tensor w2(DType::kFloat32, TensorShape({625, 10}));
  Tensor b2(DType::kFloat32, TensorShape({10}));
  const std::vector<std::pair<std::string, Tensor*>> vars = {
      {"layer1/weights", &w1},
      {"layer1/biases", &b1},
      {"out", &w2},
      {"a/b/bias", &b2}};
  Result<MlpGraph> g = MlpGraphForVariables(vars, 0.25f);
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(g->input_name, "x");
  EXPECT_EQ(g->input_size, 784);
  EXPECT_EQ(g->output_name, "predictions");
  ASSERT_EQ(g->layers.size(), 2u);
  EXPECT_EQ(g->layers[0].scope, "layer1");
  EXPECT_EQ(g->layers[0].weights.name, "layer1/weights");
  EXPECT_EQ(g->layers[0].weights.shape, TensorShape({784, 625}));
  EXPECT_EQ(g->layers[0].weights.initializer.kind,
            VariableInitializer::Kind::kRandomNormal);
  EXPECT_EQ(g->layers[0].weights.initializer.stddev, 0.25f);
  EXPECT_EQ(g->layers[0].biases.name, "layer1/biases");
  EXPECT_EQ(g->layers[0].biases.initializer.kind,
            VariableInitializer::Kind::kZeros);
  EXPECT_TRUE(g->layers[0].relu);
  EXPECT_EQ(g->layers[1].scope, "out");  // no '/': the whole name
  EXPECT_EQ(g->layers[1].biases.name, "a/b/bias");
  EXPECT_FALSE(g->layers[1].relu);
}

TEST(MetaGraphTest, MlpGraphForVariablesRefusesWhatIsNotAnMlp) {
  Tensor w(DType::kFloat32, TensorShape({4, 3}));
  Tensor b(DType::kFloat32, TensorShape({2}));
  const std::vector<std::pair<std::string, Tensor*>> odd = {{"l/w", &w}};
  EXPECT_TRUE(IsInvalidArgument(MlpGraphForVariables(odd, 0.1f).status()));
  EXPECT_TRUE(IsInvalidArgument(MlpGraphForVariables({}, 0.1f).status()));
  const std::vector<std::pair<std::string, Tensor*>> null = {{"l/w", &w},
                                                             {"l/b", nullptr}};
  const Status s = MlpGraphForVariables(null, 0.1f).status();
  EXPECT_THAT(s.ToString(), HasSubstr("variable l/b has no tensor"));
  const std::vector<std::pair<std::string, Tensor*>> mismatch = {{"l/w", &w},
                                                                 {"l/b", &b}};
  EXPECT_THAT(MlpGraphForVariables(mismatch, 0.1f).status().ToString(),
              HasSubstr("variable l/b has shape [2], expected [3]"));
}

TEST(MetaGraphTest, WriteMetaGraphPublishesTheSerializedBytesAndNoTemporary) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("ckpt").ok());
  MetaGraphOptions options;
  options.env = &env;
  ASSERT_TRUE(
      WriteMetaGraph(Issue15Model(), "ckpt/model.ckpt-5", options).ok());
  ASSERT_TRUE(WriteGraphText(Issue15Model(), "ckpt/graph.pbtxt", options).ok());
  Result<std::string> expected = SerializeMetaGraph(Issue15Model(), options);
  ASSERT_TRUE(expected.ok());
  Result<std::string> meta = env.Contents("ckpt/model.ckpt-5.meta");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(*meta, *expected);
  EXPECT_EQ(*env.Contents("ckpt/graph.pbtxt"), *GraphDefText(Issue15Model()));
  Result<std::vector<std::string>> children = env.GetChildren("ckpt");
  ASSERT_TRUE(children.ok());
  EXPECT_THAT(*children, ::testing::UnorderedElementsAre("model.ckpt-5.meta",
                                                         "graph.pbtxt"));
}

TEST(MetaGraphTest, WrittenFilesSurviveACrashAfterTheWrite) {
  MemEnv env;
  // Created durably (the parent synced), as the crash model needs.
  ASSERT_TRUE(RecursivelyCreateDir(env, "ckpt").ok());
  MetaGraphOptions options;
  options.env = &env;
  ASSERT_TRUE(WriteMetaGraph(Issue15Model(), "ckpt/m", options).ok());
  env.SimulateCrash();
  EXPECT_EQ(*env.Contents("ckpt/m.meta"), *SerializeMetaGraph(Issue15Model()));
}

TEST(MetaGraphTest, AFailedWriteNamesTheFileAndLeavesNothing) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("ckpt").ok());
  env.InjectWriteError(PendingFiles::TemporaryPath("ckpt/m.meta"), 100,
                       UnavailableError("disk gone"));
  MetaGraphOptions options;
  options.env = &env;
  const Status s = WriteMetaGraph(Issue15Model(), "ckpt/m", options);
  EXPECT_TRUE(IsUnavailable(s)) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr("writing meta graph ckpt/m.meta"));
  EXPECT_THAT(s.ToString(), HasSubstr("disk gone"));
  EXPECT_TRUE(env.GetChildren("ckpt")->empty());
}

TEST(MetaGraphTest, AFailedOverwriteKeepsThePreviousFileWhole) {
  MemEnv env;
  // Created durably (the parent synced), as the crash model needs.
  ASSERT_TRUE(RecursivelyCreateDir(env, "ckpt").ok());
  MetaGraphOptions options;
  options.env = &env;
  MlpGraph old_graph = Issue15Model();
  old_graph.output_name = "old_predictions";
  ASSERT_TRUE(WriteMetaGraph(old_graph, "ckpt/m", options).ok());
  env.InjectWriteError(PendingFiles::TemporaryPath("ckpt/m.meta"), 5000,
                       UnavailableError("disk gone"));
  EXPECT_FALSE(WriteMetaGraph(Issue15Model(), "ckpt/m", options).ok());
  env.SimulateCrash();
  EXPECT_EQ(*env.Contents("ckpt/m.meta"), *SerializeMetaGraph(old_graph));
  EXPECT_THAT(*env.GetChildren("ckpt"), ::testing::ElementsAre("m.meta"));
}

TEST(MetaGraphTest, AMissingDirectoryIsNotFoundNamingTheFile) {
  const std::string dir = ::testing::TempDir() + "/meta_graph_test_" +
                          std::to_string(::getpid()) + "/absent";
  const Status s = WriteMetaGraph(Issue15Model(), dir + "/model.ckpt-1");
  EXPECT_TRUE(IsNotFound(s)) << s.ToString();
  EXPECT_THAT(s.ToString(), HasSubstr(dir + "/model.ckpt-1.meta"));
  const Status t = WriteGraphText(Issue15Model(), dir + "/graph.pbtxt");
  EXPECT_TRUE(IsNotFound(t)) << t.ToString();
  EXPECT_THAT(t.ToString(), HasSubstr("writing graph " + dir + "/graph.pbtxt"));
}

TEST(MetaGraphTest, AnInvalidGraphWritesNothing) {
  MemEnv env;
  ASSERT_TRUE(env.CreateDir("ckpt").ok());
  MetaGraphOptions options;
  options.env = &env;
  const Status s = WriteMetaGraph(MlpGraph(), "ckpt/m", options);
  EXPECT_TRUE(IsInvalidArgument(s));
  EXPECT_THAT(s.ToString(), HasSubstr("meta graph ckpt/m.meta"));
  EXPECT_TRUE(env.GetChildren("ckpt")->empty());
}

}  // namespace
}  // namespace inflow
