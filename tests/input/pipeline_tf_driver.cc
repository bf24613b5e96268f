// Copyright 2026 The inflow Authors.
//
// A driver for tests/py/test_pipeline_vs_tf.py: reads a JSON list of cases
// on stdin, runs each through inflow's reading pipeline as TF1 composes it
// (StringInputProducer -> TFRecordReader::Read -> ExampleParser::ParseSingle
// -> Batch or ShuffleBatch, one thread each) and prints a JSON list of
// results, so that pytest can hold them against TF's own pipeline
// (tests/py/pipeline_tf_oracle.py describes the case and result formats).
//
// Case: {"files": [..], "features": [{"key", "dtype", "shape"}],
//        "num_epochs", "shuffle", "seed", "graph_seed", "batch": "batch" |
//        "shuffle_batch", "batch_size", "capacity", "min_after_dequeue",
//        "batch_seed", "allow_smaller_final_batch", "wait_full"}
// Result: {"batches": [{key: Tensor}], "status": {"code", "message"}}, the
// status being the error that ended the batches (OUT_OF_RANGE at the end
// of input), or {"setup_error": {"code", "message"}}; "join_error" when the
// coordinator's Join was not OK. With "mode": "producer" only the producer
// runs: {"filenames": [..], "status": ..}.
//
// `pipeline_tf_driver --check SAMPLE.json` replays a recorded sample
// (tests/input/testdata/pipeline_sample.json, from pipeline_tf_oracle.py):
// it writes the sample's corpus to a temporary directory, runs its cases and
// compares every batch and the final status code with TF's; exit status 1
// on a difference. ctest runs it, so under the sanitizers too.
//
// "wait_full": before every Next() the driver waits until the batching
// queue is full or closed, as the oracle does on TF's side (it polls: the
// queue has no event for "full"; a deadline bounds the wait).

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "inflow/core/metrics.h"
#include "inflow/example/example_json.h"
#include "inflow/example/example_parser.h"
#include "inflow/input/batching.h"
#include "inflow/input/producers.h"
#include "inflow/input/readers.h"
#include "inflow/io/env.h"
#include "inflow/io/record_writer.h"
#include "inflow/threads/coordinator.h"
#include "inflow/threads/queue_runner.h"

