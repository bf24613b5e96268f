// Copyright 2026 The inflow Authors.
//
// The recorded queue-operation sequences queue_tf_replay replays: one
// JSON object a line (tests/py/queue_tf_oracle.py writes them), parsed into
// a Sequence, and the short texts its reports are made of.

#ifndef INFLOW_TESTS_QUEUE_TF_QUEUE_TF_SEQUENCE_H_
#define INFLOW_TESTS_QUEUE_TF_QUEUE_TF_SEQUENCE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

#include "nlohmann/json.hpp"

namespace inflow::queue_tf {

using nlohmann::json;

// A recorded sequence, parsed up front so that workers share nothing
// mutable.
struct Sequence {
  int64_t seed = 0;
  std::string kind_name;
  QueueKind kind = QueueKind::kFIFO;
  QueueOptions options;
  json ops;
  std::string queue_json;
  // "order": "multiset" (a RandomShuffleQueue seeded randomly): compared as
  // with --rsq-order=multiset, without the determinism check.
  bool multiset_order = false;
  // What TF's queue held at the end, drained one Dequeue at a time after
  // Close(cancel); absent when the recording stopped early.
  std::optional<json> remaining;
};

// "fifo", "padding_fifo", "random_shuffle", "priority".
Result<QueueKind> KindFromName(std::string_view name);
// {"dtype", "shape", "values"} as recorded.
Result<Tensor> TensorFromJson(const json& j);
Result<Tuple> TupleFromJson(const json& j);
// One line of a recording; INVALID_ARGUMENT naming what is wrong.
Result<Sequence> ParseSequence(const std::string& line);

// The name of a status code number ("OUT_OF_RANGE").
std::string CodeName(int code);
// "OK", or the status as text.
std::string StatusText(const Status& s);
// "dequeue_many(n=3, timeout_ms=1)" and the like, for reports.
std::string OpSummary(const json& op);
// What an op expected, for reports.
std::string ExpectSummary(const json& expect);
// One row of a dequeued batch (or a whole single element) as a printable
// key, for multiset comparisons; every row's.
std::string RowKey(const Tuple& tuple, int64_t row, bool batched);
std::vector<std::string> RowKeys(const Tuple& tuple, bool batched);

}  // namespace inflow::queue_tf

#endif  // INFLOW_TESTS_QUEUE_TF_QUEUE_TF_SEQUENCE_H_
