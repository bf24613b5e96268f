// Copyright 2026 The inflow Authors.
//
// `inflow events`: print TensorBoard event files (ours or TensorFlow's).
//
//   inflow events cat FILE...
//       one JSON line per event:
//       {"file": F, "wall_time": W, "step": S, "what": "summary",
//        "values": {"loss": 0.25, ...}} for summaries (simple_value tags
//       as numbers; other kinds as {"kind": "tensor", "bytes": N}),
//       "file_version": "brain.Event:2" for the first event, and
//       {"what": "graph_def", "bytes": N} (and so on) for the rest
//   inflow events tags FILE...
//       one JSON line per file: {"file": F, "events": N, "tags": {TAG:
//       {"count": N, "first_step": S, "last_step": S, "last": V}}}
//
// A damaged record or one that is not an Event (one that does not parse,
// or sets none of Event's fields, as the records of an Example file do):
// the events before it are printed, then exit 1 with the error (file,
// record, offset) on stderr.

#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "inflow/summary/events_reader.h"

#include "command.h"

namespace inflow::tools {
namespace {

nlohmann::ordered_json ValueJson(const SummaryValue& v) {
  if (v.kind == SummaryValue::Kind::kSimpleValue) {
    // JSON has no NaN or infinities: those print as strings.
    if (std::isfinite(v.simple_value)) return v.simple_value;
    return std::isnan(v.simple_value) ? "NaN"
           : v.simple_value > 0       ? "Infinity"
                                      : "-Infinity";
  }
  return {{"kind", SummaryKindName(v.kind)}, {"bytes", v.payload.size()}};
}

std::string Json(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false,
                nlohmann::ordered_json::error_handler_t::replace);
}

// Calls `each` on every event of `path`; OK at the clean end.
template <typename Fn>
Status ForEachEvent(const std::string& path, Fn&& each) {
  INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<EventsReader> reader,
                          EventsReader::Open(Env::Default(), path));
  while (true) {
    const uint64_t offset = reader->offset();
    const int64_t index = reader->index();
    Result<Event> event = reader->Next();
    if (!event.ok()) {
      return IsOutOfRange(event.status()) ? OkStatus() : event.status();
    }
    // What protobuf makes of a record of another kind (an Example, ...):
    // nothing of an Event is set. Every writer sets at least wall_time.
    if (event->what == Event::What::kNone && event->wall_time == 0 &&
        event->step == 0 && !event->has_source_metadata) {
      return InvalidArgumentError(
          path + ": record " + std::to_string(index) + " at offset " +
          std::to_string(offset) +
          " is not an Event (it sets none of Event's fields): " + path +
          " is not a TensorBoard event file");
    }
    each(*event);
  }
}

Status Cat(const std::vector<std::string>& files) {
  for (const std::string& path : files) {
    INFLOW_RETURN_IF_ERROR(ForEachEvent(path, [&](const Event& e) {
      nlohmann::ordered_json line = {{"file", path},
                                     {"wall_time", e.wall_time},
                                     {"step", e.step},
                                     {"what", EventWhatName(e.what)}};
      if (e.what == Event::What::kFileVersion) {
        line["file_version"] = e.file_version;
      } else if (e.what == Event::What::kSummary) {
        nlohmann::ordered_json values = nlohmann::ordered_json::object();
        for (const SummaryValue& v : e.summary) values[v.tag] = ValueJson(v);
        line["values"] = values;
      } else if (e.what != Event::What::kNone) {
        line["bytes"] = e.payload.size();
      }
      std::printf("%s\n", Json(line).c_str());
    }));
  }
  return OkStatus();
}

Status Tags(const std::vector<std::string>& files) {
  for (const std::string& path : files) {
    int64_t events = 0;
    nlohmann::ordered_json tags = nlohmann::ordered_json::object();
    INFLOW_RETURN_IF_ERROR(ForEachEvent(path, [&](const Event& e) {
      ++events;
      for (const SummaryValue& v : e.summary) {
        if (!tags.contains(v.tag)) {
          tags[v.tag] = {{"count", 0}, {"first_step", e.step}};
        }
        nlohmann::ordered_json& t = tags[v.tag];
        t["count"] = t["count"].get<int64_t>() + 1;
        t["last_step"] = e.step;
        t["last"] = ValueJson(v);
      }
    }));
    const nlohmann::ordered_json line = {
        {"file", path}, {"events", events}, {"tags", tags}};
    std::printf("%s\n", Json(line).c_str());
  }
  return OkStatus();
}

std::function<Status()> Setup(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  app.require_subcommand(1, 1);
  CLI::App* cat = app.add_subcommand("cat", "Print every event as JSON");
  CLI::App* tags = app.add_subcommand(
      "tags", "Per file: each tag's count, steps and last value");
  for (CLI::App* sub : {cat, tags}) {
    sub->add_option("FILE", *files, "event files (events.out.tfevents.*)")
        ->required();
  }
  return [=]() -> Status {
    if (cat->parsed()) return Cat(*files);
    if (tags->parsed()) return Tags(*files);
    return InvalidArgumentError("no events subcommand given");
  };
}

INFLOW_REGISTER_COMMAND("events",
                        "Print TensorBoard event files (ours or TensorFlow's)",
                        Setup);

}  // namespace
}  // namespace inflow::tools
