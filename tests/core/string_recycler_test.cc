// Copyright 2026 The inflow Authors.

#include "core/string_recycler.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "inflow/core/tensor.h"

#include "core/sanitizer.h"

namespace inflow::internal {
namespace {

constexpr bool kRecycles = !kAddressSanitizer;  // it sees every free

std::string Record(int i, size_t size) {
  std::string s(size, static_cast<char>('a' + i % 26));
  s[0] = static_cast<char>(i);
  return s;
}

// A string tensor of n records of `size` bytes, dropped.
void DropRecords(int n, size_t size) {
  Tensor t(DType::kString, TensorShape({n}));
  auto flat = t.mutable_flat<std::string>().value();
  for (int i = 0; i < n; ++i) flat[i] = Record(i, size);
}

// Runs fn on a new thread, whose cache starts empty.
template <typename Fn>
void OnNewThread(Fn fn) {
  std::thread t(fn);
  t.join();
}

TEST(StringRecyclerTest, DroppedStorageIsReusedWithTheNewBytes) {
  OnNewThread([] {
    DropRecords(10, 800);
    EXPECT_EQ(RecycledStringsCached(), kRecycles ? 10u : 0u);
    for (int i = 0; i < 10; ++i) {
      const std::string want = Record(100 + i, 790);
      EXPECT_EQ(RecycledString(want), want);
    }
    EXPECT_EQ(RecycledStringsCached(), 0u);
  });
}

TEST(StringRecyclerTest, ShortAndSsoStringsAreNotKept) {
  OnNewThread([] {
    const size_t before = 0;
    DropRecords(20, 8);  // inline: no heap storage
    EXPECT_EQ(RecycledStringsCached(), before);
    DropRecords(3, 1000);
    const size_t with = RecycledStringsCached();
    // A 20-byte record is not put in 1000 bytes of storage.
    EXPECT_EQ(RecycledString(std::string(20, 'x')), std::string(20, 'x'));
    EXPECT_EQ(RecycledStringsCached(), with);
    // Oversized strings are freed, not kept.
    DropRecords(1, kRecycledStringMax + 1);
    EXPECT_EQ(RecycledStringsCached(), with);
    EXPECT_EQ(with, kRecycles ? 3u : 0u);
    while (RecycledStringsCached() > before) {
      EXPECT_EQ(RecycledString(std::string(900, 'y')), std::string(900, 'y'));
    }
  });
}

TEST(StringRecyclerTest, StorageDroppedOnOneThreadServesAnother) {
  // A reader thread makes records, the consumer (this thread) drops them:
  // past a batch the consumer's cache spills to the shared depot, from
  // which the reader's empty cache refills.
  std::vector<std::string> made;
  std::thread reader([&] {
    for (int i = 0; i < 2000; ++i)
      made.push_back(RecycledString(Record(i, 500)));
  });
  reader.join();
  {
    Tensor t(DType::kString, TensorShape({2000}));
    auto flat = t.mutable_flat<std::string>().value();
    for (int i = 0; i < 2000; ++i) flat[i] = std::move(made[i]);
  }
  size_t refilled = 0;
  std::thread second([&] {
    EXPECT_EQ(RecycledStringsCached(), 0u);
    const std::string got = RecycledString(Record(7, 480));
    EXPECT_EQ(got, Record(7, 480));
    refilled = RecycledStringsCached();
  });
  second.join();
  if (kRecycles) {
    EXPECT_GT(refilled, 0u);  // the rest of the batch it took
  } else {
    EXPECT_EQ(refilled, 0u);
  }
}

}  // namespace
}  // namespace inflow::internal
