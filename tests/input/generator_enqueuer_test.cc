// Copyright 2026 The inflow Authors.
//
// GeneratorEnqueuer: serialised calls that never overlap, items in the
// generator's order, nullopt skipped, the end drained then OUT_OF_RANGE,
// errors in order with the call's number, Stop while a call blocks.

#include "inflow/input/generator_enqueuer.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "input/enqueuer_test_util.h"

namespace inflow {
namespace {

using testing::Counter;
using testing::Event;
using testing::Int64At;
using testing::Int64s;
using testing::kBound;
using testing::Within;
using testing::YieldDelay;
using Clock = std::chrono::steady_clock;
using Item = Result<std::optional<Tuple>>;

// Items 0 .. n-1, then OUT_OF_RANGE. Not thread-safe on purpose: it counts
// the calls that found another call still inside.
class CountingGenerator {
 public:
  explicit CountingGenerator(int64_t n) : n_(n) {}

  Item Next() {
    if (inside_.exchange(true)) overlaps_.fetch_add(1);
    YieldDelay(5, static_cast<uint64_t>(next_), 0, 100);
    Item item = next_ < n_ ? Item(std::optional<Tuple>(Int64s({next_})))
                           : Item(OutOfRangeError("no more"));
    ++next_;
    inside_.store(false);
    calls.Add();
    return item;
  }

  int64_t overlaps() const { return overlaps_.load(); }
  Counter calls;