namespace inflow {
namespace {

using json = nlohmann::json;

constexpr auto kNextTimeout = std::chrono::milliseconds(60'000);
constexpr auto kWaitFullDeadline = std::chrono::seconds(60);

json TensorJson(const Tensor& t) {
  json values = json::array();
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    switch (t.dtype()) {
      case DType::kFloat32: {
        uint32_t bits;
        std::memcpy(&bits, t.data<float>() + i, 4);
        values.push_back(bits);
        break;
      }
      case DType::kInt64:
        values.push_back(t.data<int64_t>()[i]);
        break;
      default:
        values.push_back(Base64Encode(t.data<std::string>()[i]));
        break;
    }
  }
  return {{"dtype", std::string(DTypeName(t.dtype()))},
          {"shape", t.shape().dims()},
          {"values", values}};
}

json StatusJson(const Status& s) {
  return {{"code", std::string(StatusCodeName(s.code()))},
          {"message", std::string(s.message())}};
}

std::optional<int64_t> OptionalInt(const json& c, const char* key) {
  if (!c.contains(key) || c[key].is_null()) return std::nullopt;
  return c[key].get<int64_t>();
}

// The batch's static signature and the parser for the case's features.
struct Features {
  std::vector<std::string> keys;
  std::vector<DType> dtypes;
  std::vector<PartialShape> shapes;
  FeatureSpecs specs;
};

Result<Features> ReadFeatures(const json& list) {
  Features f;
  for (const json& s : list) {
    const std::optional<DType> dtype =
        DTypeFromName(s["dtype"].get<std::string>());
    if (!dtype) return InvalidArgumentError("bad dtype");
    const auto dims = s["shape"].get<std::vector<int64_t>>();
    f.keys.push_back(s["key"].get<std::string>());
    f.dtypes.push_back(*dtype);
    f.shapes.emplace_back(dims);
    f.specs.emplace_back(f.keys.back(),
                         FixedLenFeature(TensorShape(dims), *dtype));
  }
  return f;
}

// Waits until `queue` is full or closed (see the file comment).
Status WaitFull(const QueueInterface& queue) {
  const auto deadline = std::chrono::steady_clock::now() + kWaitFullDeadline;
  while (queue.Size() < queue.Capacity() && !queue.IsClosed()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return DeadlineExceededError(
          "the batching queue neither filled nor closed");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return OkStatus();
}

ProducerOptions ProducerOptionsOf(const json& c, MetricsRegistry* metrics,
                                  QueueRunnerCollection* runners) {
  ProducerOptions po;
  po.num_epochs = OptionalInt(c, "num_epochs");
  po.shuffle = c["shuffle"].get<bool>();
  po.seed = OptionalInt(c, "seed");
  po.graph_seed = OptionalInt(c, "graph_seed");
  po.metrics = metrics;
  po.collection = runners;
  return po;
}

// "mode": "producer": the filenames the producer alone yields.
json RunProducer(const json& c) {
  MetricsRegistry metrics;
  QueueRunnerCollection runners;
  Result<Producer> files =
      StringInputProducer(c["files"].get<std::vector<std::string>>(),
                          ProducerOptionsOf(c, &metrics, &runners));
  if (!files.ok()) return {{"setup_error", StatusJson(files.status())}};
  Coordinator coord;
  std::vector<std::shared_ptr<Thread>> threads = runners.Start(&coord);
  json names = json::array();
  Status end;
  while (true) {
    Result<Tuple> name =
        files->queue->Dequeue(coord.MakeCallOptions(kNextTimeout));
    if (!name.ok()) {
      end = name.status();
      break;
    }
    names.push_back((*name)[0].data<std::string>()[0]);
  }
  coord.RequestStop();
  json out = {{"filenames", names}, {"status", StatusJson(end)}};
  const Status joined = coord.Join(threads);
  if (!joined.ok()) out["join_error"] = StatusJson(joined);
  return out;
}

json RunCase(const json& c) {
  if (c.value("mode", "") == "producer") return RunProducer(c);
  Result<Features> features = ReadFeatures(c["features"]);
  if (!features.ok()) return {{"setup_error", StatusJson(features.status())}};
  Result<ExampleParser> parser = ExampleParser::Create(features->specs);
  if (!parser.ok()) return {{"setup_error", StatusJson(parser.status())}};
  Result<std::unique_ptr<ReaderBase>> reader =
      NewTFRecordReader(Env::Default());
  if (!reader.ok()) return {{"setup_error", StatusJson(reader.status())}};

  // Each case has its own registry and collection: nothing is shared with
  // the next case.
  MetricsRegistry metrics;
  QueueRunnerCollection runners;
  const std::optional<int64_t> graph_seed = OptionalInt(c, "graph_seed");
  Result<Producer> files =
      StringInputProducer(c["files"].get<std::vector<std::string>>(),
                          ProducerOptionsOf(c, &metrics, &runners));
  if (!files.ok()) return {{"setup_error", StatusJson(files.status())}};

  BatchInput input;
  input.dtypes = features->dtypes;
  input.shapes = features->shapes;
  input.names = features->keys;
  std::shared_ptr<QueueInterface> filenames = files->queue;
  ReaderBase* read = reader->get();
  const ExampleParser* parse = &*parser;
  const std::vector<std::string> keys = features->keys;
  input.step = [filenames, read, parse,
                keys](const CallOptions& options) -> Result<Tuple> {
    INFLOW_ASSIGN_OR_RETURN(ReaderRecord record,
                            read->Read(*filenames, options));
    INFLOW_ASSIGN_OR_RETURN(ParsedFeatures parsed,
                            parse->ParseSingle(record.value));
    Tuple out;
    for (const std::string& key : keys) {
      for (size_t i = 0; i < parsed.dense_keys().size(); ++i) {
        if (parsed.dense_keys()[i] == key) out.push_back(parsed.dense[i]);
      }
    }
    return out;
  };

  Result<std::shared_ptr<Batcher>> batcher = InvalidArgumentError("no batch");
  const std::string kind = c["batch"];
  if (kind == "shuffle_batch") {
    ShuffleBatchOptions bo;
    bo.batch_size = c["batch_size"].get<int64_t>();
    bo.capacity = c["capacity"].get<int64_t>();
    bo.allow_smaller_final_batch = c["allow_smaller_final_batch"].get<bool>();
    bo.min_after_dequeue = c["min_after_dequeue"].get<int64_t>();
    bo.seed = OptionalInt(c, "batch_seed");
    bo.graph_seed = graph_seed;
    bo.metrics = &metrics;
    bo.collection = &runners;
    batcher = ShuffleBatch(std::move(input), bo);
  } else {
    BatchOptions bo;
    bo.batch_size = c["batch_size"].get<int64_t>();
    bo.capacity = c["capacity"].get<int64_t>();
    bo.allow_smaller_final_batch = c["allow_smaller_final_batch"].get<bool>();
    bo.metrics = &metrics;
    bo.collection = &runners;
    batcher = Batch(std::move(input), bo);
  }
  if (!batcher.ok()) return {{"setup_error", StatusJson(batcher.status())}};

  Coordinator coord;
  std::vector<std::shared_ptr<Thread>> threads = runners.Start(&coord);
  json batches = json::array();
  Status end;
  const bool wait_full = c.value("wait_full", false);
  while (true) {
    if (wait_full) {
      end = WaitFull(*(*batcher)->queue());
      if (!end.ok()) break;
    }
    Result<NamedTuple> batch =
        (*batcher)->NextNamed(coord.MakeCallOptions(kNextTimeout));
    if (!batch.ok()) {
      end = batch.status();
      break;
    }
    json b = json::object();
    for (const auto& [key, tensor] : *batch) b[key] = TensorJson(tensor);
    batches.push_back(b);
  }
  coord.RequestStop();
  json out = {{"batches", batches}, {"status", StatusJson(end)}};
  const Status joined = coord.Join(threads);
  if (!joined.ok()) out["join_error"] = StatusJson(joined);
  return out;
}

// --check: see the file comment.
int CheckSample(const std::string& sample_path) {
  std::ifstream in(sample_path);
  if (!in) {
    std::cerr << "cannot open " << sample_path << "\n";
    return 2;
  }
  const json sample = json::parse(in);
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() /
                       ("pipeline_tf_sample." + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<std::string> paths;
  for (const json& file : sample["corpus"]) {
    paths.push_back((dir / ("f" + std::to_string(paths.size()))).string());
    auto writer = RecordWriter::Create(Env::Default(), paths.back());
    if (!writer.ok()) {
      std::cerr << writer.status() << "\n";
      return 2;
    }
    for (const json& record : file) {
      Result<std::string> bytes = Base64Decode(record.get<std::string>());
      if (!bytes.ok() || !(*writer)->WriteRecord(*bytes).ok()) return 2;
    }
    if (!(*writer)->Close().ok()) return 2;
  }
  int failures = 0;
  for (const json& expected : sample["cases"]) {
    json c = expected["case"];
    json files = json::array();
    for (const json& i : c["files"]) files.push_back(paths.at(i.get<size_t>()));
    c["files"] = files;
    const json got = RunCase(c);
    std::string problem;
    if (got.contains("setup_error") || got.contains("join_error")) {
      problem = got.dump();
    } else if (got["batches"] != expected["batches"]) {
      size_t step = 0;
      while (step < got["batches"].size() &&
             step < expected["batches"].size() &&
             got["batches"][step] == expected["batches"][step]) {
        ++step;
      }
      problem = "batches differ from step " + std::to_string(step) +
                " (inflow " + std::to_string(got["batches"].size()) +
                " steps, TF " + std::to_string(expected["batches"].size()) +
                ")";
    } else if (got["status"]["code"] != expected["code"]) {
      problem = "ends with " + got["status"].dump() + ", TF with " +
                expected["code"].dump();
    }
    std::cout << c["name"].get<std::string>() << ": "
              << (problem.empty() ? "same as TF" : problem) << "\n";
    if (!problem.empty()) ++failures;
  }
  fs::remove_all(dir);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--check") {
    return inflow::CheckSample(argv[2]);
  }
  const nlohmann::json cases = nlohmann::json::parse(std::cin);
  nlohmann::json results = nlohmann::json::array();
  for (const nlohmann::json& c : cases) results.push_back(inflow::RunCase(c));
  std::cout << results.dump() << "\n";
  return 0;
}
