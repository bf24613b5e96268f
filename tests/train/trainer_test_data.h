// Copyright 2026 The inflow Authors.
//
// The trainer tests' dataset: small separable 28x28 images written as
// image shards (two per split) into any Env, and the run the MemEnv
// tests make of it.

#ifndef INFLOW_TESTS_TRAIN_TRAINER_TEST_DATA_H_
#define INFLOW_TESTS_TRAIN_TRAINER_TEST_DATA_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/datafiles/image_shards.h"
#include "inflow/datafiles/pending_files.h"
#include "inflow/io/env.h"
#include "inflow/io/mem_env.h"
#include "inflow/train/trainer.h"

namespace inflow::testing {

// Class c lights up rows 4 + 2c and 5 + 2c of a 28x28 image; noise below.
inline Tensor SeparableImages(int64_t n, const std::vector<int64_t>& labels,
                              uint32_t seed) {
  Tensor t(DType::kUInt8, TensorShape({n, 28, 28}));
  uint8_t* d = t.mutable_flat<uint8_t>().value().data();
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < n; ++i) {
    for (int p = 0; p < 784; ++p) {
      const int row = p / 28;
      const bool lit = row / 2 == 2 + labels[i];
      d[i * 784 + p] =
          static_cast<uint8_t>(lit ? 200 + rng() % 56 : rng() % 40);
    }
  }
  return t;
}

// dir/NAME-0000i-of-00002.tfrecord: n examples, label (i * 7 + seed) % 10.
inline void WriteSplit(Env& env, const std::string& dir,
                       const std::string& name, int64_t n, uint32_t seed,
                       CompressionType compression = CompressionType::kNone) {
  std::vector<int64_t> labels(n);
  for (int64_t i = 0; i < n; ++i) labels[i] = (i * 7 + seed) % 10;
  PendingFiles pending(env);
  ImageShardOptions options;
  options.num_shards = 2;
  options.writer.compression = compression;
  auto paths = WriteImageShards(env, SeparableImages(n, labels, seed),
                                Tensor::FromVector(labels), dir + "/" + name,
                                options, pending);
  ASSERT_TRUE(paths.ok()) << paths.status();
  ASSERT_TRUE(pending.Commit().ok());
}

// The MemEnv tests' run, all under /inflow-mem (a folder no real disk
// has): data/ (WriteMemEnvData) to ckpt/ and logs/,
// 320 examples, batch 64: 5 steps per epoch; 10 steps, a checkpoint
// every 5.
inline TrainOptions MemEnvOptions(Env& env) {
  TrainOptions o;
  o.env = &env;
  o.data_dir = "/inflow-mem/data";
  o.batch_size = 64;
  o.seed = 3;
  o.optimizer = OptimizerKind::kAdam;
  o.learning_rate = 0.01f;
  o.steps = 10;
  o.save_every = 5;
  o.log_every = 5;
  o.ckpt_dir = "/inflow-mem/ckpt";
  o.logdir = "/inflow-mem/logs";
  o.eval_each_epoch = false;
  return o;
}

// A MemEnv holding the dataset durably.
inline void WriteMemEnvData(MemEnv& env) {
  WriteSplit(env, "/inflow-mem/data", "train", 320, 1);
  WriteSplit(env, "/inflow-mem/data", "test", 100, 2);
  env.SimulateCrash();
  ASSERT_EQ(GetMatchingPaths(env, "/inflow-mem/data/*").value().size(), 4u);
}

// The step of a checkpoint prefix ".../model.ckpt-STEP".
inline int64_t StepOf(const std::string& prefix) {
  return std::stoll(prefix.substr(prefix.rfind('-') + 1));
}

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_TRAIN_TRAINER_TEST_DATA_H_
