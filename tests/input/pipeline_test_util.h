// Copyright 2026 The inflow Authors.
//
// Corpora and helpers of the Pipeline tests: TFRecord files of Examples
// {"id": int64 scalar, "v": float [2] = {id, -id}} in a MemEnv, id =
// 10000 * file + record.

#ifndef INFLOW_TESTS_INPUT_PIPELINE_TEST_UTIL_H_
#define INFLOW_TESTS_INPUT_PIPELINE_TEST_UTIL_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/example/example.h"
#include "inflow/input/batch_source.h"
#include "inflow/io/mem_env.h"
#include "inflow/io/record_writer.h"
#include "inflow/threads/thread_registry.h"

namespace inflow {
namespace testing_util {

inline std::string ShardName(int file) {
  return "/data/part-" + std::to_string(file) + ".tfrecord";
}

inline std::string ExampleRecord(int64_t id) {
  return Example()
      .Set("id", Feature::Int64s({id}))
      .Set("v",
           Feature::Floats({static_cast<float>(id), -static_cast<float>(id)}))
      .Serialize();
}

// Writes `records` as a TFRecord file; returns each record's offset.
inline std::vector<uint64_t> WriteRecordFile(
    Env& env, const std::string& path,
    const std::vector<std::string>& records) {
  std::vector<uint64_t> offsets;
  auto writer = RecordWriter::Create(env, path);
  EXPECT_TRUE(writer.ok()) << writer.status();
  uint64_t offset = 0;
  for (const std::string& r : records) {
    offsets.push_back(offset);
    offset += 16 + r.size();  // length, its CRC, data, its CRC
    EXPECT_TRUE((*writer)->WriteRecord(r).ok());
  }
  EXPECT_TRUE((*writer)->Close().ok());
  return offsets;
}

// `files` shards of `records` Examples each.
inline void WriteShards(MemEnv& env, int files, int records) {
  for (int f = 0; f < files; ++f) {
    std::vector<std::string> rs;
    for (int i = 0; i < records; ++i)
      rs.push_back(ExampleRecord(10000 * f + i));
    WriteRecordFile(env, ShardName(f), rs);
  }
}

inline FeatureSpecs IdAndV() {
  return {{"id", FixedLenFeature({}, DType::kInt64)},
          {"v", FixedLenFeature({2}, DType::kFloat32)}};
}

struct Drained {
  std::vector<int64_t> batch_sizes;
  std::vector<int64_t> ids;  // component `id_component`, in order
  Status end;                // the status that ended the loop
};

// Next() until it fails; every batch is checked against the id/v corpus
// layout when `check_v`.
inline Drained Drain(BatchSource& source, int id_component = 0,
                     bool check_v = true) {
  Drained out;
  for (;;) {
    Result<Tuple> batch = source.Next();
    if (!batch.ok()) {
      out.end = batch.status();
      return out;
    }
    const Tensor& ids = (*batch)[id_component];
    out.batch_sizes.push_back(ids.dim_size(0));
    for (int64_t i = 0; i < ids.dim_size(0); ++i) {
      const int64_t id = ids.flat<int64_t>()[i];
      out.ids.push_back(id);
      if (check_v) {
        const Tensor& v = (*batch)[id_component + 1];
        EXPECT_EQ(v.flat<float>()[2 * i], static_cast<float>(id));
        EXPECT_EQ(v.flat<float>()[2 * i + 1], -static_cast<float>(id));
      }
    }
  }
}

inline std::map<int64_t, int> Counts(const std::vector<int64_t>& ids) {
  std::map<int64_t, int> counts;
  for (int64_t id : ids) ++counts[id];
  return counts;
}

// Threads whose name starts with `prefix` that have not finished.
inline std::vector<std::string> LiveThreads(const std::string& prefix) {
  std::vector<std::string> live;
  for (const ThreadSnapshot& t : ThreadRegistry::Global().Snapshot()) {
    if (t.name.rfind(prefix, 0) == 0 && t.state != ThreadState::kFinished) {
      live.push_back(t.name);
    }
  }
  return live;
}

}  // namespace testing_util
}  // namespace inflow

#endif  // INFLOW_TESTS_INPUT_PIPELINE_TEST_UTIL_H_
