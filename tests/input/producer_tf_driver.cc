// Copyright 2026 The inflow Authors.
//
// Driver for tests/py/test_producers_vs_tf.py: runs one input producer to
// the end of input and prints what a consumer dequeues, one element a line,
// then "OUT_OF_RANGE" (or the error that ended it).
//
//   producer_tf_driver KIND N NUM_EPOCHS SHUFFLE SEED GRAPH_SEED CAPACITY
//
// KIND: range (0 .. N-1), string ("s0" .. "sN-1") or slice (rows of an
// int64 vector [0, 10, ..] and a string matrix [["r<i>", "c<i>"]], printed
// "10 r1 c1"). NUM_EPOCHS, SEED, GRAPH_SEED: a number or "none". SHUFFLE:
// 0 or 1. Exit status 0 when the run ended with OUT_OF_RANGE, 1 otherwise,
// 2 for bad arguments.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "inflow/input/producers.h"
#include "inflow/threads/coordinator.h"

namespace inflow {
namespace {

constexpr std::chrono::milliseconds kCallBound{60000};

std::optional<int64_t> OptionalNumber(const char* arg) {
  if (std::string(arg) == "none") return std::nullopt;
  return std::strtoll(arg, nullptr, 10);
}

// prefix + i (appended: GCC 12 warns, wrongly, on "literal" + string).
std::string Numbered(const char* prefix, int i) {
  std::string out = prefix;
  out += std::to_string(i);
  return out;
}

std::string Text(const Tensor& t) {
  switch (t.dtype()) {
    case DType::kInt32:
      return std::to_string(*t.data<int32_t>());
    case DType::kInt64:
      return std::to_string(*t.data<int64_t>());
    case DType::kString: {
      std::string out;
      for (const std::string& s : t.flat<std::string>()) {
        if (!out.empty()) out += ' ';
        out += s;
      }
      return out;
    }
    default:
      return t.DebugString();
  }
}

int Run(int argc, char** argv) {
  if (argc != 8) {
    std::fprintf(stderr,
                 "usage: %s KIND N NUM_EPOCHS SHUFFLE SEED GRAPH_SEED "
                 "CAPACITY\n",
                 argv[0]);
    return 2;
  }
  const std::string kind = argv[1];
  const int n = std::atoi(argv[2]);
  QueueRunnerCollection collection;
  MetricsRegistry registry;
  ProducerOptions options;
  options.collection = &collection;
  options.metrics = &registry;
  options.num_epochs = OptionalNumber(argv[3]);
  options.shuffle = std::string(argv[4]) == "1";
  options.seed = OptionalNumber(argv[5]);
  options.graph_seed = OptionalNumber(argv[6]);
  options.capacity = std::strtoll(argv[7], nullptr, 10);

  std::shared_ptr<QueueRunner> runner;
  std::function<Result<Tuple>(const CallOptions&)> next;
  Result<Producer> producer = InvalidArgumentError("unknown kind " + kind);
  Result<SliceProducer> slice = InvalidArgumentError("unknown kind " + kind);
  if (kind == "range") {
    producer = RangeInputProducer(n, options);
  } else if (kind == "string") {
    std::vector<std::string> strings;
    for (int i = 0; i < n; ++i) strings.push_back(Numbered("s", i));
    producer = StringInputProducer(strings, options);
  } else if (kind == "slice") {
    std::vector<int64_t> values;
    Tensor names(DType::kString, TensorShape({n, 2}));
    std::span<std::string> flat = names.mutable_flat<std::string>().value();
    for (int i = 0; i < n; ++i) {
      values.push_back(int64_t{10} * i);
      flat[2 * i] = Numbered("r", i);
      flat[2 * i + 1] = Numbered("c", i);
    }
    slice = SliceInputProducer({Tensor::FromVector(values), names}, options);
  }
  if (producer.ok()) {
    runner = producer->runner;
    next = [queue = producer->queue](const CallOptions& call) {
      return queue->Dequeue(call);
    };
  } else if (slice.ok()) {
    runner = slice->indices.runner;
    next = slice->step;
  } else {
    const Status& error = kind == "slice" ? slice.status() : producer.status();
    std::printf("%s\n", error.ToString().c_str());
    return 2;
  }

  Coordinator coord;
  auto threads = runner->CreateThreads(&coord, /*start=*/true);
  Status end;
  while (true) {
    Result<Tuple> element = next(CallOptions{kCallBound});
    if (!element.ok()) {
      end = element.status();
      break;
    }
    std::string line;
    for (const Tensor& t : *element) {
      if (!line.empty()) line += ' ';
      line += Text(t);
    }
    std::printf("%s\n", line.c_str());
  }
  coord.RequestStop();
  const Status joined = coord.Join(threads);
  const bool clean = end.code() == StatusCode::kOutOfRange && joined.ok();
  std::printf("%s\n", clean ? "OUT_OF_RANGE" : end.ToString().c_str());
  return clean ? 0 : 1;
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) { return inflow::Run(argc, argv); }
