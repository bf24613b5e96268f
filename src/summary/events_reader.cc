// Copyright 2026 The inflow Authors.

#include "inflow/summary/events_reader.h"

namespace inflow {

Result<std::unique_ptr<EventsReader>> EventsReader::Open(
    Env& env, const std::string& path) {
  RecordReaderOptions options;
  options.buffer_size = 1 << 20;
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordReader> reader,
                          RecordReader::Open(env, path, options));
  return std::unique_ptr<EventsReader>(new EventsReader(std::move(reader)));
}

Result<Event> EventsReader::Next() {
  const uint64_t offset = reader_->offset();
  INFLOW_ASSIGN_OR_RETURN(std::string_view record, reader_->Next());
  Result<Event> event = ParseEvent(record);
  if (!event.ok()) {
    return event.status().WithContext(
        reader_->filename() + ": record " + std::to_string(index_) +
        " at offset " + std::to_string(offset) + " is not an Event");
  }
  ++index_;
  return event;
}

Result<std::vector<Event>> EventsReader::ReadAll(Env& env,
                                                 const std::string& path) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<EventsReader> reader,
                          Open(env, path));
  std::vector<Event> events;
  while (true) {
    Result<Event> event = reader->Next();
    if (!event.ok()) {
      if (IsOutOfRange(event.status())) return events;
      return event.status();
    }
    events.push_back(std::move(*event));
  }
}

}  // namespace inflow
