// Copyright 2026 The inflow Authors.
//
// EventsReader: reads a TensorBoard event file record by record, ours or
// TensorFlow's (tf.compat.v1.train.summary_iterator's counterpart).
//
// Next() returns the next event, OUT_OF_RANGE at the clean end of the
// file, DATA_LOSS (file and offset) at a damaged or truncated record, as
// TFRecord reading does, and INVALID_ARGUMENT naming the file, the
// record's index and offset when a record is not an Event. A record whose
// bytes set none of Event's fields (an Example, say: its field 1 is a
// message where Event's is a double) is an empty Event, as protobuf and
// summary_iterator read it; `inflow events` rejects it. A file cut in
// the middle of a record (one still being written) is DATA_LOSS at that
// record, as in TensorFlow's summary_iterator.
//
// Not thread-safe.

#ifndef INFLOW_SUMMARY_EVENTS_READER_H_
#define INFLOW_SUMMARY_EVENTS_READER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "inflow/core/result.h"
#include "inflow/io/env.h"
#include "inflow/io/record_reader.h"
#include "inflow/summary/event.h"

namespace inflow {

class EventsReader {
 public:
  static Result<std::unique_ptr<EventsReader>> Open(Env& env,
                                                    const std::string& path);

  [[nodiscard]] Result<Event> Next();

  // The offset of the record Next() reads next, and its index (from 0).
  uint64_t offset() const { return reader_->offset(); }
  int64_t index() const { return index_; }

  // Every event of the file (an error at any record is the result).
  static Result<std::vector<Event>> ReadAll(Env& env, const std::string& path);

 private:
  explicit EventsReader(std::unique_ptr<RecordReader> reader)
      : reader_(std::move(reader)) {}

  std::unique_ptr<RecordReader> reader_;
  int64_t index_ = 0;
};

}  // namespace inflow

#endif  // INFLOW_SUMMARY_EVENTS_READER_H_
