// Copyright 2026 The inflow Authors.
//
// Pipeline definitions: the JSON form round-trips, a Dataset and a Pipeline
// build from it (custom ops of a loaded library included), and every bad
// definition is INVALID_ARGUMENT naming the file and the step's JSON path.

#include "inflow/pipedef/pipeline_def.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/example/example.h"
#include "inflow/io/env.h"
#include "inflow/io/record_writer.h"
#include "inflow/ops/op.h"
#include "inflow/ops/op_library.h"

namespace inflow::pipedef {
namespace {

using ::testing::HasSubstr;

const std::string kLibrary =
    std::string(INFLOW_TEST_OP_LIBRARY_DIR) + "/libinflow_test_ops.so";

// `n` Examples {"v": float [3] = {i, i + 1, i + 2}, "id": int64 i} in a
// TFRecord file; returns its path.
std::string WriteExamples(const std::string& name, int n) {
  const std::string path = ::testing::TempDir() + "/" + name + ".tfrecord";
  auto writer = RecordWriter::Create(Env::Default(), path).value();
  for (int i = 0; i < n; ++i) {
    const float f = static_cast<float>(i);
    Example e;
    e.Set("v", Feature::Floats({f, f + 1, f + 2}));
    e.Set("id", Feature::Int64s({i}));
    EXPECT_TRUE(writer->WriteRecord(e.Serialize()).ok());
  }
  EXPECT_TRUE(writer->Close().ok());
  return path;
}

std::vector<Tuple> Drain(data::Dataset ds) {
  std::vector<Tuple> out;
  auto it = ds.MakeIterator();
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return out;
  for (;;) {
    Result<Tuple> e = it->Next();
    if (IsOutOfRange(e.status())) break;
    EXPECT_TRUE(e.ok()) << e.status();
    if (!e.ok()) break;
    out.push_back(*e);
  }
  return out;
}

// The error of building `json` (named p.json) as its kind says.
Status BuildError(const std::string& json) {
  Result<PipelineDef> def = ParsePipelineDef(json, "p.json");
  if (!def.ok()) return def.status();
  if (def->kind == DefKind::kDataset) return BuildDataset(*def).status();
  return BuildPipelineOptions(*def).status();
}

TEST(PipelineDefTest, JsonRoundTripsEveryAttributeType) {
  PipelineDef def;
  def.op_libraries = {"libx.so"};
  def.Add("range", {{"stop", 10}})
      .Add("Op",
           {{"i", 3},
            {"f", 0.25},
            {"b", true},
            {"s", "text"},
            {"t", DType::kFloat32},
            {"il", std::vector<int64_t>{1, -2}},
            {"fl", std::vector<double>{0.5, 1.5}},
            {"sl", std::vector<std::string>{"a", "b"}}},
           {{"num_parallel_calls", 2}});
  const std::string json = ToJson(def);
  Result<PipelineDef> back = ParsePipelineDef(json, "mem");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->source, "mem");
  EXPECT_EQ(back->op_libraries, def.op_libraries);
  ASSERT_EQ(back->steps.size(), 2u);
  EXPECT_EQ(back->steps[1].op, "Op");
  EXPECT_EQ(*back->steps[1].attrs.Find("f"), ops::AttrValue(0.25));
  EXPECT_EQ(*back->steps[1].attrs.Find("sl"),
            ops::AttrValue(std::vector<std::string>{"a", "b"}));
  // A dtype is written as its name and read back as a string.
  EXPECT_EQ(*back->steps[1].attrs.Find("t"), ops::AttrValue("float32"));
  EXPECT_EQ(ToJson(*back), json);
  EXPECT_THAT(json, HasSubstr("\"op\": \"range\""));
}

TEST(PipelineDefTest, DatasetOfBuiltInSteps) {
  const std::string json = R"({
    "version": 1, "kind": "dataset",
    "steps": [
      {"op": "range", "attrs": {"stop": 20}},
      {"op": "skip", "attrs": {"count": 2}},
      {"op": "take", "attrs": {"count": 7}},
      {"op": "batch", "attrs": {"batch_size": 3}},
      {"op": "prefetch", "attrs": {"buffer_size": 2}}
    ]})";
  Result<PipelineDef> def = ParsePipelineDef(json, "p.json");
  ASSERT_TRUE(def.ok()) << def.status();
  Result<data::Dataset> ds = BuildDataset(*def);
  ASSERT_TRUE(ds.ok()) << ds.status();
  std::vector<Tuple> batches = Drain(*ds);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0][0].flat<int64_t>()[0], 2);
  EXPECT_EQ(batches[2][0].dim_size(0), 1);
  EXPECT_EQ(batches[2][0].flat<int64_t>()[0], 8);
}

