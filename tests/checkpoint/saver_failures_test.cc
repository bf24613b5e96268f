// Copyright 2026 The inflow Authors.
//
// Saver: Restore in place, and what a failed or killed Save leaves behind. The
// clock is injected; files live in an in-memory Env.

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "inflow/checkpoint/bundle.h"
#include "inflow/checkpoint/checkpoint_state.h"
#include "inflow/checkpoint/saver.h"

#include "checkpoint/recording_env.h"
#include "saver_test_fixture.h"

namespace inflow {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAreArray;

TEST_F(SaverTest, RestoreWritesIntoTheRegisteredBuffersInPlace) {
  auto saver = NewSaver(Options());
  const std::string prefix = saver->Save("/d/model.ckpt", 7).value();
  const void* kernel_data = kernel_.raw_data();
  const void* step_data = step_.raw_data();
  ASSERT_TRUE(kernel_.mutable_flat<float>().ok());
  (*kernel_.mutable_flat<float>())[1] = 99.0f;
  (*step_.mutable_flat<int64_t>())[0] = 123;
  ASSERT_TRUE(saver->Restore(prefix).ok());
  EXPECT_THAT(kernel_.flat<float>(), ElementsAre(1.5f, -2.0f, 3.25f));
  EXPECT_EQ(step_.flat<int64_t>()[0], 7);
  EXPECT_EQ(kernel_.raw_data(), kernel_data);
  EXPECT_EQ(step_.raw_data(), step_data);
}

TEST_F(SaverTest, RestoreChecksEveryTensorBeforeWritingAny) {
  Saver writer(Options());
  Tensor saved_kernel = Tensor::FromVector<float>({4.0f, 5.0f, 6.0f});
  ASSERT_TRUE(writer.Register("dense/kernel", &saved_kernel).ok());
  Tensor wrong_dtype = Tensor::Scalar<int32_t>(1);
  ASSERT_TRUE(writer.Register("int_step", &wrong_dtype).ok());
  Tensor wrong_shape = Tensor::FromVector<float>({1.0f, 2.0f});
  ASSERT_TRUE(writer.Register("bias", &wrong_shape).ok());
  const std::string prefix = writer.Save("/d/model.ckpt", 1).value();

  // dense/kernel matches and comes first; the failure of the second
  // tensor must leave it unwritten.
  Saver reader(Options());
  ASSERT_TRUE(reader.Register("dense/kernel", &kernel_).ok());
  Tensor missing = Tensor::Scalar<int64_t>(0);
  ASSERT_TRUE(reader.Register("global_step", &missing).ok());
  Status status = reader.Restore(prefix);
  EXPECT_TRUE(IsNotFound(status)) << status;
  EXPECT_EQ(status.message(),
            "Key global_step not found in checkpoint /d/model.ckpt-1");
  EXPECT_THAT(kernel_.flat<float>(), ElementsAre(1.5f, -2.0f, 3.25f));

  Saver dtype_reader(Options());
  Tensor as_int64 = Tensor::Scalar<int64_t>(0);
  ASSERT_TRUE(dtype_reader.Register("int_step", &as_int64).ok());
  status = dtype_reader.Restore(prefix);
  EXPECT_TRUE(IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("int_step"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("int32"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("int64"));

  Saver shape_reader(Options());
  Tensor three = Tensor::FromVector<float>({0.0f, 0.0f, 0.0f});
  ASSERT_TRUE(shape_reader.Register("bias", &three).ok());
  status = shape_reader.Restore(prefix);
  EXPECT_TRUE(IsInvalidArgument(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("bias"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("[2]"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("[3]"));
  EXPECT_THAT(three.flat<float>(), ElementsAre(0.0f, 0.0f, 0.0f));
}

// The four tensors the all-or-nothing test saves and restores, registered
// under "a" .. "d".
struct FourTensors {
  Tensor a, b, c, d;
  static FourTensors Saved() {
    return {Tensor::FromVector<float>({1.0f, 2.0f, 3.0f}),
            Tensor::Scalar<int64_t>(468),
            Tensor::FromVector<std::string>({"xy", "z"}),
            Tensor::FromVector<double>({0.5, 0.25})};
  }
  static FourTensors Old() {
    return {Tensor::FromVector<float>({-1.0f, -1.0f, -1.0f}),
            Tensor::Scalar<int64_t>(-1),
            Tensor::FromVector<std::string>({"old", "old"}),
            Tensor::FromVector<double>({-1.0, -1.0})};
  }
  void Register(Saver& saver) {
    ASSERT_TRUE(saver.Register("a", &a).ok());
    ASSERT_TRUE(saver.Register("b", &b).ok());
    ASSERT_TRUE(saver.Register("c", &c).ok());
    ASSERT_TRUE(saver.Register("d", &d).ok());
  }
};

// A byte flipped in any one tensor's data fails the restore before
// anything is written: every registered tensor keeps its value, those
// before the damaged one in name order as well as those after it.
TEST_F(SaverTest, ADamagedTensorAnywhereRestoresNothing) {
  Saver writer(Options());
  FourTensors saved = FourTensors::Saved();
  saved.Register(writer);
  const std::string prefix = writer.Save("/d/model.ckpt", 1).value();
  const std::string data_path = BundleDataFilename(prefix, 0, 1);
  const std::string good = env_.mem().Contents(data_path).value();
  std::unique_ptr<BundleReader> bundle =
      BundleReader::Open(prefix, &env_).value();
  for (const BundleEntry& e : bundle->entries()) {
    SCOPED_TRACE(e.name);
    std::string bad = good;
    bad[static_cast<size_t>(e.offset + e.size - 1)] ^= 0x10;
    ASSERT_TRUE(WriteStringToFile(env_, data_path, bad).ok());
    FourTensors r = FourTensors::Old();
    Saver reader(Options());
    r.Register(reader);
    Status status = reader.Restore(prefix);
    EXPECT_TRUE(IsDataLoss(status)) << status;
    EXPECT_THAT(std::string(status.message()),
                HasSubstr("restoring " + e.name + " from " + prefix));
    EXPECT_THAT(r.a.flat<float>(), ElementsAre(-1.0f, -1.0f, -1.0f));
    EXPECT_EQ(r.b.flat<int64_t>()[0], -1);
    EXPECT_THAT(r.c.flat<std::string>(), ElementsAre("old", "old"));
    EXPECT_THAT(r.d.flat<double>(), ElementsAre(-1.0, -1.0));
  }
  // Undamaged, the same restore writes all four.
  ASSERT_TRUE(WriteStringToFile(env_, data_path, good).ok());
  FourTensors r = FourTensors::Old();
  Saver reader(Options());
  r.Register(reader);
  ASSERT_TRUE(reader.Restore(prefix).ok());
  EXPECT_THAT(r.a.flat<float>(), ElementsAre(1.0f, 2.0f, 3.0f));
  EXPECT_EQ(r.b.flat<int64_t>()[0], 468);
  EXPECT_THAT(r.c.flat<std::string>(), ElementsAre("xy", "z"));
  EXPECT_THAT(r.d.flat<double>(), ElementsAre(0.5, 0.25));
}

// An I/O error part way through (here while reading the last tensor)
// restores nothing either.
TEST_F(SaverTest, AReadErrorRestoresNothing) {
  auto saver = NewSaver(Options());
  const std::string prefix = saver->Save("/d/model.ckpt", 7).value();
  std::unique_ptr<BundleReader> bundle =
      BundleReader::Open(prefix, &env_).value();
  const BundleEntry* step = bundle->Lookup("global_step").value();
  env_.mem().InjectReadError(BundleDataFilename(prefix, 0, 1), step->offset,
                             UnavailableError("injected"));
  (*kernel_.mutable_flat<float>())[0] = 42.0f;
  (*step_.mutable_flat<int64_t>())[0] = 43;
  Status status = saver->Restore(prefix);
  EXPECT_TRUE(IsUnavailable(status)) << status;
  EXPECT_THAT(kernel_.flat<float>(), ElementsAre(42.0f, -2.0f, 3.25f));
  EXPECT_EQ(step_.flat<int64_t>()[0], 43);
}

// What killed saves of model.ckpt leave, and what is not theirs: the first
// Save of a new Saver removes the former (once old enough) and nothing else.
TEST_F(SaverTest, TheFirstSaveRemovesTheLeftoversOfKilledSavesOfItsBase) {
  auto saver = NewSaver(Options());
  for (int step : {0, 1, 2})
    ASSERT_TRUE(saver->Save("/d/model.ckpt", step).ok());
  const std::string hex16 = "0123456789abcdef";
  const std::string hex32 = hex16 + hex16;
  const std::vector<std::string> garbage = {
      "model.ckpt-3.index.tempstate" + hex16,
      "model.ckpt-3.data-00000-of-00001.tempstate" + hex16,
      "model.ckpt.index.tempstate" + hex16,
      "checkpoint.tmp" + hex32,
      "model.ckpt-4.data-00000-of-00001",  // no index
  };
  const std::vector<std::string> not_ours = {
      "other.ckpt-3.index.tempstate" + hex16,  // another base
      "model.ckpt-3.index.tempstate12345",     // not our temporary's name
      "checkpoint.tmp" + hex16,
      "model.ckpt-best.data-00000-of-00001",
      "notes.txt",
  };
  Saver preserved_writer(Options());
  ASSERT_TRUE(preserved_writer.Register("dense/kernel", &kernel_).ok());
  ASSERT_TRUE(preserved_writer.Save("/d/model.ckpt", 9, false).ok());
  for (const auto& name : garbage) {
    ASSERT_TRUE(WriteStringToFile(env_, "/d/" + name, "x").ok());
    env_.SetModificationTime("/d/" + name, 900.0);
  }
  for (const auto& name : not_ours) {
    ASSERT_TRUE(WriteStringToFile(env_, "/d/" + name, "x").ok());
    env_.SetModificationTime("/d/" + name, 900.0);
  }
  // An evicted checkpoint whose deletion was killed: unlisted, marked. A
  // marked one still listed (killed before the state file dropped it)
  // keeps its files. An unlisted one without a marker (preserved by
  // keep_checkpoint_every_n_hours, or saved without write_state) stays.
  ASSERT_TRUE(WriteStringToFile(env_, "/d/model.ckpt-0.evicting", "").ok());
  ASSERT_TRUE(WriteStringToFile(env_, "/d/model.ckpt-1.evicting", "").ok());
  ASSERT_TRUE(WriteStringToFile(env_, "/d/checkpoint", StateOf({1, 2})).ok());
  const std::vector<std::string> before = Files();

  // Younger than the grace period (an hour): only the marked checkpoint
  // and the markers go.
  auto next = NewSaver(Options());
  ASSERT_TRUE(next->Save("/d/model.ckpt", 5, false).ok());
  std::vector<std::string> want = before;
  std::erase_if(want, [](const std::string& f) {
    return f.starts_with("model.ckpt-0.") || f.ends_with(".evicting");
  });
  want.push_back("model.ckpt-5.data-00000-of-00001");
  want.push_back("model.ckpt-5.index");
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Files(), want);

  // Older than it (by the clock a new Saver is given): the temporaries and
  // the index-less data file go too.
  SaverOptions later = Options();
  later.now = [] { return 900.0 + 3600.0; };
  auto last = NewSaver(later);
  ASSERT_TRUE(last->Save("/d/model.ckpt", 6, false).ok());
  std::erase_if(want, [&](const std::string& f) {
    return std::find(garbage.begin(), garbage.end(), f) != garbage.end();
  });
  want.push_back("model.ckpt-6.data-00000-of-00001");
  want.push_back("model.ckpt-6.index");
  std::sort(want.begin(), want.end());
  EXPECT_EQ(Files(), want);
  for (const auto& name : not_ours) {
    EXPECT_TRUE(env_.FileExists("/d/" + name).ok()) << name;
  }
  EXPECT_TRUE(env_.FileExists("/d/model.ckpt-1.index").ok());
  EXPECT_FALSE(env_.FileExists("/d/model.ckpt-1.evicting").ok());
  EXPECT_TRUE(env_.FileExists("/d/model.ckpt-9.index").ok());
}

// An eviction writes its marker before the state file drops the
// checkpoint and removes it after the files.
TEST_F(SaverTest, AnEvictionIsMarkedUntilItsFilesAreGone) {
  SaverOptions options = Options();
  options.max_to_keep = 1;
  auto saver = NewSaver(options);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  env_.mem().set_log_mutations(true);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 2).ok());
  const std::vector<std::string> log = env_.mem().mutation_log();
  auto at = [&](const std::string& needle) {
    for (size_t i = 0; i < log.size(); ++i) {
      if (log[i].find(needle) != std::string::npos) return static_cast<int>(i);
    }
    return -1;
  };
  const int marker = at("model.ckpt-1.evicting");
  const int state = at("/d/checkpoint");
  const int index_gone = at("model.ckpt-1.index");
  ASSERT_GE(marker, 0);
  EXPECT_LT(marker, state);
  EXPECT_LT(state, index_gone);
  EXPECT_EQ(Files(), FilesOf({2}));
}

TEST_F(SaverTest, RegisterRejectsEmptyDuplicateAndUninitialized) {
  Saver saver(Options());
  Tensor t = Tensor::Scalar<float>(1.0f);
  Tensor none;
  EXPECT_TRUE(IsInvalidArgument(saver.Register("", &t)));
  EXPECT_TRUE(IsInvalidArgument(saver.Register("x", nullptr)));
  EXPECT_TRUE(IsInvalidArgument(saver.Register("x", &none)));
  EXPECT_TRUE(saver.Register("x", &t).ok());
  EXPECT_TRUE(IsInvalidArgument(saver.Register("x", &t)));
}

TEST_F(SaverTest, AFailedStateWriteLeavesStateListAndOldFilesAsTheyWere) {
  SaverOptions options = Options();
  options.max_to_keep = 2;
  auto saver = NewSaver(options);
  for (int step : {1, 2}) ASSERT_TRUE(saver->Save("/d/model.ckpt", step).ok());
  const auto list = saver->last_checkpoints();
  env_.FailCall("rename", 0, UnavailableError("injected"), "-> /d/checkpoint");
  Result<std::string> saved = saver->Save("/d/model.ckpt", 3);
  EXPECT_TRUE(IsUnavailable(saved.status())) << saved.status();
  EXPECT_EQ(Files(), FilesOf({1, 2}));
  EXPECT_EQ(StateText(), StateOf({1, 2}));
  EXPECT_EQ(saver->last_checkpoints(), list);
  // The next Save goes on as if the failed one had not happened.
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 4).ok());
  EXPECT_EQ(Files(), FilesOf({2, 4}));
  EXPECT_EQ(StateText(), StateOf({2, 4}));
}

TEST_F(SaverTest, AFailedSaveOverAnExistingPrefixLeavesItsFiles) {
  ASSERT_TRUE(NewSaver(Options())->Save("/d/model.ckpt").ok());
  // A new run (an empty list) saves the same prefix; its state write
  // fails. The old state file names the prefix, so its files must stay.
  auto saver = NewSaver(Options());
  env_.FailCall("rename", 0, UnavailableError("injected"), "-> /d/checkpoint");
  EXPECT_TRUE(IsUnavailable(saver->Save("/d/model.ckpt").status()));
  EXPECT_EQ(LatestCheckpoint("/d", {.env = &env_}).value(), "/d/model.ckpt");
  EXPECT_TRUE(saver->Restore("/d/model.ckpt").ok());
}

TEST_F(SaverTest, AStateFileRenamedButNotSyncedKeepsTheNewCheckpoint) {
  SaverOptions options = Options();
  options.max_to_keep = 1;
  auto saver = NewSaver(options);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  env_.log().clear();
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 2).ok());
  // The last directory sync of a Save is the state file's.
  int syncdirs = 0;
  for (const std::string& line : env_.log()) {
    syncdirs += line.rfind("syncdir ", 0) == 0;
  }
  ASSERT_GE(syncdirs, 1);
  env_.FailCall("syncdir", syncdirs - 1, UnavailableError("injected"));
  Result<std::string> saved = saver->Save("/d/model.ckpt", 3);
  EXPECT_TRUE(IsUnavailable(saved.status())) << saved.status();
  EXPECT_THAT(std::string(saved.status().message()),
              HasSubstr("saved /d/model.ckpt-3 and listed it"));
  // What readers see is consistent: the new state names a checkpoint
  // that is there; the evicted one is not deleted yet (the state file may
  // not be durable), only marked: the next Saver deletes it if the state
  // file it finds does not list it.
  EXPECT_EQ(StateText(), StateOf({3}));
  EXPECT_EQ(LatestCheckpoint("/d", {.env = &env_}).value(), "/d/model.ckpt-3");
  std::vector<std::string> files = FilesOf({2, 3});
  files.push_back("model.ckpt-2.evicting");
  std::sort(files.begin(), files.end());
  EXPECT_EQ(Files(), files);
  EXPECT_THAT(saver->last_checkpoints(),
              ElementsAre(Pair("/d/model.ckpt-3", 1000.0)));
}

