// Copyright 2026 The inflow Authors.
//
// Driver for tests/py/test_events_vs_tf.py. Reads one JSON object from
// stdin:
//   {"logdir": D, "suffix": S, "clock": T,
//    "events": [{"step": N, "wall_time": W, "scalars": {"tag": v, ...}}]}
// writes an event file in D with EventsWriter (the clock fixed at T, so
// the file name is known) and prints {"file": PATH} and, per event, the
// hex of the record it wrote ({"record": HEX}). Exit 1 with the Status on
// stderr on error.

#include <cstdio>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "inflow/summary/events_writer.h"

namespace inflow {
namespace {

std::string Hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

Status Run() {
  const std::string input((std::istreambuf_iterator<char>(std::cin)),
                          std::istreambuf_iterator<char>());
  // Ordered: the scalars keep the order they are given in.
  const nlohmann::ordered_json spec = nlohmann::ordered_json::parse(input);
  EventsWriterOptions options;
  options.file_suffix = spec.value("suffix", "");
  const double clock = spec["clock"].get<double>();
  options.clock = [clock] { return clock; };
  INFLOW_ASSIGN_OR_RETURN(
      std::unique_ptr<EventsWriter> writer,
      EventsWriter::Create(Env::Default(), spec["logdir"], options));
  std::printf("%s\n",
              nlohmann::json({{"file", writer->filename()}}).dump().c_str());
  for (const auto& e : spec["events"]) {
    Event event;
    event.step = e["step"].get<int64_t>();
    event.wall_time = e["wall_time"].get<double>();
    event.what = Event::What::kSummary;
    for (const auto& [tag, value] : e["scalars"].items()) {
      SummaryValue v;
      v.tag = tag;
      v.kind = SummaryValue::Kind::kSimpleValue;
      v.simple_value = value.get<float>();
      event.summary.push_back(v);
    }
    INFLOW_RETURN_IF_ERROR(writer->WriteEvent(event));
    std::printf("%s\n", nlohmann::json({{"record", Hex(SerializeEvent(event))}})
                            .dump()
                            .c_str());
  }
  return writer->Close();
}

}  // namespace
}  // namespace inflow

int main() {
  inflow::Status s = inflow::Run();
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
