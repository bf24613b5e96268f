// Copyright 2026 The inflow Authors.
//
// ReaderBase: TensorFlow's ReaderBase. A reader takes filenames (work
// units) from a queue of scalar strings and produces (key, value) records
// from one file after another (docs/formats.md, "Reader ops"):
//
//   - With no current file, Read() dequeues a filename (blocking, per
//     `options`) and opens it. A closed, drained queue gives OUT_OF_RANGE,
//     the normal end signal. A queue element that is not one scalar string
//     is INVALID_ARGUMENT.
//   - Failing to open a file is reported once; the next read moves on to
//     the next filename.
//   - At the end of a file the work unit is finished and the read carries
//     on with the next filename; files with no records are skipped.
//   - A read error inside a file (e.g. DATA_LOSS) leaves that file current:
//     the next read retries at the same position, until Reset().
//   - ReadUpTo(n) returns 1..n records, all from one file: after finishing
//     a file it returns what it has rather than opening the next. Its
//     RecordBatch form (input/record_batch.h) gives the same records
//     without a string per record, into a batch the caller reuses.
//
// Thread-safe: calls are serialized (a reader may be shared by several
// enqueue threads, as in TF; one blocked in Dequeue holds up the others).

#ifndef INFLOW_INPUT_READER_BASE_H_
#define INFLOW_INPUT_READER_BASE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/input/record_batch.h"
#include "inflow/io/env.h"
#include "inflow/queue/queue.h"

namespace inflow {

struct ReaderRecord {
  std::string key;
  std::string value;

  friend bool operator==(const ReaderRecord&, const ReaderRecord&) = default;
};

class ReaderBase {
 public:
  virtual ~ReaderBase() = default;
  ReaderBase(const ReaderBase&) = delete;
  ReaderBase& operator=(const ReaderBase&) = delete;

  [[nodiscard]] Result<ReaderRecord> Read(QueueInterface& queue,
                                          const CallOptions& options = {});
  // Precondition-free: n < 1 is INVALID_ARGUMENT.
  [[nodiscard]] Result<std::vector<ReaderRecord>> ReadUpTo(
      QueueInterface& queue, int64_t n, const CallOptions& options = {});
  // The same records into *batch (cleared first; on an error it holds
  // none). A batch that borrows (RecordBatch::set_borrow) may get fewer
  // than n records before the end of the file: the reader ends it rather
  // than refill the buffer its values view.
  [[nodiscard]] Status ReadUpTo(QueueInterface& queue, int64_t n,
                                RecordBatch* batch,
                                const CallOptions& options = {});

  // Zeroes both counters and drops the current file.
  [[nodiscard]] Status Reset();
  int64_t NumRecordsProduced();
  int64_t NumWorkUnitsCompleted();

 protected:
  explicit ReaderBase(std::string name) : name_(std::move(name)) {}

  // The hooks below run with the reader's mutex held, one at a time.

  // Opens `work` (a filename) and resets the per-file position.
  virtual Status OnWorkStartedLocked(const std::string& work) = 0;
  // Releases the current file.
  virtual void OnWorkFinishedLocked() = 0;
  // Produces one record of `work` (setting *produced) or reports its end
  // (setting *at_end); both may be set together.
  virtual Status ReadLocked(const std::string& work, std::string* key,
                            std::string* value, bool* produced,
                            bool* at_end) = 0;
  // ReadLocked appending to *batch. The default calls ReadLocked; a reader
  // whose keys are "<work>:<position>" overrides it to append a view of
  // its buffer with the position, building no strings.
  virtual Status ReadIntoLocked(const std::string& work, RecordBatch* batch,
                                bool* produced, bool* at_end);
  // Whether the next ReadIntoLocked would refill a buffer that a borrowing
  // batch's values may view (ReadUpTo ends such a batch first). The
  // default: no buffer is lent.
  virtual bool NextReadRefillsLocked() const { return false; }

 private:
  // Makes sure a file is open, dequeuing and opening as needed. The
  // dequeued element is left in *taken, which the caller destroys after it
  // releases mu_, so no tensor's release callback runs under the lock.
  Status StartWorkLocked(QueueInterface& queue, const CallOptions& options,
                         Tuple* taken) INFLOW_REQUIRES(mu_);
  // Reads once from the current file; counts and finishes work.
  Status ReadOnceLocked(ReaderRecord* record, bool* produced, bool* at_end)
      INFLOW_REQUIRES(mu_);
  Status ReadOnceIntoLocked(RecordBatch* batch, bool* produced, bool* at_end)
      INFLOW_REQUIRES(mu_);
  // Counts a read's outcome and finishes the work at its end.
  Status FinishReadLocked(bool produced, bool at_end) INFLOW_REQUIRES(mu_);

  const std::string name_;
  Mutex mu_;
  std::string work_ INFLOW_GUARDED_BY(mu_);
  bool work_in_progress_ INFLOW_GUARDED_BY(mu_) = false;
  int64_t num_records_produced_ INFLOW_GUARDED_BY(mu_) = 0;
  int64_t num_work_units_completed_ INFLOW_GUARDED_BY(mu_) = 0;
};

}  // namespace inflow

#endif  // INFLOW_INPUT_READER_BASE_H_
