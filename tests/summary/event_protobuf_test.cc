// Copyright 2026 The inflow Authors.
//
// libprotobuf as the oracle of the hand-written Event codec: on random
// events, our bytes are libprotobuf's bytes for the same message, we read
// what libprotobuf writes, and concatenated records merge as libprotobuf
// merges them.

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "inflow/summary/event.h"

#include "summary_messages.pb.h"

namespace inflow {
namespace {

using Kind = SummaryValue::Kind;
using What = Event::What;

std::string RandomBytes(std::mt19937_64& rng, size_t max_size) {
  std::string out(static_cast<size_t>(rng() % (max_size + 1)), '\0');
  for (char& c : out) c = static_cast<char>(rng());
  return out;
}

double RandomDouble(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return 0.0;
    case 1:
      return -0.0;
    default: {
      const uint64_t bits = rng();
      double d;
      std::memcpy(&d, &bits, 8);
      return d == d ? d : 1.5;  // NaN payloads aside
    }
  }
}

// A random event, built as our value and as libprotobuf's message.
void RandomEvent(std::mt19937_64& rng, Event* ours,
                 inflow_test::Event* theirs) {
  *ours = Event();
  theirs->Clear();
  ours->wall_time = RandomDouble(rng);
  theirs->set_wall_time(ours->wall_time);
  ours->step = rng() % 3 == 0 ? 0 : static_cast<int64_t>(rng()) >> (rng() % 64);
  theirs->set_step(ours->step);
  const int what = static_cast<int>(rng() % 9);
  if (what >= 3) ours->what = static_cast<What>(what);
  switch (ours->what) {
    case What::kNone:
      break;
    case What::kFileVersion:
      ours->file_version = "brain.Event:" + std::to_string(rng() % 3);
      theirs->set_file_version(ours->file_version);
      break;
    case What::kSummary: {
      inflow_test::Summary* summary = theirs->mutable_summary();
      const int n = static_cast<int>(rng() % 4);
      for (int i = 0; i < n; ++i) {
        SummaryValue v;
        inflow_test::Summary::Value* p = summary->add_value();
        if (rng() % 4 != 0) {
          v.tag = "loss/" + std::to_string(rng() % 100);
          p->set_tag(v.tag);
        }
        if (rng() % 4 == 0) {
          v.node_name = "node";
          p->set_node_name(v.node_name);
        }
        const int kind = static_cast<int>(rng() % 8);
        if (kind == 2) {
          v.kind = Kind::kSimpleValue;
          v.simple_value =
              rng() % 2 == 0 ? 0.0f : static_cast<float>(rng() % 1000) / 7;
          p->set_simple_value(v.simple_value);
        } else if (kind >= 3 && kind <= 6) {
          v.kind = static_cast<Kind>(kind);
          v.payload = RandomBytes(rng, 6);
          switch (v.kind) {
            case Kind::kObsoleteHistogram:
              p->set_obsolete_old_style_histogram(v.payload);
              break;
            case Kind::kImage:
              p->set_image(v.payload);
              break;
            case Kind::kHistogram:
              p->set_histo(v.payload);
              break;
            case Kind::kAudio:
              p->set_audio(v.payload);
              break;
            default:
              break;
          }
        } else if (kind == 1) {
          v.kind = Kind::kTensor;
          v.payload = RandomBytes(rng, 6);
          p->set_tensor(v.payload);
        }
        if (rng() % 3 == 0) {
          inflow_test::SummaryMetadata m;
          m.mutable_plugin_data()->set_plugin_name("scalars");
          if (rng() % 2 == 0) m.set_display_name("shown");
          *p->mutable_metadata() = m;
          v.metadata = m.SerializeAsString();
          v.has_metadata = true;
        }
        ours->summary.push_back(std::move(v));
      }
      break;
    }
    default:
      ours->payload = RandomBytes(rng, 8);
      switch (ours->what) {
        case What::kGraphDef:
          theirs->set_graph_def(ours->payload);
          break;
        case What::kLogMessage:
          theirs->set_log_message(ours->payload);
          break;
        case What::kSessionLog:
          theirs->set_session_log(ours->payload);
          break;
        case What::kTaggedRunMetadata:
          theirs->set_tagged_run_metadata(ours->payload);
          break;
        default:
          theirs->set_meta_graph_def(ours->payload);
          break;
      }
      break;
  }
  if (rng() % 3 == 0) {
    ours->has_source_metadata = true;
    theirs->mutable_source_metadata();
    if (rng() % 2 == 0) {
      ours->source_writer = "inflow";
      theirs->mutable_source_metadata()->set_writer(ours->source_writer);
    }
  }
}

TEST(EventProtobufTest, OurBytesAreLibprotobufsAndWeReadThemBack) {
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    Event ours;
    inflow_test::Event theirs;
    RandomEvent(rng, &ours, &theirs);
    std::string expected;
    ASSERT_TRUE(theirs.SerializeToString(&expected));
    const std::string bytes = SerializeEvent(ours);
    ASSERT_EQ(bytes, expected) << "event " << i;
    Result<Event> back = ParseEvent(expected);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    ASSERT_EQ(*back, ours) << "event " << i;
  }
}

TEST(EventProtobufTest, ConcatenatedRecordsMergeAsLibprotobufMergesThem) {
  std::mt19937_64 rng(9);
  for (int i = 0; i < 20000; ++i) {
    Event a;
    Event b;
    inflow_test::Event pa;
    inflow_test::Event pb;
    RandomEvent(rng, &a, &pa);
    RandomEvent(rng, &b, &pb);
    const std::string both = pa.SerializeAsString() + pb.SerializeAsString();
    inflow_test::Event merged;
    ASSERT_TRUE(merged.ParseFromString(both));
    Result<Event> ours = ParseEvent(both);
    ASSERT_TRUE(ours.ok()) << ours.status().ToString();
    ASSERT_EQ(SerializeEvent(*ours), merged.SerializeAsString()) << i;
  }
}

TEST(EventProtobufTest, WhatLibprotobufRejectsWeRejectWithAnOffset) {
  std::mt19937_64 rng(13);
  int rejected = 0;
  for (int i = 0; i < 20000; ++i) {
    Event e;
    inflow_test::Event p;
    RandomEvent(rng, &e, &p);
    std::string bytes = p.SerializeAsString();
    if (bytes.empty()) continue;
    if (rng() % 2 == 0) {
      bytes.resize(rng() % bytes.size());
    } else {
      bytes[rng() % bytes.size()] = static_cast<char>(rng());
    }
    inflow_test::Event oracle;
    const bool ok = oracle.ParseFromString(bytes);
    Result<Event> ours = ParseEvent(bytes);
    ASSERT_EQ(ours.ok(), ok) << i << ": " << ours.status().ToString() << " "
                             << testing::PrintToString(bytes);
    if (!ok) {
      ++rejected;
      EXPECT_NE(ours.status().message().find("at byte offset"),
                std::string::npos);
    }
  }
  EXPECT_GT(rejected, 1000);
}

}  // namespace
}  // namespace inflow
