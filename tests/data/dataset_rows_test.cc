// Copyright 2026 The inflow Authors.
//
// The rows' path: over an Unbatch, Shuffle and Batch copy rows
// (IteratorBase::NextRow) instead of moving a Tuple per element. An
// identity map after the Unbatch hides the rows (the Tuples' path): both
// must give the same elements, errors and states, and a shuffle buffer of
// rows keeps no input batch alive.

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/data/dataset.h"
#include "inflow/io/record_writer.h"

namespace inflow::data {
namespace {

// Batches of 6 of 0..59 made into elements of three components: int64
// ids [n], float features [n, w] (id * 10 + j) and string names [n];
// `ragged`: w is 1 + (first id / 6) % 3, so rows of different input
// elements differ in shape.
Dataset Source(bool ragged) {
  return Dataset::Range(60).Batch(6).Map([ragged](Tuple e) -> Result<Tuple> {
    const std::span<const int64_t> ids = e[0].flat<int64_t>();
    const int64_t n = static_cast<int64_t>(ids.size());
    const int64_t w = ragged ? 1 + (ids[0] / 6) % 3 : 3;
    Tensor features(DType::kFloat32, TensorShape({n, w}));
    Tensor names(DType::kString, TensorShape({n}));
    std::span<float> f = *features.mutable_flat<float>();
    std::span<std::string> s = *names.mutable_flat<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < w; ++j) {
        f[i * w + j] = static_cast<float>(ids[i] * 10 + j);
      }
      // Inline and heap-allocated strings both.
      s[i] = "row " + std::to_string(ids[i]) + std::string(ids[i] % 4 * 9, '.');
    }
    return Tuple{e[0], features, names};
  });
}

// Each element (or error) of `it`, up to `limit`, as text.
std::vector<std::string> Elements(Iterator& it, int64_t limit = 1000) {
  std::vector<std::string> out;
  for (int64_t k = 0; k < limit; ++k) {
    Result<Tuple> e = it.Next();
    if (IsOutOfRange(e.status())) break;
    if (!e.ok()) {
      // The paths' stages differ by the identity map in number only.
      out.push_back("error: " + std::regex_replace(e.status().ToString(),
                                                   std::regex("stage \\d+"),
                                                   "stage"));
      continue;
    }
    std::string text;
    for (const Tensor& t : *e) text += t.DebugString(1000) + "; ";
    out.push_back(text);
  }
  return out;
}

std::vector<std::string> All(const Dataset& d) {
  Result<Iterator> it = d.MakeIterator();
  EXPECT_TRUE(it.ok()) << it.status();
  return it.ok() ? Elements(*it) : std::vector<std::string>();
}

TEST(DatasetRowsTest, AnUnbatchsRowsGiveTheTuplesPathsElementsAndStates) {
  const MapFn identity = [](Tuple e) -> Result<Tuple> { return e; };
  const std::vector<std::function<Dataset(Dataset)>> tails = {
      [](Dataset d) { return d.Shuffle(7, 3).Batch(5); },
      [](Dataset d) { return d.Shuffle(64, 5).Batch(4, true); },
      [](Dataset d) { return d.Batch(8); },
      [](Dataset d) { return d.Shuffle(9, 1); },
      [](Dataset d) { return d.Shuffle(5, 2).Shuffle(11, 3).Batch(3); },
      [](Dataset d) { return d.Shuffle(1000, 4).Batch(7).Repeat(2); },
      // Repeat passes the rows on.
      [](Dataset d) { return d.Repeat(3).Shuffle(20, 6).Batch(9); },
  };
  for (const bool ragged : {false, true}) {
    for (size_t t = 0; t < tails.size(); ++t) {
      SCOPED_TRACE("tail " + std::to_string(t) +
                   (ragged ? ", ragged" : ", uniform"));
      const Dataset rows = tails[t](Source(ragged).Unbatch());
      const Dataset tuples = tails[t](Source(ragged).Unbatch().Map(identity));
      const std::vector<std::string> want = All(tuples);
      ASSERT_GT(want.size(), 4u);
      EXPECT_EQ(All(rows), want);
      for (size_t at : {size_t{0}, size_t{1}, want.size() / 2, want.size()}) {
        Result<Iterator> first = rows.MakeIterator();
        ASSERT_TRUE(first.ok());
        EXPECT_EQ(Elements(*first, static_cast<int64_t>(at)),
                  std::vector(want.begin(), want.begin() + at));
        Result<std::string> state = first->Save();
        ASSERT_TRUE(state.ok()) << state.status();
        Result<Iterator> second = rows.MakeIterator();
        ASSERT_TRUE(second.ok());
        ASSERT_TRUE(second->Restore(*state).ok());
        EXPECT_EQ(Elements(*second), std::vector(want.begin() + at, want.end()))
            << "restored after " << at;
      }
    }
  }
  // Rows of different shapes in one batch: the Tuples' path's error,
  // naming the batch and the component.
  const std::vector<std::string> ragged = All(Source(true).Unbatch().Batch(8));
  ASSERT_GT(ragged.size(), 1u);
  EXPECT_EQ(ragged[0].rfind("error: INVALID_ARGUMENT: batch (stage), element "
                            "0: component 1: Stack: element 6 is float32[2], "
                            "expected float32[1]",
                            0),
            0u)
      << ragged[0];
}

