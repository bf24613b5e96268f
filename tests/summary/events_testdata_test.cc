// Copyright 2026 The inflow Authors.
//
// EventsReader reads the event files TensorFlow wrote in tests/testdata/tf
// (one by TF1's FileWriter, one by TF2's tf.summary) with the contents
// expected.json lists: record count, the first event, how many events of
// each kind, the largest step, and for every tag its count, first and last
// step and value.

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include <gtest/gtest.h>

#include "inflow/io/record_reader.h"
#include "inflow/summary/events_reader.h"

#include "tf_testdata.h"

namespace inflow {
namespace {

using testing::ReadTfExpected;
using testing::TfTestDataDir;

std::string FromHex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return out;
}

struct TagFacts {
  int count = 0;
  int64_t first_step = 0, last_step = 0;
  SummaryValue first, last;
};

void ExpectValue(const SummaryValue& v, const nlohmann::json& want,
                 const std::string& where) {
  if (want.contains("simple_value")) {
    ASSERT_EQ(v.kind, SummaryValue::Kind::kSimpleValue) << where;
    EXPECT_EQ(v.simple_value, want["simple_value"].get<float>()) << where;
  } else {
    ASSERT_TRUE(want.contains("tensor")) << where;
    ASSERT_EQ(v.kind, SummaryValue::Kind::kTensor) << where;
    // The TensorProto's string_val bytes and its tensor_content appear in
    // the payload.
    const nlohmann::json& tensor = want.at("tensor");
    for (const auto& s : tensor.at("string_val")) {
      EXPECT_NE(v.payload.find(s.get<std::string>()), std::string::npos)
          << where;
    }
    const std::string content = FromHex(tensor.at("tensor_content_hex"));
    EXPECT_NE(v.payload.find(content), std::string::npos) << where;
  }
}

TEST(EventsTestDataTest, TensorFlowEventFilesReadAsExpectedJsonSays) {
  nlohmann::json expected;
  ASSERT_TRUE(ReadTfExpected(&expected));
  int files = 0;
  for (const auto& [name, facts] : expected["files"].items()) {
    if (facts["kind"] != "events") continue;
    ++files;
    const std::string path = (TfTestDataDir() / name).string();
    Result<std::vector<Event>> events =
        EventsReader::ReadAll(Env::Default(), path);
    ASSERT_TRUE(events.ok()) << events.status();
    ASSERT_EQ(events->size(), facts["records"].get<size_t>()) << name;
    ASSERT_FALSE(events->empty()) << path << " holds no event";
    const Event& first = events->front();
    EXPECT_EQ(first.wall_time, facts["first_event"]["wall_time"].get<double>());
    EXPECT_EQ(first.step, facts["first_event"]["step"].get<int64_t>());
    EXPECT_EQ(first.what, Event::What::kFileVersion);
    EXPECT_EQ(first.file_version,
              facts["first_event"]["file_version"].get<std::string>());
    std::map<std::string, int> what_counts;
    std::map<std::string, TagFacts> tags;
    int64_t max_step = 0;
    for (const Event& e : *events) {
      ++what_counts[std::string(EventWhatName(e.what))];
      max_step = std::max(max_step, e.step);
      for (const SummaryValue& v : e.summary) {
        TagFacts& t = tags[v.tag];
        if (t.count++ == 0) {
          t.first_step = e.step;
          t.first = v;
        }
        t.last_step = e.step;
        t.last = v;
      }
    }
    EXPECT_EQ(max_step, facts["max_step"].get<int64_t>()) << name;
    for (const auto& [what, count] : facts["what_counts"].items()) {
      EXPECT_EQ(what_counts[what], count.get<int>()) << name << " " << what;
    }
    ASSERT_EQ(tags.size(), facts["tags"].size()) << name;
    for (const auto& [tag, want] : facts["tags"].items()) {
      const std::string where = name + " " + tag;
      ASSERT_TRUE(tags.count(tag)) << where;
      const TagFacts& t = tags[tag];
      EXPECT_EQ(t.count, want["count"].get<int>()) << where;
      EXPECT_EQ(t.first_step, want["first_step"].get<int64_t>()) << where;
      EXPECT_EQ(t.last_step, want["last_step"].get<int64_t>()) << where;
      ExpectValue(t.first, want["first"], where + " first");
      ExpectValue(t.last, want["last"], where + " last");
    }
  }
  EXPECT_EQ(files, 2);
}

TEST(EventsTestDataTest, EveryTensorFlowRecordReEncodesToTheSameBytes) {
  for (const char* name : {"events.out.tfevents.tf1_file_writer",
                           "events.out.tfevents.tf2_summary"}) {
    const std::string path = (TfTestDataDir() / "events" / name).string();
    RecordReaderOptions options;
    options.buffer_size = 1 << 20;
    auto reader = RecordReader::Open(Env::Default(), path, options);
    ASSERT_TRUE(reader.ok()) << reader.status();
    int records = 0;
    while (true) {
      Result<std::string_view> r = (*reader)->Next();
      if (!r.ok()) {
        EXPECT_TRUE(IsOutOfRange(r.status())) << r.status();
        break;
      }
      Result<Event> e = ParseEvent(*r);
      ASSERT_TRUE(e.ok()) << name << " record " << records << ": "
                          << e.status();
      EXPECT_TRUE(SerializeEvent(*e) == *r) << name << " record " << records;
      ++records;
    }
    EXPECT_GT(records, 6) << name;
  }
}

}  // namespace
}  // namespace inflow
