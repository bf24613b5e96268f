// Copyright 2026 The inflow Authors.

#include "inflow/threads/metrics_recorder.h"

#include <chrono>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

#include "threads/metrics_json.h"

namespace inflow {

// The destinations of the records: files (through Env) and the callback.
// Used by one thread at a time.
class MetricsRecorder::Sinks {
 public:
  static Result<std::unique_ptr<Sinks>> Open(
      const MetricsRecorderOptions& options) {
    auto sinks = std::unique_ptr<Sinks>(new Sinks);
    Env& env = options.env != nullptr ? *options.env : Env::Default();
    sinks->callback_ = options.callback;
    if (!options.jsonl_path.empty()) {
      INFLOW_ASSIGN_OR_RETURN(sinks->jsonl_,
                              env.NewWritableFile(options.jsonl_path));
    }
    if (!options.trace_path.empty()) {
      INFLOW_ASSIGN_OR_RETURN(sinks->trace_,
                              env.NewWritableFile(options.trace_path));
      INFLOW_RETURN_IF_ERROR(
          AppendAndFlush(sinks->trace_.get(), internal::TraceHeader()));
    }
    return sinks;
  }

  Status Write(const MetricsRecord& record) {
    if (jsonl_ != nullptr) {
      INFLOW_RETURN_IF_ERROR(
          AppendAndFlush(jsonl_.get(), internal::JsonLine(record)));
    }
    if (trace_ != nullptr) {
      INFLOW_RETURN_IF_ERROR(
          AppendAndFlush(trace_.get(), internal::TraceEvents(record)));
    }
    if (callback_) return callback_(record);
    return OkStatus();
  }

  // Ends the trace (if `finish_trace`) and closes the files; the first
  // error.
  Status Close(bool finish_trace) {
    Status status;
    const auto keep_first = [&status](Status s) {
      if (status.ok() && !s.ok()) {
        status = s.WithContext("metrics recorder: closing");
      }
    };
    if (jsonl_ != nullptr) keep_first(jsonl_->Close());
    if (trace_ != nullptr) {
      if (finish_trace) keep_first(trace_->Append(internal::TraceFooter()));
      keep_first(trace_->Close());
    }
    return status;
  }

 private:
  Sinks() = default;

  static Status AppendAndFlush(WritableFile* file, const std::string& data) {
    Status status = file->Append(data);
    if (status.ok()) status = file->Flush();
    if (!status.ok()) {
      return status.WithContext("metrics recorder: writing " + file->name());
    }
    return status;
  }

  std::unique_ptr<WritableFile> jsonl_;
  std::unique_ptr<WritableFile> trace_;
  std::function<Status(const MetricsRecord&)> callback_;
};

Result<std::unique_ptr<MetricsRecorder>> MetricsRecorder::Start(
    const MetricsRegistry& registry, MetricsRecorderOptions options) {
  if (options.interval <= std::chrono::nanoseconds(0)) {
    return InvalidArgumentError(
        "metrics recorder: the interval must be positive, got " +
        std::to_string(options.interval.count()) + " ns");
  }
  if (options.jsonl_path.empty() && options.trace_path.empty() &&
      !options.callback) {
    return InvalidArgumentError(
        "metrics recorder: no destination (jsonl_path, trace_path or "
        "callback)");
  }
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<Sinks> sinks, Sinks::Open(options));
  std::unique_ptr<MetricsRecorder> recorder(
      new MetricsRecorder(registry, std::move(options), std::move(sinks)));
  MetricsRecorder* raw = recorder.get();
  recorder->thread_ = std::make_unique<Thread>(
      recorder->options_.name,
      [raw](std::stop_token token) { raw->Run(token); });
  INFLOW_RETURN_IF_ERROR(recorder->thread_->Start());
  return recorder;
}

MetricsRecorder::MetricsRecorder(const MetricsRegistry& registry,
                                 MetricsRecorderOptions options,
                                 std::unique_ptr<Sinks> sinks)
    : registry_(registry),
      options_(std::move(options)),
      start_(std::chrono::steady_clock::now()),
      sinks_(std::move(sinks)) {}

MetricsRecorder::~MetricsRecorder() { (void)Stop(); }

Status MetricsRecorder::Stop() {
  if (thread_ != nullptr) {
    thread_->RequestStop();
    thread_->Join();
  }
  return status();
}

Status MetricsRecorder::status() const {
  MutexLock lock(&mu_);
  return status_;
}

int64_t MetricsRecorder::samples() const {
  MutexLock lock(&mu_);
  return samples_;
}

void MetricsRecorder::RecordError(Status error) {
  MutexLock lock(&mu_);
  if (status_.ok()) status_ = std::move(error);
}

bool MetricsRecorder::SampleAndWrite() {
  MetricsRecord record;
  record.metrics = registry_.Snapshot();
  record.wall_time = std::chrono::duration<double>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  record.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  Status status = sinks_->Write(record);
  {
    MutexLock lock(&mu_);
    ++samples_;
  }
  if (!status.ok()) {
    RecordError(std::move(status));
    return false;
  }
  return true;
}

void MetricsRecorder::Run(std::stop_token token) {
  const auto wake = [this] {
    MutexLock lock(&mu_);
    stop_requested_ = true;
    wake_.SignalAll();
  };
  // Either token ends the wait at once (each callback runs at once if its
  // token has already fired).
  std::stop_callback<decltype(wake)> on_stop(token, wake);
  std::optional<std::stop_callback<decltype(wake)>> on_outside_stop;
  if (options_.stop.stop_possible())
    on_outside_stop.emplace(options_.stop, wake);

  using Clock = std::chrono::steady_clock;
  bool ok = SampleAndWrite();
  Clock::time_point next = start_ + options_.interval;
  while (ok) {
    {
      MutexLock lock(&mu_);
      while (!stop_requested_ && Clock::now() < next) {
        wake_.WaitUntil(&mu_, next);
      }
      if (stop_requested_) break;
    }
    ok = SampleAndWrite();
    // Ticks missed by a slow sample are skipped, not caught up.
    const Clock::time_point now = Clock::now();
    if (next <= now) {
      next += ((now - next) / options_.interval + 1) * options_.interval;
    }
  }
  if (ok) ok = SampleAndWrite();  // the final sample
  Status closed = sinks_->Close(/*finish_trace=*/ok);
  if (!closed.ok()) RecordError(std::move(closed));
}

}  // namespace inflow
