// Copyright 2026 The inflow Authors.
//
// Iterator::Save / Restore: for every stage, at parallelism 1..8, an
// iterator saved at a random position and restored into a new iterator
// gives exactly the elements an uninterrupted one gives after that
// position; the state stays small (no element in it); states of another
// pipeline or damaged bytes are INVALID_ARGUMENT, never a crash.

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/checkpoint/saver.h"
#include "inflow/data/dataset.h"

#include "dataset_test_util.h"

namespace inflow::data {
namespace {

using testing::All;
using testing::Drain;

MapFn AddOne() {
  return [](Tuple e) -> Result<Tuple> {
    Tuple out;
    for (const Tensor& t : e) {
      std::vector<int64_t> v(t.flat<int64_t>().begin(),
                             t.flat<int64_t>().end());
      for (int64_t& x : v) x += 1;
      Result<Tensor> r = Tensor::FromVector<int64_t>(v, t.shape());
      if (!r.ok()) return r.status();
      out.push_back(std::move(r).value());
    }
    return out;
  };
}

PredicateFn NotMultipleOf(int64_t k) {
  return [k](const Tuple& e) -> Result<bool> {
    return e[0].flat<int64_t>()[0] % k != 0;
  };
}

struct Pipeline {
  std::string name;
  std::function<Dataset(int parallelism)> make;
};

std::vector<Pipeline> Pipelines() {
  return {
      {"range", [](int) { return Dataset::Range(57); }},
      {"slices",
       [](int) {
         return Dataset::FromTensorSlices(
             {Tensor::FromVector<int64_t>(std::vector<int64_t>(40, 7)),
              Tensor::FromVector<int64_t>(std::vector<int64_t>(40, 9))});
       }},
      {"map",
       [](int p) {
         return Dataset::Range(60).Map(AddOne(), {.num_parallel_calls = p});
       }},
      {"map_nondeterministic",
       [](int p) {
         return Dataset::Range(60).Map(
             AddOne(), {.num_parallel_calls = p, .deterministic = false});
       }},
      {"filter",
       [](int) { return Dataset::Range(80).Filter(NotMultipleOf(3)); }},
      {"batch", [](int) { return Dataset::Range(50).Batch(7); }},
      {"batch_drop", [](int) { return Dataset::Range(50).Batch(7, true); }},
      {"batch_parallel",  // the rows gathered, stacked on p threads
       [](int p) {
         return Dataset::Zip({Dataset::Range(50), Dataset::Range(100, 150)})
             .Batch(7, false, p);
       }},
      {"shuffle",
       [](int p) {
         return Dataset::Range(90)
             .Map(AddOne(), {.num_parallel_calls = p})
             .Shuffle(16, 5);
       }},
      {"shuffle_repeat",
       [](int) { return Dataset::Range(30).Shuffle(8, 1).Repeat(3); }},
      {"repeat", [](int) { return Dataset::Range(11).Repeat(4); }},
      {"take_skip", [](int) { return Dataset::Range(100).Skip(13).Take(40); }},
      {"shard", [](int) { return Dataset::Range(100).Shard(3, 1); }},
      {"enumerate", [](int) { return Dataset::Range(30).Enumerate(100); }},
      {"zip",
       [](int) {
         return Dataset::Zip(
             {Dataset::Range(40), Dataset::Range(5, 100).Shuffle(4, 2)});
       }},
      {"concatenate",
       [](int) {
         return Dataset::Range(20).Concatenate(
             Dataset::Range(50, 70).Shuffle(5, 3));
       }},
      {"interleave",
       [](int p) {
         return Dataset::Range(1, 12).Interleave(
             [](Tuple e) -> Result<Dataset> {
               const int64_t x = e[0].flat<int64_t>()[0];
               return Dataset::Range(x * 10, x * 10 + x).Map(AddOne());
             },
             {.cycle_length = 3, .block_length = 2, .num_parallel_calls = p});
       }},
      {"interleave_nondeterministic",
       [](int p) {
         return Dataset::Range(1, 12).Interleave(
             [](Tuple e) -> Result<Dataset> {
               const int64_t x = e[0].flat<int64_t>()[0];
               return Dataset::Range(x * 10, x * 10 + x);
             },
             {.cycle_length = 4,
              .num_parallel_calls = p,
              .deterministic = false});
       }},
      {"prefetch", [](int p) { return Dataset::Range(70).Prefetch(p); }},
      {"map_prefetch",  // fused into the map when p > 1
       [](int p) {
         return Dataset::Range(70)
             .Map(AddOne(), {.num_parallel_calls = p})
             .Prefetch(3);
       }},
      {"everything",
       [](int p) {
         return Dataset::Range(400)
             .Shard(2, 0)
             .Map(AddOne(), {.num_parallel_calls = p})
             .Filter(NotMultipleOf(5))
             .Shuffle(25, 11)
             .Repeat(2)
             .Batch(6)
             .Prefetch(3)
             .Enumerate();
       }},
  };
}

TEST(DatasetCheckpointTest, RestoredIteratorsGiveTheRestOfAnUninterruptedRun) {
  std::mt19937 rng(20261206);
  for (const Pipeline& pipe : Pipelines()) {
    const std::vector<std::vector<int64_t>> want = All(pipe.make(1));
    ASSERT_FALSE(want.empty()) << pipe.name;
    for (int p = 1; p <= 8; ++p) {
      const bool ordered =
          pipe.name.find("nondeterministic") == std::string::npos;
      if (ordered) {
        EXPECT_EQ(All(pipe.make(p)), want) << pipe.name << " at " << p;
      }
      for (int round = 0; round < 3; ++round) {
        const int64_t at = std::uniform_int_distribution<int64_t>(
            0, static_cast<int64_t>(want.size()))(rng);
        SCOPED_TRACE(pipe.name + " at parallelism " + std::to_string(p) +
                     ", saved after " + std::to_string(at));
        Result<Iterator> first = pipe.make(p).MakeIterator();
        ASSERT_TRUE(first.ok()) << first.status();
        const auto before = Drain(*first, at);
        Result<std::string> state = first->Save();
        ASSERT_TRUE(state.ok()) << state.status();
        // The saved iterator goes on to the end; a new one restored from
        // the state gives the same rest.
        auto after = Drain(*first);
        Result<Iterator> second = pipe.make(p).MakeIterator();
        ASSERT_TRUE(second.ok());
        ASSERT_TRUE(second->Restore(*state).ok()) << second->Restore(*state);
        auto restored = Drain(*second);
        if (ordered) {
          EXPECT_EQ(restored, after);
          EXPECT_EQ(before, std::vector(want.begin(), want.begin() + at));
          EXPECT_EQ(restored, std::vector(want.begin() + at, want.end()));
        } else {
          // The same elements after the position, in the order they
          // finish in.
          std::sort(restored.begin(), restored.end());
          std::sort(after.begin(), after.end());
          EXPECT_EQ(restored, after);
          auto all = before;
          all.insert(all.end(), restored.begin(), restored.end());
          std::sort(all.begin(), all.end());
          auto sorted = want;
          std::sort(sorted.begin(), sorted.end());
          EXPECT_EQ(all, sorted);  // each element once
        }
      }
    }
  }
}

// A Next that times out in the middle of a batch, of a zip's element and
// of a shuffle's pull loses nothing: the iterator goes on with the
// uninterrupted run's elements, and a Save taken then restores there.
TEST(DatasetCheckpointTest, ATimeoutLosesNothingAndASaveThenRestoresThere) {
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  auto gated = [gate](Tuple e) -> Result<Tuple> {
    if (e[0].flat<int64_t>()[0] >= 5) gate.wait();
    return e;
  };
  auto make = [&](MapFn fn) {
    return Dataset::Zip({Dataset::Range(30),
                         Dataset::Range(30).Map(fn, {.num_parallel_calls = 2})})
        .Shuffle(4, 9)
        .Batch(3);
  };
  const auto want = All(make(AddOne()));
  ASSERT_EQ(want.size(), 10u);
  Result<Iterator> it = make(gated).MakeIterator();
  ASSERT_TRUE(it.ok());
  std::vector<std::vector<int64_t>> got;
  Status timed_out;
  for (int k = 0; k < 20 && timed_out.ok(); ++k) {
    Result<Tuple> e = it->Next({.timeout = std::chrono::milliseconds(20)});
    if (e.ok()) {
      got.push_back(testing::Values(*e));
    } else {
      timed_out = e.status();
    }
  }
  ASSERT_TRUE(IsDeadlineExceeded(timed_out)) << timed_out;
  Result<std::string> state = it->Save();
  ASSERT_TRUE(state.ok()) << state.status();
  open.set_value();
  std::vector<std::vector<int64_t>> rest = Drain(*it);
  got.insert(got.end(), rest.begin(), rest.end());
  // AddOne changed the second component; the gated map did not.
  std::vector<std::vector<int64_t>> plain =
      All(make([](Tuple e) -> Result<Tuple> { return e; }));
  EXPECT_EQ(got, plain);
  Result<Iterator> again = make(gated).MakeIterator();
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(again->Restore(*state).ok());
  EXPECT_EQ(Drain(*again), rest);
}

TEST(DatasetCheckpointTest, AShuffleBufferOfLargeElementsSavesInAFewBytes) {
  // shuffle(10000) over 3 KB elements, saved after 5000: the buffer holds
  // 30 MB; the state holds counters.
  Dataset d =
      Dataset::Range(20000)
          .Map([](Tuple e) -> Result<Tuple> {
            return Tuple{e[0], Tensor(DType::kFloat32, TensorShape({784}))};
          })
          .Shuffle(10000, 1)
          .Batch(1);
  Result<Iterator> it = d.MakeIterator();
  ASSERT_TRUE(it.ok());
  std::vector<std::vector<int64_t>> before = Drain(*it, 5000);
  Result<std::string> state = it->Save();
  ASSERT_TRUE(state.ok());
  EXPECT_LT(state->size(), 100u) << state->size();
  auto rest = Drain(*it, 50);
  Result<Iterator> again = d.MakeIterator();
  ASSERT_TRUE(again.ok());
  ASSERT_TRUE(again->Restore(*state).ok());
  EXPECT_EQ(Drain(*again, 50), rest);
}

TEST(DatasetCheckpointTest, AStateOfAnotherPipelineOrDamagedBytesIsRefused) {
  Result<Iterator> a = Dataset::Range(10).Batch(2).MakeIterator();
  Result<Iterator> b = Dataset::Range(10).Map(AddOne()).MakeIterator();
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->Next().ok());
  Result<std::string> state = a->Save();
  ASSERT_TRUE(state.ok());
  Status s = b->Restore(*state);
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("\"batch\" where this pipeline has \"map\""),
            std::string::npos)
      << s;
  // b is at its start after the failed restore.
  EXPECT_EQ(Drain(*b, 1), (std::vector<std::vector<int64_t>>{{1}}));
  // Every truncation and every single-byte change: an error or a position,
  // never a crash.
  for (size_t n = 0; n < state->size(); ++n) {
    Result<Iterator> c = Dataset::Range(10).Batch(2).MakeIterator();
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE(IsInvalidArgument(c->Restore(state->substr(0, n)))) << n;
    std::string flipped = *state;
    flipped[n] = static_cast<char>(flipped[n] ^ 0x5a);
    Status f = c->Restore(flipped);
    EXPECT_TRUE(f.ok() || IsInvalidArgument(f)) << f;
    if (f.ok()) Drain(*c);
  }
}

