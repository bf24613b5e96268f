// Copyright 2026 The inflow Authors.
//
// libprotobuf's text format as the oracle of the `checkpoint` state file:
// what FormatCheckpointState writes, TextFormat parses to the same fields,
// and what TextFormat prints, ParseCheckpointState reads back.

#include <google/protobuf/text_format.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "inflow/checkpoint/checkpoint_state.h"

#include "checkpoint_state.pb.h"

namespace inflow {
namespace {

std::string RandomPath(std::mt19937_64& rng) {
  // Printable ASCII with the characters text format escapes, and UTF-8.
  static const char* const kPieces[] = {"model.ckpt-", "/tmp/run 1/", "\"",
                                        "\\",          "'",           "\t",
                                        "\xc3\xa9",    "7",           "-x"};
  std::string out;
  const int n = 1 + static_cast<int>(rng() % 5);
  for (int i = 0; i < n; ++i) out += kPieces[rng() % std::size(kPieces)];
  return out;
}

double RandomTimestamp(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0:
      return 1764600000.25;
    case 1:
      return static_cast<double>(rng() % 2000000000) +
             static_cast<double>(rng() % 1000000) / 1e6;
    case 2:
      return 1e-7 * static_cast<double>(rng() % 1000);
    default: {
      const uint64_t bits = rng() & 0x7fefffffffffffffu;  // finite
      double d;
      std::memcpy(&d, &bits, 8);
      return d;
    }
  }
}

void RandomState(std::mt19937_64& rng, CheckpointState* ours,
                 inflow_test::CheckpointState* theirs) {
  *ours = CheckpointState();
  theirs->Clear();
  const int n = static_cast<int>(rng() % 4);
  const bool timestamps = rng() % 2 == 0;
  for (int i = 0; i < n; ++i) {
    ours->all_model_checkpoint_paths.push_back(RandomPath(rng));
    theirs->add_all_model_checkpoint_paths(
        ours->all_model_checkpoint_paths.back());
    if (timestamps) {
      ours->all_model_checkpoint_timestamps.push_back(RandomTimestamp(rng));
      theirs->add_all_model_checkpoint_timestamps(
          ours->all_model_checkpoint_timestamps.back());
    }
  }
  ours->model_checkpoint_path =
      n > 0 ? ours->all_model_checkpoint_paths.back() : RandomPath(rng);
  theirs->set_model_checkpoint_path(ours->model_checkpoint_path);
  if (rng() % 2 == 0) {
    ours->last_preserved_timestamp = RandomTimestamp(rng);
    theirs->set_last_preserved_timestamp(ours->last_preserved_timestamp);
  }
}

TEST(CheckpointStateProtobufTest, TextFormatParsesWhatWeWrite) {
  std::mt19937_64 rng(17);
  for (int i = 0; i < 5000; ++i) {
    CheckpointState ours;
    inflow_test::CheckpointState expected;
    RandomState(rng, &ours, &expected);
    const std::string text = FormatCheckpointState(ours);
    inflow_test::CheckpointState parsed;
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &parsed))
        << text;
    // Doubles compared bit for bit through the binary form.
    ASSERT_EQ(parsed.SerializeAsString(), expected.SerializeAsString()) << text;
  }
}

TEST(CheckpointStateProtobufTest, WeReadWhatTextFormatPrints) {
  std::mt19937_64 rng(19);
  google::protobuf::TextFormat::Printer printers[2];
  printers[1].SetSingleLineMode(true);
  for (int i = 0; i < 5000; ++i) {
    CheckpointState expected;
    inflow_test::CheckpointState proto;
    RandomState(rng, &expected, &proto);
    std::string text;
    ASSERT_TRUE(printers[i % 2].PrintToString(proto, &text));
    Result<CheckpointState> ours = ParseCheckpointState(text);
    ASSERT_TRUE(ours.ok()) << ours.status().ToString() << "\n" << text;
    ASSERT_EQ(*ours, expected) << text;
  }
}

}  // namespace
}  // namespace inflow
