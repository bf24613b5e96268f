// Copyright 2026 The inflow Authors.
//
// BufferedStream: bytes come out exactly as the source holds them whatever
// mix of Peek, Skip, Read and Seek, in the plain buffer, after the switch
// to a mirrored ring (long runs of records that straddle the buffer's end),
// and when a Peek outgrows the ring.

#include "io/input_stream.h"

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "io/mirrored_buffer.h"

namespace inflow::internal {
namespace {

// A source over a string that hands out at most `max_read` bytes a call.
class StringSource final : public ByteSource {
 public:
  StringSource(const std::string& data, size_t max_read)
      : data_(data), max_read_(max_read) {}
  Result<size_t> Read(char* dst, size_t n) override {
    const size_t left = pos_ < data_.size() ? data_.size() - pos_ : 0;
    const size_t got = std::min({n, left, max_read_});
    std::memcpy(dst, data_.data() + pos_, got);
    pos_ += got;
    return got;
  }
  Status SeekTo(uint64_t pos) override {
    pos_ = pos;
    return OkStatus();
  }

 private:
  const std::string& data_;
  const size_t max_read_;
  uint64_t pos_ = 0;
};

std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

TEST(MirroredBufferTest, EachByteAppearsTwice) {
  std::unique_ptr<MirroredBuffer> ring = MirroredBuffer::Create(10000);
  // Linux (memfd_create and mmap) always has them.
  ASSERT_NE(ring, nullptr);
  ASSERT_GE(ring->size(), 10000u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(ring->data()) % 4096, 0u);
  for (size_t i = 0; i < ring->size(); i += 997) {
    ring->data()[i] = static_cast<char>(i * 7);
  }
  for (size_t i = 0; i < ring->size(); i += 997) {
    EXPECT_EQ(ring->data()[i + ring->size()], static_cast<char>(i * 7));
  }
  ring->data()[2 * ring->size() - 1] = 'z';
  EXPECT_EQ(ring->data()[ring->size() - 1], 'z');
}

// Walks a stream like a record reader of records of random lengths up to
// `max_record` (some larger than the buffer), checking every byte, with
// occasional seeks back into bytes already consumed.
class Walker {
 public:
  Walker(size_t buffer_size, size_t max_record, size_t max_read, uint64_t seed,
         size_t bytes)
      : data_(RandomBytes(bytes, seed)),
        stream_(std::make_unique<StringSource>(data_, max_read), buffer_size),
        buffer_size_(buffer_size),
        max_record_(max_record),
        rng_(seed + 1) {}

  bool done() const { return stream_.Tell() >= data_.size(); }

  // One record (with the occasional seek).
  void Step() {
    const std::string& data = data_;
    std::mt19937_64& rng = rng_;
    BufferedStream& stream = stream_;
    const uint64_t at = stream.Tell();
    const size_t len = 1 + rng() % max_record_;
    const size_t want = std::min<size_t>(len, data.size() - at);
    if (len <= buffer_size_ && rng() % 4 != 0) {
      Result<std::string_view> got = stream.Peek(len);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(got->size(), want) << "at " << at;
      ASSERT_TRUE(*got == std::string_view(data).substr(at, want))
          << "at " << at << " len " << len;
      stream.Skip(got->size());
    } else {
      scratch_.resize(len);
      Result<size_t> got = stream.Read(scratch_.data(), len);
      ASSERT_TRUE(got.ok()) << got.status();
      ASSERT_EQ(*got, want);
      ASSERT_TRUE(std::string_view(scratch_).substr(0, want) ==
                  std::string_view(data).substr(at, want))
          << "at " << at << " len " << len;
    }
    if (rng() % 16 == 0) {
      // Back to the start of this record and forward again.
      ASSERT_TRUE(stream.Seek(at).ok());
      ASSERT_EQ(stream.Tell(), at);
      ASSERT_TRUE(stream.Seek(at + want).ok());
    }
    if (rng() % 64 == 0 && at > 100000) {
      // Far behind: the source seeks.
      const uint64_t back = at - 1 - rng() % 100000;
      ASSERT_TRUE(stream.Seek(back).ok());
      Result<std::string_view> got = stream.Peek(1);
      ASSERT_TRUE(got.ok());
      ASSERT_EQ((*got)[0], data[back]);
      ASSERT_TRUE(stream.Seek(at + want).ok());
    }
  }

