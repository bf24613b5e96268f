// Copyright 2026 The inflow Authors.

#include "threads/metrics_json.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>
#include <system_error>

namespace inflow::internal {

void AppendJsonNumber(double v, std::string* out) {
  if (!std::isfinite(v)) {
    out->append("null");
    return;
  }
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc()) {
    out->append("null");  // cannot happen: 32 bytes hold any double
    return;
  }
  out->append(buf, end);
}

std::string JsonLine(const MetricsRecord& record) {
  std::string line = "{\"wall_time\": ";
  AppendJsonNumber(record.wall_time, &line);
  line.append(", \"elapsed_s\": ");
  AppendJsonNumber(record.elapsed_s, &line);
  line.append(", \"metrics\": {");
  for (size_t i = 0; i < record.metrics.size(); ++i) {
    if (i > 0) line.append(", ");
    AppendJsonString(record.metrics[i].tag, &line);
    line.append(": ");
    AppendJsonNumber(record.metrics[i].value, &line);
  }
  line.append("}}\n");
  return line;
}

std::string TraceHeader() {
  return "[{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, "
         "\"tid\": 1, \"args\": {\"name\": \"inflow metrics\"}}";
}

std::string TraceEvents(const MetricsRecord& record) {
  std::string events;
  for (const MetricSample& sample : record.metrics) {
    if (!std::isfinite(sample.value)) continue;
    events.append(",\n{\"name\": ");
    AppendJsonString(sample.tag, &events);
    events.append(", \"ph\": \"C\", \"ts\": ");
    AppendJsonNumber(record.elapsed_s * 1e6, &events);
    events.append(", \"pid\": 1, \"tid\": 1, \"args\": {\"value\": ");
    AppendJsonNumber(sample.value, &events);
    events.append("}}");
  }
  return events;
}

std::string TraceFooter() { return "\n]\n"; }

}  // namespace inflow::internal