TEST(DatasetRowsTest, ABatchLargerThanItsInputIsMadeOfItsRowsOnly) {
  // A batch's tensors grow as they fill (batch_size 10^9 over 5 records or
  // 60 rows is one batch of those, not 10^9 rows' worth of memory), on the
  // records' path, the rows' path and the Tuples'.
  const std::string file = ::testing::TempDir() + "/batch_beyond.tfrecord";
  {
    auto w = RecordWriter::Create(Env::Default(), file);
    ASSERT_TRUE(w.ok()) << w.status();
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE((*w)->WriteRecord("record " + std::to_string(i)).ok());
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  const std::vector<std::string> records =
      All(Dataset::TFRecord({file}).Batch(1'000'000'000));
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0],
            Tensor::FromVector<std::string>(
                {"record 0", "record 1", "record 2", "record 3", "record 4"})
                    .DebugString(1000) +
                "; ");
  const MapFn identity = [](Tuple e) -> Result<Tuple> { return e; };
  // 2500 records in batches of 2000: the records' batch grows twice.
  const std::string many = ::testing::TempDir() + "/batch_grows.tfrecord";
  {
    auto w = RecordWriter::Create(Env::Default(), many);
    ASSERT_TRUE(w.ok()) << w.status();
    for (int i = 0; i < 2500; ++i) {
      ASSERT_TRUE((*w)->WriteRecord(std::to_string(i)).ok());
    }
    ASSERT_TRUE((*w)->Close().ok());
  }
  const std::vector<std::string> records_grown =
      All(Dataset::TFRecord({many}).Batch(2000));
  ASSERT_EQ(records_grown.size(), 2u);
  EXPECT_EQ(records_grown,
            All(Dataset::TFRecord({many}).Map(identity).Batch(2000)));
  EXPECT_EQ(All(Source(false).Unbatch().Batch(1'000'000'000)),
            All(Source(false).Unbatch().Map(identity).Batch(1'000'000'000)));
  // Past the first 1024 rows, twice.
  const std::vector<std::string> grown =
      All(Dataset::Range(3000).Batch(7).Unbatch().Batch(2500));
  const std::vector<std::string> want =
      All(Dataset::Range(3000).Batch(7).Unbatch().Map(identity).Batch(2500));
  ASSERT_EQ(want.size(), 2u);
  EXPECT_EQ(grown, want);
}

TEST(DatasetRowsTest, StringsAreMovedOnlyOutOfRowsNothingElseShares) {
  // A row whose strings no other tensor shares has them moved, not copied,
  // into the shuffle's slot and from there into the batch (Source's names
  // are made per element). Strings shared elsewhere (a tensor the map
  // returns each time, FromTensorSlices' component) are copied: they are
  // the same after every pass.
  Tensor names(DType::kString, TensorShape({6}));
  {
    std::span<std::string> s = *names.mutable_flat<std::string>();
    for (size_t i = 0; i < s.size(); ++i) {
      s[i] = "shared name " + std::to_string(i) + std::string(40, '.');
    }
  }
  const Tensor before = names.Clone();
  const MapFn identity = [](Tuple e) -> Result<Tuple> { return e; };
  const Dataset kept = Dataset::Range(10).Map(
      [names](Tuple) -> Result<Tuple> { return Tuple{names}; });
  const Dataset sliced = Dataset::FromTensorSlices({names}).Batch(4);
  for (const Dataset& source : {kept, sliced}) {
    const Dataset rows = source.Unbatch().Shuffle(8, 2).Batch(5);
    const std::vector<std::string> want =
        All(source.Unbatch().Map(identity).Shuffle(8, 2).Batch(5));
    ASSERT_GT(want.size(), 1u);
    EXPECT_EQ(All(rows), want);
    EXPECT_EQ(All(rows), want);  // a second pass: the sources intact
    EXPECT_EQ(All(source.Unbatch().Shuffle(3, 1)),
              All(source.Unbatch().Map(identity).Shuffle(3, 1)));
  }
  EXPECT_EQ(names, before);
  // Moved rows: each string arrives once, whole, in every pass.
  const std::vector<std::string> moved =
      All(Source(false).Unbatch().Shuffle(13, 7).Batch(60));
  ASSERT_EQ(moved.size(), 1u);
  for (int id = 0; id < 60; ++id) {
    const std::string name =
        "\"row " + std::to_string(id) + std::string(id % 4 * 9, '.') + "\"";
    EXPECT_NE(moved[0].find(name), std::string::npos) << name;
  }
}

TEST(DatasetRowsTest, AShuffleBufferOfRowsKeepsNoInputBatchAlive) {
  // Each input batch's tensors count themselves while alive.
  auto live = std::make_shared<std::atomic<int>>(0);
  const Dataset d =
      Dataset::Range(4000)
          .Batch(100)
          .Map([live](Tuple e) -> Result<Tuple> {
            auto* copy = new std::vector<int64_t>(e[0].flat<int64_t>().begin(),
                                                  e[0].flat<int64_t>().end());
            live->fetch_add(1);
            auto buffer = TensorBuffer::Wrap(
                copy->data(), copy->size() * sizeof(int64_t), [copy, live] {
                  live->fetch_sub(1);
                  delete copy;
                });
            return Tuple{*Tensor::FromBuffer(
                DType::kInt64,
                TensorShape({static_cast<int64_t>(e[0].num_elements())}),
                buffer)};
          })
          .Unbatch();
  for (const bool rows : {true, false}) {
    Dataset shuffled =
        (rows ? d : d.Map([](Tuple e) -> Result<Tuple> { return e; }))
            .Shuffle(1000, 1)
            .Batch(10);
    Result<Iterator> it = shuffled.MakeIterator();
    ASSERT_TRUE(it.ok());
    int most = 0;
    for (int k = 0; k < 200; ++k) {
      ASSERT_TRUE(it->Next().ok());
      most = std::max(most, live->load());
    }
    if (rows) {
      // The Unbatch's element being split, and none held by the buffer.
      EXPECT_LE(most, 1);
    } else {
      // A row of a tensor shares its storage: the 1000 rows buffered hold
      // their batches (this is what the rows' path avoids).
      EXPECT_GE(most, 10);
    }
  }
}

TEST(DatasetRowsTest, ABatchOfRowsCutShortByATimeoutIsCompletedLater) {
  // The input's third element waits for `gate` (a parallel map, which
  // honours the call's timeout): the batch being filled waits with it.
  std::promise<void> open;
  std::shared_future<void> gate = open.get_future().share();
  auto source = [&gate](bool wait) {
    return Source(false)
        .Map(
            [gate, wait](Tuple e) -> Result<Tuple> {
              if (wait && e[0].flat<int64_t>()[0] == 12) gate.wait();
              return e;
            },
            {.num_parallel_calls = 2})
        .Unbatch()
        .Shuffle(4, 9)
        .Batch(5);
  };
  const std::vector<std::string> want = All(source(false));
  Result<Iterator> it = source(true).MakeIterator();
  ASSERT_TRUE(it.ok());
  std::vector<std::string> got = Elements(*it, 1);
  Result<Tuple> stalled = it->Next({.timeout = std::chrono::milliseconds(20)});
  EXPECT_TRUE(IsDeadlineExceeded(stalled.status())) << stalled.status();
  // Saved mid-batch, restored after the gate opens: the same elements.
  Result<std::string> state = it->Save();
  ASSERT_TRUE(state.ok()) << state.status();
  open.set_value();
  for (const std::string& e : Elements(*it)) got.push_back(e);
  EXPECT_EQ(got, want);
  Result<Iterator> restored = source(true).MakeIterator();
  ASSERT_TRUE(restored.ok());
  ASSERT_TRUE(restored->Restore(*state).ok());
  EXPECT_EQ(Elements(*restored), std::vector(want.begin() + 1, want.end()));
}

}  // namespace
}  // namespace inflow::data