TEST(PipelineDefTest, DatasetParsesExamplesAndRunsACustomOp) {
  const std::string file = WriteExamples("dataset_op", 5);
  PipelineDef def;
  def.op_libraries = {kLibrary};
  def.Add("tfrecord", {{"files", std::vector<std::string>{file}}})
      .Add("fixed_len_feature", {{"key", "v"},
                                 {"dtype", "float32"},
                                 {"shape", std::vector<int64_t>{3}}})
      .Add("Scale", {{"factor", 10}, {"bias", 1}}, {{"num_parallel_calls", 2}})
      .Add("batch", {{"batch_size", 2}});
  // Through the file form, as a user would keep it.
  const std::string path = ::testing::TempDir() + "/dataset_op.json";
  ASSERT_TRUE(WritePipelineDef(def, path).ok());
  Result<PipelineDef> read = ReadPipelineDef(path);
  ASSERT_TRUE(read.ok()) << read.status();
  Result<data::Dataset> ds = BuildDataset(*read);
  ASSERT_TRUE(ds.ok()) << ds.status();
  std::vector<Tuple> batches = Drain(*ds);
  ASSERT_EQ(batches.size(), 3u);
  ASSERT_EQ(batches[0].size(), 1u);
  EXPECT_EQ(batches[0][0].shape().dims(), (std::vector<int64_t>{2, 3}));
  // Example 1's v = {1, 2, 3}, times 10 plus 1.
  EXPECT_FLOAT_EQ(batches[0][0].flat<float>()[3], 11.0f);
  EXPECT_FLOAT_EQ(batches[2][0].flat<float>()[2], 61.0f);
}

TEST(PipelineDefTest, PipelineDescribedWrittenAndBuiltAgain) {
  const std::string file = WriteExamples("pipeline_op", 40);
  ASSERT_TRUE(ops::LoadOpLibrary(kLibrary).ok());
  PipelineOptions options{
      .files = {file},
      .num_epochs = 2,
      .features = {{"v", FixedLenFeature({3}, DType::kFloat32)}},
      .read_batch = 8,
      .batching = {.batch_size = 10,
                   .shuffle = true,
                   .min_after_dequeue = 5,
                   .seed = 3}};
  auto op =
      ops::Op::Create("Scale", {{"factor", 2.0}}, {PartialShape({3})}).value();
  options.map = ops::OpPipelineMap(op).value();
  Result<PipelineDef> def = DescribePipeline(options, op.get());
  ASSERT_TRUE(def.ok()) << def.status();
  def->op_libraries = {kLibrary};
  const std::string json = ToJson(*def);
  EXPECT_THAT(json, HasSubstr("\"op\": \"Scale\""));
  EXPECT_THAT(json, HasSubstr("\"unit\": \"record\""));

  Result<PipelineDef> back = ParsePipelineDef(json, "p.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ToJson(*back), json);
  MetricsRegistry registry;
  auto pipeline = BuildPipeline(*back, {.metrics = &registry});
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  int64_t rows = 0;
  double sum = 0;
  for (;;) {
    Result<Tuple> batch = (*pipeline)->Next();
    if (IsOutOfRange(batch.status())) break;
    ASSERT_TRUE(batch.ok()) << batch.status();
    rows += (*batch)[0].dim_size(0);
    for (float x : (*batch)[0].flat<float>()) sum += x;
  }
  EXPECT_TRUE((*pipeline)->Close().ok());
  EXPECT_EQ(rows, 80);
  // Every v doubled, each example twice: 2 * 2 * sum(3i + 3).
  EXPECT_DOUBLE_EQ(sum, 2 * 2 * (3.0 * 780 + 3 * 40));
}

TEST(PipelineDefTest, DescribingAMapOfOnesOwnIsRefused) {
  PipelineOptions options{.files = {"x"}};
  options.map = MapFunction{.fn = [](Tuple t) -> Result<Tuple> { return t; },
                            .dtypes = {DType::kString},
                            .row_shapes = {PartialShape({})}};
  Status s = DescribePipeline(options).status();
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr("custom op"));
}

struct BadCase {
  const char* json;
  const char* message;  // a part of the error's message
};

