// Copyright 2026 The inflow Authors.
//
// MetricsRecorder: samples on its interval with monotonic times, JSON
// lines and Chrome trace files that parse back (nlohmann) to exactly the
// values sampled, a stop that returns within a bound with a final sample,
// and errors (writes, the callback) that end the sampling and surface from
// status() and Stop().

#include "inflow/threads/metrics_recorder.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/metrics.h"
#include "inflow/io/mem_env.h"

namespace inflow {
namespace {

using namespace std::chrono_literals;
using Json = nlohmann::json;

constexpr auto kTestBound = std::chrono::seconds(20);

bool Eventually(const std::function<bool()>& pred) {
  const auto end = std::chrono::steady_clock::now() + kTestBound;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) {
      ADD_FAILURE() << "condition not reached within the test bound";
      return false;
    }
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(MetricsRecorderTest, SamplesEveryIntervalWithMonotonicTimes) {
  MetricsRegistry registry;
  auto counter = std::make_shared<std::atomic<int>>(0);
  MetricGroup g = registry.AddGroup(
      "q", {{"n", [counter] { return double(counter->fetch_add(1)); }}});
  std::vector<MetricsRecord> records;  // written by the recorder's thread
  std::atomic<int> calls{0};
  auto recorder = MetricsRecorder::Start(
      registry, {.interval = 5ms, .callback = [&](const MetricsRecord& r) {
                   records.push_back(r);
                   calls.fetch_add(1);
                   return OkStatus();
                 }});
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  Eventually([&] { return calls.load() >= 6; });
  ASSERT_TRUE((*recorder)->Stop().ok());
  const int64_t n = (*recorder)->samples();
  ASSERT_EQ(static_cast<int64_t>(records.size()), n);
  ASSERT_GE(n, 7);  // 6 or more, and the final one
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(records[i].metrics.size(), 1u);
    EXPECT_EQ(records[i].metrics[0].tag, "q/n");
    EXPECT_EQ(records[i].metrics[0].value, double(i));  // one read each
    EXPECT_GT(records[i].wall_time, 1.7e9);             // after 2023
    if (i > 0) {
      EXPECT_GE(records[i].elapsed_s, records[i - 1].elapsed_s);
      EXPECT_GE(records[i].wall_time, records[i - 1].wall_time - 1.0);
    }
    // Sample i (but the final one) waits for tick i.
    if (i + 1 < n) {
      EXPECT_GE(records[i].elapsed_s, i * 0.005);
    }
  }
}

TEST(MetricsRecorderTest, JsonLinesParseBackToTheSampledValues) {
  MemEnv env;
  MetricsRegistry registry;
  MetricGroup g = registry.AddGroup(
      "batch",
      {{"fraction_of_32_full", [] { return 0.1; }},
       {"size", [] { return 16.0; }},
       {"odd \"tag\"\\\n\x01", [] { return -2.5e-300; }},
       {"nan", [] { return std::nan(""); }},
       {"inf", [] { return std::numeric_limits<double>::infinity(); }}});
  auto recorder = MetricsRecorder::Start(
      registry, {.interval = 2ms, .env = &env, .jsonl_path = "/m.jsonl"});
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  Eventually([&] { return (*recorder)->samples() >= 3; });
  ASSERT_TRUE((*recorder)->Stop().ok());
  auto text = env.Contents("/m.jsonl");
  ASSERT_TRUE(text.ok()) << text.status();
  const std::vector<std::string> lines = Lines(*text);
  ASSERT_EQ(static_cast<int64_t>(lines.size()), (*recorder)->samples());
  double last_elapsed = -1;
  for (const std::string& line : lines) {
    const Json j = Json::parse(line);  // throws (fails) on invalid JSON
    ASSERT_TRUE(j.at("wall_time").is_number());
    EXPECT_GE(j.at("elapsed_s").get<double>(), last_elapsed);
    last_elapsed = j.at("elapsed_s").get<double>();
    const Json& m = j.at("metrics");
    EXPECT_EQ(m.size(), 5u);
    // Shortest round-trip decimals: the very doubles sampled.
    EXPECT_EQ(m.at("batch/fraction_of_32_full").get<double>(), 0.1);
    EXPECT_EQ(m.at("batch/size").get<double>(), 16.0);
    EXPECT_EQ(m.at("batch/odd \"tag\"\\\n\x01").get<double>(), -2.5e-300);
    EXPECT_TRUE(m.at("batch/nan").is_null());
    EXPECT_TRUE(m.at("batch/inf").is_null());
  }
  EXPECT_EQ(lines[0].rfind("{\"wall_time\": ", 0), 0u);
}

TEST(MetricsRecorderTest, TraceFileIsAnArrayOfCounterEvents) {
  MemEnv env;
  MetricsRegistry registry;
  MetricGroup g = registry.AddGroup(
      "shuffle_batch", {{"fraction_over_5_of_5_full", [] { return 0.5; }},
                        {"nan", [] { return std::nan(""); }}});
  auto recorder = MetricsRecorder::Start(
      registry, {.interval = 2ms, .env = &env, .trace_path = "/t.json"});
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  Eventually([&] { return (*recorder)->samples() >= 3; });
  ASSERT_TRUE((*recorder)->Stop().ok());
  auto text = env.Contents("/t.json");
  ASSERT_TRUE(text.ok()) << text.status();
  const Json trace = Json::parse(*text);
  ASSERT_TRUE(trace.is_array());
  // The process name, then one counter per finite gauge and sample.
  ASSERT_EQ(static_cast<int64_t>(trace.size()), 1 + (*recorder)->samples());
  EXPECT_EQ(trace[0].at("ph"), "M");
  double last_ts = -1;
  for (size_t i = 1; i < trace.size(); ++i) {
    EXPECT_EQ(trace[i].at("ph"), "C");
    EXPECT_EQ(trace[i].at("name"), "shuffle_batch/fraction_over_5_of_5_full");
    EXPECT_EQ(trace[i].at("args").at("value").get<double>(), 0.5);
    EXPECT_GE(trace[i].at("ts").get<double>(), last_ts);
    last_ts = trace[i].at("ts").get<double>();
  }
}

TEST(MetricsRecorderTest, StopReturnsAtOnceMidIntervalWithAFinalSample) {
  MetricsRegistry registry;
  MetricGroup g = registry.AddGroup("q", {{"x", [] { return 1.0; }}});
  std::atomic<int> calls{0};
  auto recorder =
      MetricsRecorder::Start(registry, {.interval = std::chrono::hours(1),
                                        .callback = [&](const MetricsRecord&) {
                                          calls.fetch_add(1);
                                          return OkStatus();
                                        }});
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  Eventually([&] { return calls.load() == 1; });
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE((*recorder)->Stop().ok());
  // Far within the hour's interval (a bound, not a speed measurement).
  EXPECT_LT(std::chrono::steady_clock::now() - t0, kTestBound);
  EXPECT_EQ(calls.load(), 2);
  EXPECT_EQ((*recorder)->samples(), 2);
  EXPECT_TRUE((*recorder)->Stop().ok());  // idempotent
  EXPECT_EQ(calls.load(), 2);
}

TEST(MetricsRecorderTest, OutsideStopTokenEndsItWithAFinalSample) {
  MetricsRegistry registry;
  std::stop_source stop;
  std::atomic<int> calls{0};
  auto recorder =
      MetricsRecorder::Start(registry, {.interval = std::chrono::hours(1),
                                        .callback =
                                            [&](const MetricsRecord&) {
                                              calls.fetch_add(1);
                                              return OkStatus();
                                            },
                                        .stop = stop.get_token()});
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  Eventually([&] { return calls.load() == 1; });
  stop.request_stop();
  Eventually([&] { return calls.load() == 2; });
  EXPECT_TRUE((*recorder)->Stop().ok());
  EXPECT_EQ(calls.load(), 2);
}

TEST(MetricsRecorderTest, WriteErrorEndsSamplingAndSurfacesFromStatusAndStop) {
  MemEnv env;
  MetricsRegistry registry;
  MetricGroup g = registry.AddGroup("q", {{"x", [] { return 1.0; }}});
  // The first line is about 60 bytes: the second or third write fails.
  env.InjectWriteError("/m.jsonl", 100, UnavailableError("disk gone"));
  auto recorder = MetricsRecorder::Start(
      registry, {.interval = 1ms, .env = &env, .jsonl_path = "/m.jsonl"});
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  Eventually([&] { return !(*recorder)->status().ok(); });
  const Status status = (*recorder)->status();
  EXPECT_TRUE(IsUnavailable(status)) << status;
  EXPECT_NE(status.ToString().find("/m.jsonl"), std::string::npos) << status;
  EXPECT_NE(status.ToString().find("disk gone"), std::string::npos) << status;
  const int64_t samples = (*recorder)->samples();
  EXPECT_LE(samples, 3);
  EXPECT_EQ((*recorder)->Stop(), status);
  EXPECT_EQ((*recorder)->samples(), samples);  // no final sample after it
}

TEST(MetricsRecorderTest, CallbackErrorEndsSamplingAndIsReturned) {
  MetricsRegistry registry;
  std::atomic<int> calls{0};
  auto recorder = MetricsRecorder::Start(
      registry, {.interval = 1ms, .callback = [&](const MetricsRecord&) {
                   return calls.fetch_add(1) == 2 ? InternalError("full")
                                                  : OkStatus();
                 }});
  ASSERT_TRUE(recorder.ok()) << recorder.status();
  Eventually([&] { return !(*recorder)->status().ok(); });
  EXPECT_EQ((*recorder)->Stop(), InternalError("full"));
  EXPECT_EQ(calls.load(), 3);
}

TEST(MetricsRecorderTest, BadArgumentsAndUnopenableFilesFailAtStart) {
  MetricsRegistry registry;
  MemEnv env;
  auto sink = [](const MetricsRecord&) { return OkStatus(); };
  EXPECT_TRUE(IsInvalidArgument(
      MetricsRecorder::Start(registry, {.interval = 0ms, .callback = sink})
          .status()));
  EXPECT_TRUE(IsInvalidArgument(MetricsRecorder::Start(registry, {}).status()));
  env.InjectWriteError("/t.json", 0, PermissionDeniedError("read-only"));
  EXPECT_TRUE(IsPermissionDenied(
      MetricsRecorder::Start(registry, {.env = &env, .trace_path = "/t.json"})
          .status()));
  EXPECT_FALSE(MetricsRecorder::Start(
                   registry, {.jsonl_path = "/nonexistent-dir/x/m.jsonl"})
                   .ok());
}

TEST(MetricsRecorderTest, DestroyingARunningRecorderStopsItsThread) {
  MetricsRegistry registry;
  std::atomic<int> calls{0};
  {
    auto recorder = MetricsRecorder::Start(
        registry, {.interval = 1ms, .callback = [&](const MetricsRecord&) {
                     calls.fetch_add(1);
                     return OkStatus();
                   }});
    ASSERT_TRUE(recorder.ok());
    Eventually([&] { return calls.load() >= 2; });
  }
  const int after = calls.load();
  std::this_thread::sleep_for(10ms);  // no sample after destruction
  EXPECT_EQ(calls.load(), after);
}

}  // namespace
}  // namespace inflow
