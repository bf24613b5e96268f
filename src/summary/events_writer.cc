// Copyright 2026 The inflow Authors.

#include "inflow/summary/events_writer.h"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>

namespace inflow {
namespace {

constexpr char kFileVersion[] = "brain.Event:2";
// SourceMetadata.writer of the first event (TF writes
// "tensorflow.core.util.events_writer").
constexpr char kWriterName[] = "inflow.train.events_writer";

double SystemNow() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string Hostname() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') {
    return "localhost";
  }
  return name;
}

}  // namespace

Result<std::unique_ptr<EventsWriter>> EventsWriter::Create(
    Env& env, const std::string& logdir, const EventsWriterOptions& options) {
  std::function<double()> clock = options.clock ? options.clock : SystemNow;
  INFLOW_RETURN_IF_ERROR(RecursivelyCreateDir(env, logdir));
  // TF: "%s.out.tfevents.%010lld.%s%s" with the prefix LOGDIR/events.
  const double seconds = std::floor(clock());
  char stamp[32];
  std::snprintf(stamp, sizeof(stamp), "%010lld",
                static_cast<long long>(seconds));
  const std::string host =
      options.hostname.empty() ? Hostname() : options.hostname;
  std::string filename = logdir + (logdir.ends_with('/') ? "" : "/") +
                         "events.out.tfevents." + stamp + "." + host +
                         options.file_suffix;
  if (env.FileExists(filename).ok()) {
    return AlreadyExistsError(filename +
                              " exists: give this writer another suffix");
  }
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RecordWriter> writer,
                          RecordWriter::Create(env, filename));
  std::unique_ptr<EventsWriter> events(new EventsWriter(
      std::move(filename), std::move(clock), std::move(writer)));
  Event first;
  first.wall_time = seconds;
  first.what = Event::What::kFileVersion;
  first.file_version = kFileVersion;
  first.has_source_metadata = true;
  first.source_writer = kWriterName;
  INFLOW_RETURN_IF_ERROR(events->WriteEvent(first));
  INFLOW_RETURN_IF_ERROR(events->Flush());
  return events;
}

EventsWriter::EventsWriter(std::string filename, std::function<double()> clock,
                           std::unique_ptr<RecordWriter> writer)
    : filename_(std::move(filename)),
      clock_(std::move(clock)),
      writer_(std::move(writer)) {}

EventsWriter::~EventsWriter() { Close().IgnoreError(); }

double EventsWriter::Now() const { return clock_(); }

Status EventsWriter::WriteScalar(std::string_view tag, float value,
                                 int64_t step) {
  return WriteEvent(ScalarEvent(tag, value, step, Now()));
}

Status EventsWriter::WriteScalars(
    std::span<const std::pair<std::string, float>> values, int64_t step) {
  Event event;
  event.wall_time = Now();
  event.step = step;
  event.what = Event::What::kSummary;
  for (const auto& [tag, value] : values) {
    SummaryValue v;
    v.tag = tag;
    v.kind = SummaryValue::Kind::kSimpleValue;
    v.simple_value = value;
    event.summary.push_back(std::move(v));
  }
  return WriteEvent(event);
}

Status EventsWriter::WriteEvent(const Event& event) {
  const std::string record = SerializeEvent(event);
  MutexLock lock(&mu_);
  Status s = writer_->WriteRecord(record);
  return s.ok() ? s : s.WithContext(filename_);
}

Status EventsWriter::Flush() {
  MutexLock lock(&mu_);
  Status s = writer_->Flush();
  return s.ok() ? s : s.WithContext(filename_);
}

Status EventsWriter::Close() {
  MutexLock lock(&mu_);
  Status s = writer_->Close();
  return s.ok() ? s : s.WithContext(filename_);
}

}  // namespace inflow