TEST(PipelineDefTest, BadDefinitionsNameTheFileAndThePath) {
  ASSERT_TRUE(ops::LoadOpLibrary(kLibrary).ok());
  const BadCase cases[] = {
      {R"({"version": 1, "kind": "dataset", "steps": [})",
       "p.json: line 1, column 45: not valid JSON"},
      {"{\n  \"version\": 1,\n  \"kind\": \"dataset\"\n  \"steps\": []}",
       "p.json: line 4, column 9: not valid JSON"},
      {R"([1])", "p.json: $: must be an object, got a list"},
      {R"({"version": 2, "kind": "dataset", "steps": []})",
       "p.json: $.version: this inflow reads version 1, got 2"},
      {R"({"kind": "dataset", "steps": []})", "p.json: $: no \"version\""},
      {R"({"version": 1, "kind": "graph", "steps": []})",
       "p.json: $.kind: must be \"dataset\" or \"pipeline\""},
      {R"({"version": 1, "kind": "dataset", "steps": [], "extra": 1})",
       "p.json: $.extra: unknown field"},
      {R"({"version": 1, "kind": "dataset", "steps": [{"attrs": {}}]})",
       "p.json: $.steps[0]: a step needs an \"op\""},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": {"a": 1}}}]})",
       "p.json: $.steps[0].attrs.stop: an attribute is a number"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": [1, "a"]}}]})",
       "p.json: $.steps[0].attrs.stop: a list attribute holds"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "batch", "attrs": {"batch_size": "x"}}]})",
       "p.json: $.steps[1].attrs.batch_size: must be an int, got string"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "batch", "attrs": {}}]})",
       "p.json: $.steps[1].attrs: the step 'batch' needs 'batch_size'"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "batch", "attrs": {"batch_size": 2, "bath": 1}}]})",
       "p.json: $.steps[1].attrs.bath: the step 'batch' has no such attribute"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "batch", "attrs": {"batch_size": 0}}]})",
       "p.json: $.steps[1]: "},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "NoSuchOp", "attrs": {}}]})",
       "p.json: $.steps[1]: no step or op is named 'NoSuchOp'"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "batch", "attrs": {"batch_size": 1}}]})",
       "p.json: $.steps[0].op: a dataset starts with a source"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "range", "attrs": {"stop": 9}}]})",
       "p.json: $.steps[1]: 'range' is a source"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "Scale", "attrs": {"factr": 2}}]})",
       "p.json: $.steps[1].attrs.factr: op 'Scale' has no such attribute "
       "(it takes factor, bias)"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "Scale", "attrs": {"factor": "two"}}]})",
       "p.json: $.steps[1].attrs.factor: op 'Scale' takes float, got string"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "range", "attrs": {"stop": 9}},
           {"op": "Scale", "options": {"threads": 2}}]})",
       "p.json: $.steps[1].options.threads: the step 'Scale' has no such "
       "option"},
      {R"({"version": 1, "kind": "dataset", "steps": [
           {"op": "tfrecord", "attrs": {"files": ["/no/such/file-*"]}}]})",
       "p.json: $.steps[0].attrs.files: no file matches '/no/such/file-*'"},
      {R"({"version": 1, "kind": "pipeline", "steps": [
           {"op": "files", "attrs": {"patterns": ["x"]}},
           {"op": "fixed_len_feature", "attrs": {"key": "v", "dtype": "flt"}},
           {"op": "batch", "attrs": {"batch_size": 2}}]})",
       "p.json: $.steps[1].attrs.dtype: no dtype is named \"flt\""},
      {R"({"version": 1, "kind": "pipeline", "steps": [
           {"op": "files", "attrs": {"patterns": ["x"]}},
           {"op": "batch", "attrs": {"batch_size": 2}},
           {"op": "fixed_len_feature",
            "attrs": {"key": "v", "dtype": "float32"}}]})",
       "p.json: $.steps[2]: 'fixed_len_feature' out of place"},
      {R"({"version": 1, "kind": "pipeline", "steps": [
           {"op": "files", "attrs": {"patterns": ["x"]}}]})",
       "p.json: $.steps: no 'batch' step"},
      {R"({"version": 1, "kind": "pipeline", "steps": [
           {"op": "files", "attrs": {"patterns": ["x"]}},
           {"op": "fixed_len_feature",
            "attrs": {"key": "v", "dtype": "float32", "shape": [3]}},
           {"op": "Scale", "options": {"unit": "row"}},
           {"op": "batch", "attrs": {"batch_size": 2}}]})",
       "p.json: $.steps[2].options.unit: must be \"record\" or \"chunk\""},
      {R"({"version": 1, "kind": "dataset", "op_libraries": ["/no/lib.so"],
           "steps": [{"op": "range", "attrs": {"stop": 1}}]})",
       "p.json: $.op_libraries[0]: "},
  };
  for (const BadCase& c : cases) {
    Status s = BuildError(c.json);
    EXPECT_FALSE(s.ok()) << c.json;
    EXPECT_THAT(s.message(), HasSubstr(c.message)) << c.json;
  }
}

TEST(PipelineDefTest, MissingFileIsNotFound) {
  Status s = ReadPipelineDef(::testing::TempDir() + "/no_such.json").status();
  EXPECT_TRUE(IsNotFound(s)) << s;
}

TEST(PipelineDefTest, WrongKindForTheBuilder) {
  PipelineDef def;
  def.kind = DefKind::kPipeline;
  EXPECT_THAT(BuildDataset(def).status().message(),
              HasSubstr("a pipeline definition, not a dataset's"));
  def.kind = DefKind::kDataset;
  EXPECT_THAT(BuildPipelineOptions(def).status().message(),
              HasSubstr("a dataset definition, not a pipeline's"));
}

}  // namespace
}  // namespace inflow::pipedef
