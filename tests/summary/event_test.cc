// Copyright 2026 The inflow Authors.

#include "inflow/summary/event.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace inflow {
namespace {

using ::testing::HasSubstr;

std::string Hex(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

TEST(EventTest, ScalarEncodesAsTensorFlowDoes) {
  // Bytes of tf.compat.v1.Event(wall_time=1796141666.4923363, step=5,
  // summary=Summary(value=[Value(tag="loss", simple_value=0.0)]))
  // .SerializeToString(): a zero simple_value is still written (a oneof).
  const Event e = ScalarEvent("loss", 0.0f, 5, 1796141666.4923363);
  EXPECT_EQ(Hex(SerializeEvent(e)),
            "0970829f98bcc3da4110052a0d0a0b0a046c6f73731500000000");
}

TEST(EventTest, FileVersionEventWithSourceMetadataEncodesAsTensorFlowDoes) {
  Event e;
  e.wall_time = 1796141666;
  e.what = Event::What::kFileVersion;
  e.file_version = "brain.Event:2";
  e.has_source_metadata = true;
  e.source_writer = "tensorflow.core.util.events_writer";
  EXPECT_EQ(Hex(SerializeEvent(e)),
            "0900008098bcc3da411a0d627261696e2e4576656e743a3252240a2274656e73"
            "6f72666c6f772e636f72652e7574696c2e6576656e74735f777269746572");
}

TEST(EventTest, ProtoThreeDefaultsAreOmitted) {
  Event e;  // wall_time 0, step 0, nothing set
  EXPECT_EQ(SerializeEvent(e), "");
  e.what = Event::What::kFileVersion;  // an empty oneof member is written
  EXPECT_EQ(Hex(SerializeEvent(e)), "1a00");
}

TEST(EventTest, EveryFieldRoundTrips) {
  Event e;
  e.wall_time = -3.25;
  e.step = -7;  // ten-byte varint
  e.what = Event::What::kSummary;
  SummaryValue a;
  a.tag = "a";
  a.kind = SummaryValue::Kind::kSimpleValue;
  a.simple_value = 2.5f;
  a.node_name = "n";
  SummaryValue b;
  b.tag = "b";
  b.kind = SummaryValue::Kind::kTensor;
  b.payload = std::string("\x08\x07", 2);
  b.has_metadata = true;
  b.metadata = std::string("\x0a\x00", 2);
  SummaryValue c;
  c.tag = "c";
  c.kind = SummaryValue::Kind::kHistogram;
  c.payload = "h";
  e.summary = {a, b, c};
  e.has_source_metadata = true;
  e.source_writer = "w";
  Result<Event> back = ParseEvent(SerializeEvent(e));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, e);
  for (Event::What what :
       {Event::What::kGraphDef, Event::What::kSessionLog,
        Event::What::kMetaGraphDef, Event::What::kTaggedRunMetadata}) {
    Event g;
    g.what = what;
    g.payload = "graph bytes";
    back = ParseEvent(SerializeEvent(g));
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(*back, g);
  }
}

TEST(EventTest, UnknownFieldsAreSkippedAndTheLastOneofMemberWins) {
  // field 15 varint 1; file_version "x"; field 20 fixed32; graph_def "g".
  const std::string bytes("\x78\x01\x1a\x01x\xa5\x01\x00\x00\x00\x00\x22\x01g",
                          14);
  Result<Event> e = ParseEvent(bytes);
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->what, Event::What::kGraphDef);
  EXPECT_EQ(e->payload, "g");
  EXPECT_EQ(e->file_version, "");
}

TEST(EventTest, MalformedBytesAreInvalidArgumentWithTheOffset) {
  // A summary whose length runs past the end.
  Result<Event> e = ParseEvent(std::string("\x10\x01\x2a\x05\x0a", 5));
  ASSERT_TRUE(IsInvalidArgument(e.status())) << e.status();
  EXPECT_THAT(e.status().message(),
              HasSubstr("malformed Event at byte offset 2"));
  // A Summary.Value with a truncated simple_value.
  e = ParseEvent(std::string("\x2a\x04\x0a\x02\x15\x00", 6));
  ASSERT_TRUE(IsInvalidArgument(e.status())) << e.status();
  EXPECT_THAT(e.status().message(),
              HasSubstr("malformed Summary.Value at byte offset 4"));
  // Every truncation of a valid event fails or parses, never crashes.
  const std::string good = SerializeEvent(ScalarEvent("loss", 1.f, 3, 2.0));
  for (size_t n = 0; n < good.size(); ++n) {
    ParseEvent(good.substr(0, n)).status().IgnoreError();
  }
}

}  // namespace
}  // namespace inflow
