// Copyright 2026 The inflow Authors.
//
// The four queue factories and the process-wide registry of shared queues
// (docs/conformance.md, "Shared queues (1.2)").

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "inflow/core/mutex.h"
#include "inflow/queue/fifo_queue.h"
#include "inflow/queue/padding_fifo_queue.h"
#include "inflow/queue/priority_queue.h"
#include "inflow/queue/queue_options.h"
#include "inflow/queue/random_shuffle_queue.h"

#include "queue/queue_adapter.h"
#include "queue/queue_core.h"

namespace inflow {
namespace internal {
namespace {

std::string DTypesString(const std::vector<DType>& dtypes) {
  std::string s = "[";
  for (size_t i = 0; i < dtypes.size(); ++i) {
    if (i > 0) s += ",";
    s += DTypeName(dtypes[i]);
  }
  return s + "]";
}

std::string ShapesString(const std::vector<PartialShape>& shapes) {
  std::string s = "[";
  for (size_t i = 0; i < shapes.size(); ++i) {
    if (i > 0) s += ",";
    s += shapes[i].DebugString();
  }
  return s + "]";
}

std::string NamesString(const std::vector<std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) s += ",";
    s += "'" + names[i] + "'";
  }
  return s + "]";
}

bool ShapesMatch(const QueueSpec& have, const QueueSpec& want) {
  if (have.kind != QueueKind::kPaddingFIFO) return have.shapes == want.shapes;
  // PaddingFIFOQueue: compatible shapes are enough, as TF.
  if (have.shapes.size() != want.shapes.size()) return false;
  for (size_t i = 0; i < have.shapes.size(); ++i) {
    if (!have.shapes[i].IsCompatibleWith(want.shapes[i])) return false;
  }
  return true;
}

// TF's QueueBase::MatchesNodeDef* checks, plus the component names (TF
// keeps names in the Python wrapper, so it cannot check them; a shared
// queue here carries one set of names, so a mismatch is an error).
Status CheckCompatible(const QueueSpec& have, const QueueSpec& want,
                       const std::string& shared_name) {
  const std::string queue = "Shared queue '" + shared_name + "'";
  if (have.kind != want.kind) {
    return InvalidArgumentError(
        queue + " is a " + std::string(QueueKindName(have.kind)) + " but a " +
        std::string(QueueKindName(want.kind)) + " was requested");
  }
  if (have.capacity != want.capacity) {
    return InvalidArgumentError(
        queue + " has capacity " + std::to_string(have.capacity) +
        " but requested capacity was " + std::to_string(want.capacity));
  }
  if (have.dtypes != want.dtypes) {
    return InvalidArgumentError(
        queue + " has component types " + DTypesString(have.dtypes) +
        " but requested component types were " + DTypesString(want.dtypes));
  }
  if (!ShapesMatch(have, want)) {
    return InvalidArgumentError(
        queue + " has component shapes " + ShapesString(have.shapes) +
        " but requested component shapes were " + ShapesString(want.shapes));
  }
  if (have.names != want.names) {
    return InvalidArgumentError(
        queue + " has component names " + NamesString(have.names) +
        " but requested component names were " + NamesString(want.names));
  }
  if (have.kind == QueueKind::kRandomShuffle) {
    if (have.min_after_dequeue != want.min_after_dequeue) {
      return InvalidArgumentError(queue + " has min_after_dequeue " +
                                  std::to_string(have.min_after_dequeue) +
                                  " but requested min_after_dequeue was " +
                                  std::to_string(want.min_after_dequeue));
    }
    if ((want.seed != 0 || want.seed2 != 0) &&
        (want.seed != have.seed || want.seed2 != have.seed2)) {
      return InvalidArgumentError(
          queue + " has random seeds (" + std::to_string(have.seed) + ", " +
          std::to_string(have.seed2) + ") but requested seeds are (" +
          std::to_string(want.seed) + ", " + std::to_string(want.seed2) + ")");
    }
  }
  return OkStatus();
}

// Thread-safe. Shared queues by (container, shared_name). Entries hold weak
// references: a shared queue lives while someone holds it.
class SharedQueueRegistry {
 public:
  static SharedQueueRegistry& Get() {
    static SharedQueueRegistry registry;
    return registry;
  }

