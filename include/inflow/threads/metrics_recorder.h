// Copyright 2026 The inflow Authors.
//
// MetricsRecorder: a named inflow Thread ("metrics_recorder") that samples
// a MetricsRegistry every `interval` into a time series: JSON lines, a
// Chrome trace-event file of counters (open it in Perfetto or
// chrome://tracing to see the queues fill over time), a callback, or any
// of them together.
//
//   INFLOW_ASSIGN_OR_RETURN(auto recorder, MetricsRecorder::Start(
//       MetricsRegistry::Default(),
//       {.interval = std::chrono::milliseconds(100),
//        .jsonl_path = "/tmp/metrics.jsonl"}));
//   ...
//   INFLOW_RETURN_IF_ERROR(recorder->Stop());
//
// One line per sample, tags sorted, values as the shortest decimal that
// reads back to the same double (a non-finite value is null):
//   {"wall_time": 1764590000.123, "elapsed_s": 1.5,
//    "metrics": {"batch/fraction_of_32_full": 0.5, "batch/size": 16}}
// wall_time is seconds since the Unix epoch (system clock), elapsed_s
// seconds since Start (steady clock, so never decreasing).
//
// The first sample is taken at Start, then one every `interval` (a sample
// that overruns skips the ticks it missed), and a final one when stopped.
// Files are written through Env and flushed after every sample. The first
// error (a failed write, a callback's error) ends the sampling; status()
// and Stop() return it.

#ifndef INFLOW_THREADS_METRICS_RECORDER_H_
#define INFLOW_THREADS_METRICS_RECORDER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "inflow/core/metrics.h"
#include "inflow/core/mutex.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/io/env.h"
#include "inflow/threads/thread.h"

namespace inflow {

// One sample of a registry.
struct MetricsRecord {
  double wall_time = 0;                    // seconds since the Unix epoch
  double elapsed_s = 0;                    // seconds since the recorder started
  std::vector<MetricSample> metrics = {};  // sorted by tag
};

struct MetricsRecorderOptions {
  std::string name = "metrics_recorder";  // the thread's name
  std::chrono::nanoseconds interval = std::chrono::seconds(1);
  Env* env = nullptr;  // nullptr: Env::Default()
  // Created or truncated at Start; empty: not written.
  std::string jsonl_path = {};  // one JSON line per sample
  // Chrome trace events (JSON array format): one counter event ("ph": "C")
  // per gauge and sample, "ts" in microseconds since Start, value in
  // args.value (non-finite values are left out). Closed with "]" at stop;
  // the viewers also read a file cut short before it.
  std::string trace_path = {};
  // Called on the recorder's thread with every sample; an error ends the
  // sampling and becomes status().
  std::function<Status(const MetricsRecord&)> callback = {};
  // The recorder also stops (with a final sample) when this fires, e.g.
  // coord.stop_token().
  std::stop_token stop = {};
};

// Thread-safe: Stop() and status() may be called from any thread.
class MetricsRecorder {
 public:
  // Opens the files and starts the thread. INVALID_ARGUMENT for an
  // interval <= 0 or no destination; the Env's error when a file cannot be
  // created. `registry` must outlive the recorder.
  static Result<std::unique_ptr<MetricsRecorder>> Start(
      const MetricsRegistry& registry, MetricsRecorderOptions options);

  // Stops as Stop() does; its status is then lost: call Stop() to see it.
  ~MetricsRecorder();
  MetricsRecorder(const MetricsRecorder&) = delete;
  MetricsRecorder& operator=(const MetricsRecorder&) = delete;

  // Wakes the thread at once, which takes the final sample (unless an
  // error ended it), closes the files and ends; waits for it. Returns the
  // first error, or OK. Idempotent.
  [[nodiscard]] Status Stop() INFLOW_EXCLUDES(mu_);
  // The first error so far (OK while none).
  Status status() const INFLOW_EXCLUDES(mu_);
  // Samples taken so far (including the final one once stopped).
  int64_t samples() const INFLOW_EXCLUDES(mu_);

 private:
  class Sinks;
  MetricsRecorder(const MetricsRegistry& registry,
                  MetricsRecorderOptions options, std::unique_ptr<Sinks> sinks);
  void Run(std::stop_token token) INFLOW_EXCLUDES(mu_);
  // Samples the registry and writes the record; false after an error.
  bool SampleAndWrite() INFLOW_EXCLUDES(mu_);
  void RecordError(Status error) INFLOW_EXCLUDES(mu_);

  const MetricsRegistry& registry_;
  const MetricsRecorderOptions options_;
  const std::chrono::steady_clock::time_point start_;
  // Used only by the recorder's thread (and by Start before it runs).
  const std::unique_ptr<Sinks> sinks_;

  mutable Mutex mu_;
  CondVar wake_;
  bool stop_requested_ INFLOW_GUARDED_BY(mu_) = false;
  Status status_ INFLOW_GUARDED_BY(mu_);
  int64_t samples_ INFLOW_GUARDED_BY(mu_) = 0;

  std::unique_ptr<Thread> thread_;  // set once by Start
};

}  // namespace inflow

#endif  // INFLOW_THREADS_METRICS_RECORDER_H_
