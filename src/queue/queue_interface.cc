// Copyright 2026 The inflow Authors.
//
// The named-component forms of QueueInterface (TF's dict enqueue and
// dequeue).

#include <string>
#include <utility>

#include "inflow/queue/queue.h"

#include "queue/batch.h"

namespace inflow {

Status QueueInterface::EnqueueManyInPlace(int64_t rows, const RowWriter& write,
                                          const CallOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(
      const bool write_rows,
      internal::StartInPlace(component_dtypes(), component_shapes(), rows,
                             options, "Queue '" + name() + "'"));
  if (!write_rows) return OkStatus();
  INFLOW_ASSIGN_OR_RETURN(
      Tuple batch, internal::WriteNewBatch(component_dtypes(),
                                           component_shapes(), rows, write));
  return EnqueueMany(std::move(batch), options);
}

Result<Tuple> QueueInterface::TupleFromNamed(NamedTuple named) const {
  const std::vector<std::string>& names = component_names();
  if (names.empty()) {
    return InvalidArgumentError("Queue '" + name() +
                                "' has no component names; use the "
                                "positional calls");
  }
  Tuple tuple;
  tuple.reserve(names.size());
  for (const std::string& n : names) {
    auto it = named.find(n);
    if (it == named.end()) {
      return InvalidArgumentError("Queue '" + name() + "': component '" + n +
                                  "' is missing");
    }
    tuple.push_back(std::move(it->second));
  }
  if (named.size() != names.size()) {
    for (const auto& [key, value] : named) {
      bool known = false;
      for (const std::string& n : names) known = known || n == key;
      if (!known) {
        return InvalidArgumentError("Queue '" + name() +
                                    "' has no component named '" + key + "'");
      }
    }
  }
  return tuple;
}

Result<NamedTuple> QueueInterface::NamedFromTuple(Tuple tuple) const {
  const std::vector<std::string>& names = component_names();
  if (names.empty()) {
    return InvalidArgumentError("Queue '" + name() +
                                "' has no component names; use the "
                                "positional calls");
  }
  if (tuple.size() != names.size()) {
    return InvalidArgumentError(
        "Queue '" + name() + "': expected " + std::to_string(names.size()) +
        " components, got " + std::to_string(tuple.size()));
  }
  NamedTuple named;
  for (size_t i = 0; i < names.size(); ++i) {
    named.emplace(names[i], std::move(tuple[i]));
  }
  return named;
}

Status QueueInterface::EnqueueNamed(NamedTuple element,
                                    const CallOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(Tuple tuple, TupleFromNamed(std::move(element)));
  return Enqueue(std::move(tuple), options);
}

Status QueueInterface::EnqueueManyNamed(NamedTuple batch,
                                        const CallOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(Tuple tuple, TupleFromNamed(std::move(batch)));
  return EnqueueMany(std::move(tuple), options);
}

Result<NamedTuple> QueueInterface::DequeueNamed(const CallOptions& options) {
  if (component_names().empty()) return NamedFromTuple({});
  INFLOW_ASSIGN_OR_RETURN(Tuple tuple, Dequeue(options));
  return NamedFromTuple(std::move(tuple));
}

Result<NamedTuple> QueueInterface::DequeueManyNamed(
    int64_t n, const CallOptions& options) {
  if (component_names().empty()) return NamedFromTuple({});
  INFLOW_ASSIGN_OR_RETURN(Tuple tuple, DequeueMany(n, options));
  return NamedFromTuple(std::move(tuple));
}

Result<NamedTuple> QueueInterface::DequeueUpToNamed(
    int64_t n, const CallOptions& options) {
  if (component_names().empty()) return NamedFromTuple({});
  INFLOW_ASSIGN_OR_RETURN(Tuple tuple, DequeueUpTo(n, options));
  return NamedFromTuple(std::move(tuple));
}

}  // namespace inflow
