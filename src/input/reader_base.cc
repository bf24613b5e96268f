// Copyright 2026 The inflow Authors.

#include "inflow/input/reader_base.h"

namespace inflow {

Status ReaderBase::StartWorkLocked(QueueInterface& queue,
                                   const CallOptions& options, Tuple* taken) {
  if (work_in_progress_) return OkStatus();
  INFLOW_ASSIGN_OR_RETURN(*taken, queue.Dequeue(options));
  const Tuple& tuple = *taken;
  if (tuple.size() != 1) {
    return InvalidArgumentError(name_ + ": expected a single component queue");
  }
  if (tuple[0].dtype() != DType::kString) {
    return InvalidArgumentError(name_ +
                                ": expected a queue with a string component");
  }
  if (tuple[0].num_elements() != 1) {
    return InvalidArgumentError(
        name_ + ": expected to dequeue a one-element string tensor");
  }
  work_ = tuple[0].flat<std::string>()[0];
  // An open failure is reported once; the next read takes the next file.
  INFLOW_RETURN_IF_ERROR(OnWorkStartedLocked(work_));
  work_in_progress_ = true;
  return OkStatus();
}

Status ReaderBase::ReadOnceLocked(ReaderRecord* record, bool* produced,
                                  bool* at_end) {
  *produced = false;
  *at_end = false;
  INFLOW_RETURN_IF_ERROR(
      ReadLocked(work_, &record->key, &record->value, produced, at_end));
  return FinishReadLocked(*produced, *at_end);
}

Status ReaderBase::ReadOnceIntoLocked(RecordBatch* batch, bool* produced,
                                      bool* at_end) {
  *produced = false;
  *at_end = false;
  INFLOW_RETURN_IF_ERROR(ReadIntoLocked(work_, batch, produced, at_end));
  return FinishReadLocked(*produced, *at_end);
}

Status ReaderBase::FinishReadLocked(bool produced, bool at_end) {
  if (!produced && !at_end) {
    return InternalError(name_ + ": a read produced nothing before the end");
  }
  if (produced) ++num_records_produced_;
  if (at_end) {
    OnWorkFinishedLocked();
    work_in_progress_ = false;
    ++num_work_units_completed_;
  }
  return OkStatus();
}

Status ReaderBase::ReadIntoLocked(const std::string& work, RecordBatch* batch,
                                  bool* produced, bool* at_end) {
  std::string key, value;
  INFLOW_RETURN_IF_ERROR(ReadLocked(work, &key, &value, produced, at_end));
  if (*produced) batch->AppendKeyed(work, std::move(key), value);
  return OkStatus();
}

Result<ReaderRecord> ReaderBase::Read(QueueInterface& queue,
                                      const CallOptions& options) {
  Tuple taken;  // destroyed after the lock is released
  MutexLock lock(&mu_);
  while (true) {
    INFLOW_RETURN_IF_ERROR(StartWorkLocked(queue, options, &taken));
    ReaderRecord record;
    bool produced, at_end;
    INFLOW_RETURN_IF_ERROR(ReadOnceLocked(&record, &produced, &at_end));
    if (produced) return record;
  }
}

Result<std::vector<ReaderRecord>> ReaderBase::ReadUpTo(
    QueueInterface& queue, int64_t n, const CallOptions& options) {
  if (n < 1) {
    return InvalidArgumentError(name_ + ": ReadUpTo needs n >= 1, got " +
                                std::to_string(n));
  }
  Tuple taken;  // destroyed after the lock is released
  MutexLock lock(&mu_);
  std::vector<ReaderRecord> records;
  while (static_cast<int64_t>(records.size()) < n) {
    INFLOW_RETURN_IF_ERROR(StartWorkLocked(queue, options, &taken));
    ReaderRecord record;
    bool produced, at_end;
    INFLOW_RETURN_IF_ERROR(ReadOnceLocked(&record, &produced, &at_end));
    if (produced) records.push_back(std::move(record));
    // Never mix files in one batch: return at a file's end if we have any.
    if (at_end && !records.empty()) break;
  }
  return records;
}

Status ReaderBase::ReadUpTo(QueueInterface& queue, int64_t n,
                            RecordBatch* batch, const CallOptions& options) {
  batch->Clear();
  if (n < 1) {
    return InvalidArgumentError(name_ + ": ReadUpTo needs n >= 1, got " +
                                std::to_string(n));
  }
  Tuple taken;  // destroyed after the lock is released
  MutexLock lock(&mu_);
  size_t count = 0;
  while (static_cast<int64_t>(count) < n) {
    Status s = StartWorkLocked(queue, options, &taken);
    // The values borrowed so far view the buffer a refill would change.
    if (s.ok() && count > 0 && batch->borrow() && NextReadRefillsLocked()) {
      break;
    }
    bool produced = false, at_end = false;
    if (s.ok()) s = ReadOnceIntoLocked(batch, &produced, &at_end);
    if (!s.ok()) {
      batch->Clear();
      return s;
    }
    if (produced) ++count;
    // Never mix files in one batch: return at a file's end if we have any.
    if (at_end && count > 0) break;
  }
  batch->Seal();
  return OkStatus();
}

Status ReaderBase::Reset() {
  MutexLock lock(&mu_);
  if (work_in_progress_) OnWorkFinishedLocked();
  work_in_progress_ = false;
  work_.clear();
  num_records_produced_ = 0;
  num_work_units_completed_ = 0;
  return OkStatus();
}

int64_t ReaderBase::NumRecordsProduced() {
  MutexLock lock(&mu_);
  return num_records_produced_;
}

int64_t ReaderBase::NumWorkUnitsCompleted() {
  MutexLock lock(&mu_);
  return num_work_units_completed_;
}

}  // namespace inflow