TEST_F(SaverTest, AFailedBundleWriteLeavesNoFilesBehind) {
  auto saver = NewSaver(Options());
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  for (const char* kind : {"write", "sync", "rename"}) {
    env_.FailCall(kind, 0, UnavailableError("injected"));
    Result<std::string> saved = saver->Save("/d/model.ckpt", 2);
    EXPECT_TRUE(IsUnavailable(saved.status())) << kind << saved.status();
    EXPECT_EQ(Files(), FilesOf({1})) << kind;
    EXPECT_EQ(StateText(), StateOf({1})) << kind;
    env_.FailCall(kind, -1, OkStatus());
  }
}

TEST_F(SaverTest, AFailedDeletionIsReportedAfterTheCheckpointIsListed) {
  SaverOptions options = Options();
  options.max_to_keep = 1;
  auto saver = NewSaver(options);
  ASSERT_TRUE(saver->Save("/d/model.ckpt", 1).ok());
  env_.FailCall("delete", 0, PermissionDeniedError("injected"),
                "/d/model.ckpt-1.index");
  Result<std::string> saved = saver->Save("/d/model.ckpt", 2);
  EXPECT_TRUE(IsPermissionDenied(saved.status())) << saved.status();
  EXPECT_THAT(std::string(saved.status().message()),
              HasSubstr("saved /d/model.ckpt-2, but deleting"));
  EXPECT_EQ(StateText(), StateOf({2}));
  EXPECT_TRUE(
      IsNotFound(env_.FileExists("/d/model.ckpt-1.data-00000-of-00001")));
}

}  // namespace
}  // namespace inflow