  template <typename Public>
  Result<std::shared_ptr<Public>> GetOrCreate(QueueSpec spec,
                                              const QueueOptions& options) {
    const std::string key = options.container + '\0' + options.shared_name;
    MutexLock lock(&mu_);
    Entry& entry = entries_[key];
    if (std::shared_ptr<QueueInterface> existing = entry.queue.lock()) {
      INFLOW_RETURN_IF_ERROR(
          CheckCompatible(entry.spec, spec, options.shared_name));
      // Same kind, so the object is a QueueAdapter<Public>.
      return std::static_pointer_cast<Public>(existing);
    }
    auto queue = std::make_shared<QueueAdapter<Public>>(spec);
    entry.spec = std::move(spec);
    entry.queue = queue;
    return std::shared_ptr<Public>(std::move(queue));
  }

 private:
  struct Entry {
    QueueSpec spec;
    std::weak_ptr<QueueInterface> queue;
  };
  Mutex mu_;
  std::map<std::string, Entry> entries_ INFLOW_GUARDED_BY(mu_);
};

template <typename Public>
Result<std::shared_ptr<Public>> Create(const QueueOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(QueueSpec spec,
                          MakeQueueSpec(Public::kKind, options));
  if (!options.shared_name.empty()) {
    return SharedQueueRegistry::Get().GetOrCreate<Public>(std::move(spec),
                                                          options);
  }
  return std::shared_ptr<Public>(
      std::make_shared<QueueAdapter<Public>>(std::move(spec)));
}

template <typename Public>
Result<std::shared_ptr<QueueInterface>> CreateAny(const QueueOptions& options) {
  INFLOW_ASSIGN_OR_RETURN(std::shared_ptr<Public> queue,
                          Create<Public>(options));
  return std::shared_ptr<QueueInterface>(std::move(queue));
}

}  // namespace

const QueueCore* CoreOf(const QueueInterface& queue) {
  if (auto* q = dynamic_cast<const QueueAdapter<FIFOQueue>*>(&queue)) {
    return &q->core();
  }
  if (auto* q = dynamic_cast<const QueueAdapter<PaddingFIFOQueue>*>(&queue)) {
    return &q->core();
  }
  if (auto* q = dynamic_cast<const QueueAdapter<RandomShuffleQueue>*>(&queue)) {
    return &q->core();
  }
  if (auto* q = dynamic_cast<const QueueAdapter<PriorityQueue>*>(&queue)) {
    return &q->core();
  }
  return nullptr;
}

}  // namespace internal

Result<std::shared_ptr<FIFOQueue>> FIFOQueue::Create(
    const QueueOptions& options) {
  return internal::Create<FIFOQueue>(options);
}

Result<std::shared_ptr<PaddingFIFOQueue>> PaddingFIFOQueue::Create(
    const QueueOptions& options) {
  return internal::Create<PaddingFIFOQueue>(options);
}

Result<std::shared_ptr<RandomShuffleQueue>> RandomShuffleQueue::Create(
    const QueueOptions& options) {
  return internal::Create<RandomShuffleQueue>(options);
}

Result<std::shared_ptr<PriorityQueue>> PriorityQueue::Create(
    const QueueOptions& options) {
  return internal::Create<PriorityQueue>(options);
}

Result<std::shared_ptr<QueueInterface>> CreateQueue(
    QueueKind kind, const QueueOptions& options) {
  switch (kind) {
    case QueueKind::kFIFO:
      return internal::CreateAny<FIFOQueue>(options);
    case QueueKind::kPaddingFIFO:
      return internal::CreateAny<PaddingFIFOQueue>(options);
    case QueueKind::kRandomShuffle:
      return internal::CreateAny<RandomShuffleQueue>(options);
    case QueueKind::kPriority:
      return internal::CreateAny<PriorityQueue>(options);
  }
  return InvalidArgumentError("unknown queue kind");
}

}  // namespace inflow
