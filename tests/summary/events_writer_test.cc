// Copyright 2026 The inflow Authors.

#include "inflow/summary/events_writer.h"

#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/io/mem_env.h"
#include "inflow/io/record_writer.h"
#include "inflow/summary/events_reader.h"

namespace inflow {
namespace {

using ::testing::HasSubstr;

EventsWriterOptions FixedClock(double now) {
  EventsWriterOptions options;
  options.clock = [now] { return now; };
  options.hostname = "host";
  return options;
}

TEST(EventsWriterTest, FileNameIsTensorFlowsAndTheFirstEventItsVersion) {
  MemEnv env;
  auto w = EventsWriter::Create(env, "/logs/run", FixedClock(1700000000.75));
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ((*w)->filename(), "/logs/run/events.out.tfevents.1700000000.host");
  // Flushed at creation: readable before anything else is written.
  Result<std::vector<Event>> events =
      EventsReader::ReadAll(env, (*w)->filename());
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].what, Event::What::kFileVersion);
  EXPECT_EQ((*events)[0].file_version, "brain.Event:2");
  EXPECT_EQ((*events)[0].wall_time, 1700000000.0);
  EXPECT_EQ((*events)[0].step, 0);
}

TEST(EventsWriterTest, SuffixIsAppendedToTheFileName) {
  MemEnv env;
  EventsWriterOptions options = FixedClock(5);
  options.file_suffix = ".eval";
  auto w = EventsWriter::Create(env, "/l", options);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ((*w)->filename(), "/l/events.out.tfevents.0000000005.host.eval");
}

TEST(EventsWriterTest, ScalarsReadBackWithTagStepValueAndWallTime) {
  MemEnv env;
  auto w = EventsWriter::Create(env, "/l", FixedClock(100.5));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE((*w)->WriteScalar("loss", 0.25f, 10).ok());
  const std::vector<std::pair<std::string, float>> many = {{"a", 1.f},
                                                           {"b", 0.f}};
  ASSERT_TRUE((*w)->WriteScalars(many, 20).ok());
  ASSERT_TRUE((*w)->Flush().ok());
  Result<std::vector<Event>> events =
      EventsReader::ReadAll(env, (*w)->filename());
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 3u);
  const Event& loss = (*events)[1];
  EXPECT_EQ(loss.step, 10);
  EXPECT_EQ(loss.wall_time, 100.5);
  ASSERT_EQ(loss.summary.size(), 1u);
  EXPECT_EQ(loss.summary[0].tag, "loss");
  EXPECT_EQ(loss.summary[0].simple_value, 0.25f);
  ASSERT_EQ((*events)[2].summary.size(), 2u);
  EXPECT_EQ((*events)[2].summary[1].tag, "b");
  EXPECT_EQ((*events)[2].summary[1].kind, SummaryValue::Kind::kSimpleValue);
}

TEST(EventsWriterTest, WritesAfterCloseFailAndCloseIsIdempotent) {
  MemEnv env;
  auto w = EventsWriter::Create(env, "/l", FixedClock(1));
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_TRUE((*w)->Close().ok());
  Status s = (*w)->WriteScalar("x", 1, 1);
  EXPECT_TRUE(IsFailedPrecondition(s)) << s;
  EXPECT_THAT(s.message(), HasSubstr((*w)->filename()));
}

TEST(EventsWriterTest, AnExistingFileIsAlreadyExistsAndLeftAlone) {
  MemEnv env;
  auto first = EventsWriter::Create(env, "/l", FixedClock(7));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE((*first)->WriteScalar("x", 1, 1).ok());
  ASSERT_TRUE((*first)->Flush().ok());
  auto second = EventsWriter::Create(env, "/l", FixedClock(7.5));
  EXPECT_TRUE(IsAlreadyExists(second.status())) << second.status();
  EXPECT_EQ(EventsReader::ReadAll(env, (*first)->filename())->size(), 2u);
}

TEST(EventsWriterTest, AWriteErrorNamesTheFileAndSticks) {
  MemEnv env;
  const std::string path = "/l/events.out.tfevents.0000000001.host";
  env.InjectWriteError(path, 100, UnavailableError("disk full"));
  auto w = EventsWriter::Create(env, "/l", FixedClock(1));
  ASSERT_TRUE(w.ok()) << w.status();
  Status s = (*w)->WriteScalar("a_long_enough_tag_to_pass_byte_60", 1, 1);
  if (s.ok()) s = (*w)->Flush();
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr(path));
  EXPECT_FALSE((*w)->WriteScalar("b", 1, 2).ok());
}

TEST(EventsWriterTest, ConcurrentWritersProduceWholeEvents) {
  MemEnv env;
  auto w = EventsWriter::Create(env, "/l", FixedClock(1));
  ASSERT_TRUE(w.ok()) << w.status();
  constexpr int kEach = 500;
  auto write = [&](const std::string& tag) {
    for (int i = 0; i < kEach; ++i) {
      ASSERT_TRUE((*w)->WriteScalar(tag, float(i), i).ok());
    }
  };
  std::thread a(write, "a"), b(write, "b");
  a.join();
  b.join();
  ASSERT_TRUE((*w)->Close().ok());
  Result<std::vector<Event>> events =
      EventsReader::ReadAll(env, (*w)->filename());
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 1u + 2 * kEach);
  int64_t next_a = 0, next_b = 0;
  for (size_t i = 1; i < events->size(); ++i) {
    const Event& e = (*events)[i];
    ASSERT_EQ(e.summary.size(), 1u);
    int64_t& next = e.summary[0].tag == "a" ? next_a : next_b;
    EXPECT_EQ(e.step, next++);  // each thread's events in its order
    EXPECT_EQ(e.summary[0].simple_value, float(e.step));
  }
  EXPECT_EQ(next_a, kEach);
  EXPECT_EQ(next_b, kEach);
}

TEST(EventsReaderTest, ANonEventRecordIsInvalidArgumentNamingFileAndRecord) {
  MemEnv env;
  auto writer = RecordWriter::Create(env, "/l/events");
  ASSERT_TRUE(writer.ok()) << writer.status();
  ASSERT_TRUE(
      (*writer)->WriteRecord(SerializeEvent(ScalarEvent("a", 1, 1, 1))).ok());
  ASSERT_TRUE((*writer)->WriteRecord(std::string("\x0f\x00", 2)).ok());
  ASSERT_TRUE((*writer)->Close().ok());
  auto reader = EventsReader::Open(env, "/l/events");
  ASSERT_TRUE(reader.ok()) << reader.status();
  ASSERT_TRUE((*reader)->Next().ok());
  Result<Event> e = (*reader)->Next();
  ASSERT_TRUE(IsInvalidArgument(e.status())) << e.status();
  EXPECT_THAT(e.status().message(),
              HasSubstr("/l/events: record 1 at offset 39 is not an Event"));
  EXPECT_TRUE(IsNotFound(EventsReader::Open(env, "/l/missing").status()));
}

}  // namespace
}  // namespace inflow
