// Copyright 2026 The inflow Authors.
//
// EventsWriter: writes a TensorBoard event file, as TensorFlow's
// EventsWriter does (docs/formats.md "Event files"): the file
// LOGDIR/events.out.tfevents.<seconds>.<hostname><suffix> holds
// TFRecord-framed tensorflow.Event records, the first one wall_time =
// <seconds>, file_version "brain.Event:2" (flushed at once), then what the
// caller writes. TensorBoard and tf.compat.v1.train.summary_iterator read
// it.
//
//   INFLOW_ASSIGN_OR_RETURN(auto events,
//                           EventsWriter::Create(Env::Default(), logdir));
//   INFLOW_RETURN_IF_ERROR(events->WriteScalar("loss", loss, step));
//
// Flush() makes everything written so far readable (TensorBoard picks it
// up); Close() flushes and closes, and is idempotent; the destructor
// closes and drops any error. Writes after Close() fail with
// FAILED_PRECONDITION; an I/O error is sticky. Errors name the file.
//
// Thread-safe: a training loop and a metrics thread may write at once
// (each event is one record, whole).

#ifndef INFLOW_SUMMARY_EVENTS_WRITER_H_
#define INFLOW_SUMMARY_EVENTS_WRITER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/io/env.h"
#include "inflow/io/record_writer.h"
#include "inflow/summary/event.h"

namespace inflow {

struct EventsWriterOptions {
  // Appended to the file name (TF's filename_suffix), e.g. ".eval".
  std::string file_suffix;
  // Seconds since the epoch; the system clock when empty. Tests set it.
  std::function<double()> clock;
  // The host name in the file name; gethostname() when empty.
  std::string hostname;
};

class EventsWriter {
 public:
  // Creates `logdir` (and its parents) if missing, then the file, and
  // writes and flushes the file_version event. ALREADY_EXISTS when a file
  // of that name is there (two writers in one second in one folder: give
  // them different suffixes).
  static Result<std::unique_ptr<EventsWriter>> Create(
      Env& env, const std::string& logdir,
      const EventsWriterOptions& options = {});
  ~EventsWriter();
  EventsWriter(const EventsWriter&) = delete;
  EventsWriter& operator=(const EventsWriter&) = delete;

  // The path of the file.
  const std::string& filename() const { return filename_; }

  // One event with one simple_value scalar, wall_time now.
  [[nodiscard]] Status WriteScalar(std::string_view tag, float value,
                                   int64_t step);
  // One event holding every (tag, value) pair, wall_time now.
  [[nodiscard]] Status WriteScalars(
      std::span<const std::pair<std::string, float>> values, int64_t step);
  // Any event, as given (wall_time included).
  [[nodiscard]] Status WriteEvent(const Event& event);

  [[nodiscard]] Status Flush();
  [[nodiscard]] Status Close();

  // Seconds since the epoch by the writer's clock.
  double Now() const;

 private:
  EventsWriter(std::string filename, std::function<double()> clock,
               std::unique_ptr<RecordWriter> writer);

  const std::string filename_;
  const std::function<double()> clock_;
  Mutex mu_;
  std::unique_ptr<RecordWriter> writer_ INFLOW_GUARDED_BY(mu_);
};

}  // namespace inflow

#endif  // INFLOW_SUMMARY_EVENTS_WRITER_H_