 private:
  const int64_t n_;
  int64_t next_ = 0;  // unguarded: the enqueuer serialises the calls
  std::atomic<bool> inside_{false};
  std::atomic<int64_t> overlaps_{0};
};

// Takes items until an error; returns their first components and the
// error.
std::vector<int64_t> TakeAll(GeneratorEnqueuer& enqueuer, Status* end) {
  std::vector<int64_t> items;
  for (;;) {
    Result<Tuple> item = enqueuer.Get(Within());
    if (!item.ok()) {
      *end = item.status();
      return items;
    }
    items.push_back(Int64At(*item, 0));
  }
}

std::vector<int64_t> Range(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

TEST(GeneratorEnqueuerTest, SerialisedCallsNeverOverlapAndKeepTheOrder) {
  constexpr int64_t kItems = 150;
  for (int workers = 1; workers <= 8; ++workers) {
    SCOPED_TRACE(workers);
    CountingGenerator generator(kItems);
    GeneratorEnqueuer enqueuer(
        [&generator](const CallOptions&) { return generator.Next(); });
    ASSERT_TRUE(enqueuer.Start(workers, 5).ok());
    Status end;
    EXPECT_EQ(TakeAll(enqueuer, &end), Range(kItems));
    EXPECT_EQ(end.code(), StatusCode::kOutOfRange) << end;
    EXPECT_EQ(enqueuer.Get(Within()).status().code(), StatusCode::kOutOfRange);
    EXPECT_FALSE(enqueuer.IsRunning());
    EXPECT_TRUE(enqueuer.Stop(kBound).ok());
    EXPECT_EQ(generator.overlaps(), 0);
    // No call after the end.
    EXPECT_EQ(generator.calls.value(), kItems + 1);
  }
}

TEST(GeneratorEnqueuerTest, NulloptItemsAreSkipped) {
  int64_t next = 0;
  GeneratorEnqueuer enqueuer([&next](const CallOptions&) -> Item {
    const int64_t i = next++;
    if (i == 30) return OutOfRangeError("done");
    if (i % 3 == 0) return std::optional<Tuple>();
    return std::optional<Tuple>(Int64s({i}));
  });
  ASSERT_TRUE(enqueuer.Start(3, 4).ok());
  Status end;
  std::vector<int64_t> expected;
  for (int64_t i = 0; i < 30; ++i) {
    if (i % 3 != 0) expected.push_back(i);
  }
  EXPECT_EQ(TakeAll(enqueuer, &end), expected);
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange) << end;
}

TEST(GeneratorEnqueuerTest, EndDrainsTheItemsAlreadyMade) {
  CountingGenerator generator(5);
  GeneratorEnqueuer enqueuer(
      [&generator](const CallOptions&) { return generator.Next(); });
  ASSERT_TRUE(enqueuer.Start(2, 8).ok());
  // Every call, the end included, is made before the consumer takes any.
  ASSERT_TRUE(generator.calls.WaitAtLeast(6));
  Status end;
  EXPECT_EQ(TakeAll(enqueuer, &end), Range(5));
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange) << end;
}

TEST(GeneratorEnqueuerTest, CallsStayWithinMaxQueueSize) {
  CountingGenerator generator(1000);
  GeneratorEnqueuer enqueuer(
      [&generator](const CallOptions&) { return generator.Next(); });
  ASSERT_TRUE(enqueuer.Start(4, 3).ok());
  ASSERT_TRUE(generator.calls.WaitAtLeast(3));
  Result<Tuple> first = enqueuer.Get(Within());
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(Int64At(*first, 0), 0);
  ASSERT_TRUE(generator.calls.WaitAtLeast(4));
  EXPECT_TRUE(enqueuer.Stop(kBound).ok());
  // Calls made <= items taken + max_queue_size.
  EXPECT_EQ(generator.calls.value(), 4);
}

TEST(GeneratorEnqueuerTest, ErrorComesAfterTheItemsBeforeItWithTheCall) {
  for (bool throws : {false, true}) {
    SCOPED_TRACE(throws ? "exception" : "status");
    Counter calls;
    int64_t next = 0;
    GeneratorEnqueuer enqueuer([&](const CallOptions&) -> Item {
      calls.Add();
      const int64_t i = next++;
      if (i == 4) {
        if (throws) throw std::runtime_error("broken generator");
        return DataLossError("broken generator");
      }
      return std::optional<Tuple>(Int64s({i}));
    });
    ASSERT_TRUE(enqueuer.Start(3, 10).ok());
    Status end;
    EXPECT_EQ(TakeAll(enqueuer, &end), Range(4));
    EXPECT_EQ(end.code(), throws ? StatusCode::kUnknown : StatusCode::kDataLoss)
        << end;
    EXPECT_NE(end.message().find("generator call 4: "), std::string::npos)
        << end;
    EXPECT_NE(end.message().find("broken generator"), std::string::npos);
    EXPECT_FALSE(enqueuer.IsRunning());
    EXPECT_EQ(enqueuer.Get(Within()).status(), end);
    EXPECT_TRUE(enqueuer.Stop(kBound).ok());
    EXPECT_EQ(calls.value(), 5);  // none after the error
  }
}

TEST(GeneratorEnqueuerTest, UnserialisedCallsYieldEachItemOnce) {
  constexpr int64_t kItems = 300;
  std::atomic<int64_t> next{0};
  std::atomic<int> inside{0};
  std::atomic<int> max_inside{0};
  GeneratorEnqueuer enqueuer(
      [&](const CallOptions&) -> Item {
        const int now = inside.fetch_add(1) + 1;
        int seen = max_inside.load();
        while (now > seen && !max_inside.compare_exchange_weak(seen, now)) {
        }
        const int64_t i = next.fetch_add(1);
        YieldDelay(9, static_cast<uint64_t>(i), 0, 100);
        inside.fetch_sub(1);
        if (i >= kItems) return OutOfRangeError("done");
        return std::optional<Tuple>(Int64s({i}));
      },
      {.serialize_calls = false});
  ASSERT_TRUE(enqueuer.Start(4, 6).ok());
  Status end;
  std::vector<int64_t> items = TakeAll(enqueuer, &end);
  EXPECT_EQ(end.code(), StatusCode::kOutOfRange) << end;
  std::sort(items.begin(), items.end());
  EXPECT_EQ(items, Range(kItems));
  EXPECT_LE(max_inside.load(), 4);
}

TEST(GeneratorEnqueuerTest, StopReleasesABlockedCall) {
  Counter entered;
  GeneratorEnqueuer enqueuer([&](const CallOptions& options) -> Item {
    entered.Add();
    Event never;
    never.Wait(options.stop);
    return CancelledError("stopped while blocked");
  });
  ASSERT_TRUE(enqueuer.Start(3, 5).ok());
  ASSERT_TRUE(entered.WaitAtLeast(1));
  const auto start = Clock::now();
  EXPECT_TRUE(enqueuer.Stop(kBound).ok());
  EXPECT_LT(Clock::now() - start, kBound);
  EXPECT_EQ(enqueuer.Get(Within()).status().code(), StatusCode::kCancelled);
  // Serialised: the other workers never entered.
  EXPECT_EQ(entered.value(), 1);
}

TEST(GeneratorEnqueuerTest, StartChecksItsArgumentsAndRunsOnce) {
  GeneratorEnqueuer empty(nullptr);
  EXPECT_EQ(empty.Start().code(), StatusCode::kInvalidArgument);
  GeneratorEnqueuer enqueuer(
      [](const CallOptions&) -> Item { return OutOfRangeError("empty"); });
  EXPECT_EQ(enqueuer.Get(Within()).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(enqueuer.Start(0, 1).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(enqueuer.Start(1, 0).code(), StatusCode::kInvalidArgument);
  ASSERT_TRUE(enqueuer.Start(2, 1).ok());
  EXPECT_EQ(enqueuer.Start(2, 1).code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(enqueuer.Get(Within()).status().code(), StatusCode::kOutOfRange);
}

}  // namespace
}  // namespace inflow
