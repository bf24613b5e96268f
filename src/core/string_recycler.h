// Copyright 2026 The inflow Authors.
//
// Recycled string storage. A pipeline makes a string tensor per record and
// drops it a few stages later, often on another thread: a malloc and a
// free of the record's bytes each time, and with glibc's per-thread arenas
// a free on another thread takes the allocating arena's lock (two data
// workers measured 1.4-2x the CPU per record of one; docs/PERFORMANCE.md,
// "Datasets"). String tensors give their elements' heap storage to a cache
// of the thread that drops them, and record sources take their strings
// from the cache of the thread that reads.

#ifndef INFLOW_SRC_CORE_STRING_RECYCLER_H_
#define INFLOW_SRC_CORE_STRING_RECYCLER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace inflow::internal {

// A string holding `bytes`, in storage a dropped string left in this
// thread's cache when one fits.
std::string RecycledString(std::string_view bytes);

// *out = bytes: in out's own storage when it holds them, else in
// RecycledString's (a record source's next record, a parsed bytes value).
inline void AssignRecycled(std::string* out, std::string_view bytes) {
  if (out->capacity() < bytes.size()) {
    *out = RecycledString(bytes);
  } else {
    out->assign(bytes.data(), bytes.size());
  }
}

// Destroys s[0, n), keeping the storage of heap-allocated ones in this
// thread's cache while it has room (at most kRecycledStringBytes).
void RecycleStrings(std::string* s, int64_t n);

// The most bytes of string storage a thread's cache keeps.
inline constexpr size_t kRecycledStringBytes = size_t{4} << 20;
// The largest string whose storage is kept.
inline constexpr size_t kRecycledStringMax = size_t{64} << 10;

// Strings in this thread's cache (for tests).
size_t RecycledStringsCached();

}  // namespace inflow::internal

#endif  // INFLOW_SRC_CORE_STRING_RECYCLER_H_