  void CheckEnd() {
    Result<std::string_view> end = stream_.Peek(10);
    ASSERT_TRUE(end.ok());
    EXPECT_TRUE(end->empty());
  }

 private:
  const std::string data_;
  BufferedStream stream_;
  const size_t buffer_size_;
  const size_t max_record_;
  std::mt19937_64 rng_;
  std::string scratch_;
};

void WalkAndCheck(size_t buffer_size, size_t max_record, size_t max_read,
                  uint64_t seed, size_t bytes = 12 << 20) {
  Walker walker(buffer_size, max_record, max_read, seed, bytes);
  while (!walker.done() && !testing::Test::HasFatalFailure()) walker.Step();
  walker.CheckEnd();
}

TEST(BufferedStreamTest, LargeRecordsStraddlingTheBufferComeOutExactly) {
  // 100 KB-ish records in a 256 KiB buffer: the switch to the ring happens
  // after 1 MiB of moved bytes (at once if an ended stream left a ring),
  // early in the 12 MiB stream.
  WalkAndCheck(256 << 10, 200 << 10, 1 << 30, 1);
}

TEST(BufferedStreamTest, ShortSourceReadsAndOddBufferSize) {
  WalkAndCheck(100000, 90000, 7777, 2);
}

TEST(BufferedStreamTest, SmallRecordsAndPeeksLargerThanTheBuffer) {
  // Records up to twice the buffer: Peek() grows the buffer (leaving the
  // ring if the stream had switched to it) and Read() goes direct.
  WalkAndCheck(64 << 10, 128 << 10, 1 << 30, 3);
}

TEST(BufferedStreamTest, BuffersLeftByEndedStreamsShowNoStaleBytes) {
  // Ended streams leave their plain buffers and rings, full of their
  // bytes, for the next ones: four streams alive at once, read in turns,
  // must each see only their own bytes.
  for (uint64_t i = 0; i < 4; ++i)
    WalkAndCheck(64 << 10, 60 << 10, 1 << 30, 10 + i, 1 << 20);
  std::vector<std::unique_ptr<Walker>> walkers;
  for (uint64_t i = 0; i < 4; ++i) {
    walkers.push_back(
        std::make_unique<Walker>(64 << 10, 60 << 10, 1 << 30, 20 + i, 2 << 20));
  }
  for (bool any = true; any && !HasFatalFailure();) {
    any = false;
    for (std::unique_ptr<Walker>& walker : walkers) {
      if (walker->done()) continue;
      walker->Step();
      any = true;
    }
  }
  for (std::unique_ptr<Walker>& walker : walkers) walker->CheckEnd();
}

TEST(BufferedStreamTest, KeptBuffersAreSharedSafelyAcrossThreads) {
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 3; ++t) {
    threads.emplace_back([t] {
      for (uint64_t i = 0; i < 3; ++i) {
        WalkAndCheck(64 << 10, 60 << 10, 1 << 30, 30 + 3 * t + i, 1 << 20);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
}

TEST(BufferedStreamTest, SeekBackWithinTheRingSeesTheOldBytes) {
  const std::string data = RandomBytes(8 << 20, 4);
  BufferedStream stream(std::make_unique<StringSource>(data, 1 << 30),
                        64 << 10);
  // 48 KiB records in a 64 KiB buffer: each refill moves up to 48 KiB, so
  // the ring is in use well before the end.
  const size_t record = 48 << 10;
  for (uint64_t at = 0; at + record <= data.size(); at += record) {
    Result<std::string_view> got = stream.Peek(record);
    ASSERT_TRUE(got.ok());
    ASSERT_TRUE(*got == std::string_view(data).substr(at, record));
    stream.Skip(record);
    if (at >= record) {
      // The previous record is still in the buffer.
      ASSERT_TRUE(stream.Seek(at - record).ok());
      got = stream.Peek(2 * record);
      ASSERT_TRUE(got.ok());
      ASSERT_TRUE(*got ==
                  std::string_view(data).substr(at - record, 2 * record));
      ASSERT_TRUE(stream.Seek(at + record).ok());
    }
  }
}

}  // namespace
}  // namespace inflow::internal
