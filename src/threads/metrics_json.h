// Copyright 2026 The inflow Authors.
//
// The MetricsRecorder's output formats (threads/metrics_recorder.h): a
// record as one JSON line, and as Chrome trace counter events. Strings are
// escaped by inflow/core/json_string.h;
// numbers are the shortest decimal that reads back to the same double
// (std::to_chars).

#ifndef INFLOW_THREADS_METRICS_JSON_H_
#define INFLOW_THREADS_METRICS_JSON_H_

#include <string>
#include <string_view>

#include "inflow/core/json_string.h"
#include "inflow/threads/metrics_recorder.h"

namespace inflow::internal {

// Appends `v` as a JSON number, or null when it is not finite.
void AppendJsonNumber(double v, std::string* out);

// {"wall_time": ..., "elapsed_s": ..., "metrics": {...}} and a newline.
std::string JsonLine(const MetricsRecord& record);

// The trace file's opening: "[" and a metadata event naming the process.
std::string TraceHeader();
// One counter event per finite gauge of `record`, each preceded by ",\n"
// (the header's event comes first).
std::string TraceEvents(const MetricsRecord& record);
// The closing "\n]\n".
std::string TraceFooter();

}  // namespace inflow::internal

#endif  // INFLOW_THREADS_METRICS_JSON_H_
