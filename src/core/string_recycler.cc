// Copyright 2026 The inflow Authors.
//
// Each thread keeps dropped strings in its own cache; past kSpill of them
// it hands kBatch to a process-wide depot, and an empty cache takes a
// batch from there. A pipeline whose records are made on one thread and
// dropped on another thus reuses the same storage, one lock per kBatch
// strings, and no string crosses back to malloc's arena of another thread.

#include "core/string_recycler.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "inflow/core/mutex.h"

#include "core/fork_safety.h"
#include "core/sanitizer.h"
#include "core/thread_cache.h"

namespace inflow::internal {
namespace {

// Off under AddressSanitizer, which should see every free.
constexpr bool kRecycle = !kAddressSanitizer;

// Strings whose capacity is SSO's hold no heap storage worth keeping.
const size_t kInlineCapacity = std::string().capacity();
constexpr size_t kBatch = 256;
constexpr size_t kSpill = 2 * kBatch;

struct Strings {
  std::vector<std::string> items;  // a stack: the last dropped on top
  size_t bytes = 0;                // their capacities
};

class Depot {
 public:
  static Depot& Global() {
    // Never destroyed: threads outlive it.
    static Depot* const depot = HeldAcrossFork(new Depot(), &Depot::mu_);
    return *depot;
  }
  // Keeps `batch` if there is room; false leaves it to the caller.
  bool Put(Strings& batch) INFLOW_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    if (bytes_ + batch.bytes > kRecycledStringBytes * 4) return false;
    bytes_ += batch.bytes;
    batches_.push_back(std::move(batch));
    return true;
  }
  // Moves a batch's strings into `out` (keeping out's own vector, sized
  // for kSpill).
  bool Take(Strings* out) INFLOW_EXCLUDES(mu_) {
    Strings batch;
    {
      MutexLock l(&mu_);
      if (batches_.empty()) return false;
      batch = std::move(batches_.back());
      batches_.pop_back();
      bytes_ -= batch.bytes;
    }
    std::move(batch.items.begin(), batch.items.end(),
              std::back_inserter(out->items));
    out->bytes += batch.bytes;
    return true;
  }

 private:
  Mutex mu_;
  std::vector<Strings> batches_ INFLOW_GUARDED_BY(mu_);
  size_t bytes_ INFLOW_GUARDED_BY(mu_) = 0;
};

// A thread's cache: room for kSpill strings, the most it holds. When the
// thread ends its strings go to the depot (or are freed when it is full).
struct ThreadCacheStrings : Strings {
  ThreadCacheStrings() { items.reserve(kSpill); }
};

void ReleaseStrings(ThreadCacheStrings* c) {
  if (!Depot::Global().Put(*c)) c->items.clear();
  delete c;
}

Strings* ThreadStrings() {
  if (!kRecycle) return nullptr;
  return internal::ThreadCache<ThreadCacheStrings, ReleaseStrings>::Get();
}

// Moves the oldest kBatch strings of `c` to the depot (or frees them).
void Spill(Strings* c) {
  Strings batch;
  batch.items.reserve(kBatch);
  for (size_t i = 0; i < kBatch; ++i) {
    batch.bytes += c->items[i].capacity();
    batch.items.push_back(std::move(c->items[i]));
  }
  c->items.erase(c->items.begin(), c->items.begin() + kBatch);
  c->bytes -= batch.bytes;
  Depot::Global().Put(batch);  // when full, `batch` frees them here
}

}  // namespace

std::string RecycledString(std::string_view bytes) {
  Strings* c = bytes.size() > kInlineCapacity ? ThreadStrings() : nullptr;
  if (c != nullptr && c->items.empty()) Depot::Global().Take(c);
  if (c != nullptr && !c->items.empty()) {
    std::string& top = c->items.back();
    const size_t capacity = top.capacity();
    // Not a small record in a large string's storage.
    if (capacity >= bytes.size() && capacity <= 2 * bytes.size() + 256) {
      std::string s = std::move(top);
      c->items.pop_back();
      c->bytes -= capacity;
      s.assign(bytes.data(), bytes.size());
      return s;
    }
  }
  return std::string(bytes);
}

void RecycleStrings(std::string* s, int64_t n) {
  if (n == 0) return;  // every numeric tensor's buffer: no thread-local
  Strings* c = ThreadStrings();
  for (int64_t i = 0; i < n; ++i) {
    const size_t capacity = s[i].capacity();
    if (c != nullptr && capacity > kInlineCapacity &&
        capacity <= kRecycledStringMax &&
        c->bytes + capacity <= kRecycledStringBytes) {
      c->items.push_back(std::move(s[i]));
      c->bytes += capacity;
      if (c->items.size() >= kSpill) Spill(c);
    }
    s[i].~basic_string();
  }
}

size_t RecycledStringsCached() {
  Strings* c = ThreadStrings();
  return c == nullptr ? 0 : c->items.size();
}

}  // namespace inflow::internal
