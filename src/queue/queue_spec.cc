// Copyright 2026 The inflow Authors.
//
// Construction-time checks (docs/conformance.md, "Queues",
// "Construction (1.1)").

#include <cstdint>
#include <limits>
#include <set>
#include <string>

#include "queue/queue_core.h"

namespace inflow {

std::string_view QueueKindName(QueueKind kind) {
  switch (kind) {
    case QueueKind::kFIFO:
      return "FIFOQueue";
    case QueueKind::kPaddingFIFO:
      return "PaddingFIFOQueue";
    case QueueKind::kRandomShuffle:
      return "RandomShuffleQueue";
    case QueueKind::kPriority:
      return "PriorityQueue";
  }
  return "Queue";
}

namespace internal {
namespace {

std::string_view DefaultName(QueueKind kind) {
  switch (kind) {
    case QueueKind::kFIFO:
      return "fifo_queue";
    case QueueKind::kPaddingFIFO:
      return "padding_fifo_queue";
    case QueueKind::kRandomShuffle:
      return "random_shuffle_queue";
    case QueueKind::kPriority:
      return "priority_queue";
  }
  return "queue";
}

}  // namespace

Result<QueueSpec> MakeQueueSpec(QueueKind kind, const QueueOptions& options) {
  QueueSpec spec;
  spec.kind = kind;
  spec.name =
      options.name.empty() ? std::string(DefaultName(kind)) : options.name;
  const std::string where =
      std::string(QueueKindName(kind)) + " '" + spec.name + "': ";

  if (options.capacity > std::numeric_limits<int32_t>::max()) {
    return InvalidArgumentError(where + "capacity " +
                                std::to_string(options.capacity) +
                                " does not fit in int32");
  }
  spec.capacity = options.capacity < 0 ? std::numeric_limits<int32_t>::max()
                                       : static_cast<int32_t>(options.capacity);

  if (options.dtypes.empty()) {
    return InvalidArgumentError(where + "needs at least one component dtype");
  }
  for (size_t i = 0; i < options.dtypes.size(); ++i) {
    if (!IsValidDType(options.dtypes[i])) {
      return InvalidArgumentError(where + "component " + std::to_string(i) +
                                  " has an invalid dtype");
    }
  }
  if (!options.shapes.empty() &&
      options.shapes.size() != options.dtypes.size()) {
    return InvalidArgumentError(
        where + "got " + std::to_string(options.shapes.size()) +
        " shapes for " + std::to_string(options.dtypes.size()) + " dtypes");
  }
  if (kind == QueueKind::kPaddingFIFO && options.shapes.empty()) {
    return InvalidArgumentError(where +
                                "shapes must be provided for all components");
  }
  for (size_t i = 0; i < options.shapes.size(); ++i) {
    const PartialShape& shape = options.shapes[i];
    if (kind == QueueKind::kPaddingFIFO) {
      if (!shape.rank_known()) {
        return InvalidArgumentError(where + "component " + std::to_string(i) +
                                    " has unknown rank; PaddingFIFOQueue "
                                    "needs known ranks");
      }
      for (int d = 0; d < shape.rank(); ++d) {
        if (shape.dim(d) < -1) {
          return InvalidArgumentError(where + "component " + std::to_string(i) +
                                      " has shape " + shape.DebugString());
        }
      }
    } else if (!shape.IsFullyDefined()) {
      return InvalidArgumentError(where + "component " + std::to_string(i) +
                                  " has shape " + shape.DebugString() +
                                  ", but shapes must be fully defined");
    }
  }

  if (kind == QueueKind::kPriority) {
    // TF prepends the int64 scalar priority.
    spec.dtypes.push_back(DType::kInt64);
    if (!options.shapes.empty()) spec.shapes.push_back(PartialShape({}));
  }
  spec.dtypes.insert(spec.dtypes.end(), options.dtypes.begin(),
                     options.dtypes.end());
  spec.shapes.insert(spec.shapes.end(), options.shapes.begin(),
                     options.shapes.end());

  if (!options.names.empty()) {
    if (options.names.size() != spec.dtypes.size()) {
      return InvalidArgumentError(
          where + "got " + std::to_string(options.names.size()) +
          " names for " + std::to_string(spec.dtypes.size()) + " components" +
          (kind == QueueKind::kPriority ? " (including the priority)" : ""));
    }
    std::set<std::string> seen;
    for (const std::string& n : options.names) {
      if (!seen.insert(n).second) {
        return InvalidArgumentError(where + "duplicate component name '" + n +
                                    "'");
      }
    }
    spec.names = options.names;
  }

  if (kind == QueueKind::kRandomShuffle) {
    if (options.min_after_dequeue < 0 ||
        options.min_after_dequeue >= spec.capacity) {
      return InvalidArgumentError(where + "min_after_dequeue " +
                                  std::to_string(options.min_after_dequeue) +
                                  " must be >= 0 and less than capacity " +
                                  std::to_string(spec.capacity));
    }
    spec.min_after_dequeue = options.min_after_dequeue;
    spec.seed = options.seed;
    spec.seed2 = options.seed2;
  }
  return spec;
}

}  // namespace internal
}  // namespace inflow