// A Saver stores an iterator's position beside the model's tensors
// (RegisterSaveable) and a Restore puts a new iterator there; a state the
// iterator refuses leaves the registered tensors as they were.
TEST(DatasetCheckpointTest, ASaverStoresAnIteratorBesideTheVariables) {
  const std::string dir = ::testing::TempDir() + "/saver_iterator";
  auto make = [] { return Dataset::Range(100).Shuffle(10, 4).Batch(3); };
  Result<Iterator> it = make().MakeIterator();
  ASSERT_TRUE(it.ok());
  Drain(*it, 7);
  Tensor weight = Tensor::Scalar<float>(1.5f);
  auto saveable = [](Iterator* i) {
    return Saveable{.save = [i]() -> Result<Tensor> {
                      INFLOW_ASSIGN_OR_RETURN(std::string s, i->Save());
                      return Tensor::Scalar(std::move(s));
                    },
                    .restore =
                        [i](const Tensor& t) {
                          return i->Restore(t.flat<std::string>()[0]);
                        }};
  };
  // A Saver of the weight `w` and the iterator as "input/iterator".
  auto register_both = [&](Saver& s, Tensor* w, Iterator* i) {
    return s.Register("w", w).ok() &&
           s.RegisterSaveable("input/iterator", saveable(i)).ok();
  };
  Saver saver;
  ASSERT_TRUE(register_both(saver, &weight, &*it));
  Result<std::string> prefix = saver.Save(dir + "/model.ckpt", 7);
  ASSERT_TRUE(prefix.ok()) << prefix.status();
  const auto rest = Drain(*it);

  Result<Iterator> again = make().MakeIterator();
  ASSERT_TRUE(again.ok());
  Tensor restored = Tensor::Scalar<float>(0);
  Saver reader;
  ASSERT_TRUE(register_both(reader, &restored, &*again));
  ASSERT_TRUE(reader.Restore(*prefix).ok());
  EXPECT_EQ(restored.flat<float>()[0], 1.5f);
  EXPECT_EQ(Drain(*again), rest);

  // An iterator of another pipeline refuses the state: the weight stays.
  Result<Iterator> other = Dataset::Range(5).MakeIterator();
  ASSERT_TRUE(other.ok());
  Tensor untouched = Tensor::Scalar<float>(9);
  Saver refusing;
  ASSERT_TRUE(register_both(refusing, &untouched, &*other));
  Status s = refusing.Restore(*prefix);
  EXPECT_TRUE(IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("restoring input/iterator"), std::string::npos)
      << s;
  EXPECT_EQ(untouched.flat<float>()[0], 9.0f);
  EXPECT_TRUE(IsInvalidArgument(refusing.RegisterSaveable(
      "x", Saveable{.save = nullptr, .restore = nullptr})));
}

}  // namespace
}  // namespace inflow::data
