// Copyright 2026 The inflow Authors.
//
// TensorBuffer: owned storage (one allocation for the reference count, the
// buffer object and the 64-byte-aligned payload; large ones are recycled
// through BlockCache) and borrowed memory. Blocks of kHugeBlockBytes or
// more are 2 MiB-aligned, a whole number of 2 MiB pages, and advised to be
// backed by transparent huge pages: filling a fresh 200 MiB tensor (a
// checkpoint read) then takes 100 page faults rather than 51200, as TF's
// allocator does (docs/PERFORMANCE.md, "Reading one large tensor").

#include <sys/mman.h>

#include <algorithm>
#include <bit>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <vector>

#include "inflow/core/mutex.h"
#include "inflow/core/tensor.h"

#include "core/block_cache.h"
#include "core/fork_safety.h"
#include "core/sanitizer.h"
#include "core/string_recycler.h"
#include "core/tensor_blocks.h"
#include "core/thread_cache.h"

namespace inflow {

namespace {

size_t RoundUpToAlignment(size_t n) {
  return (n + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
}

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kHugeBlockBytes = size_t{16} << 20;

// The bytes of a block holding `head` bytes of header then `payload`.
size_t BlockBytes(size_t head, size_t payload) {
  const size_t bytes = RoundUpToAlignment(head + payload);
  if (bytes < kHugeBlockBytes) return bytes;
  return (bytes + kHugePage - 1) / kHugePage * kHugePage;
}

// Blocks passed between threads, per size class, kBatch at a time: a
// pipeline makes per-element tensors on one thread (a map's) and frees
// them on another (the batching one), where a per-thread cache alone
// would fill on the freeing side and stay empty on the making side, and
// glibc would take the making thread's arena lock for every free. At most
// kMaxBytes are kept. A thread's cache of a class is an array `blocks` of
// `count` blocks of `bytes` each, the oldest at the bottom.
template <size_t kClasses, size_t kBatch, size_t kMaxBytes>
class BlockDepot {
 public:
  // The process's depot of this kind, kept for its life (threads outlive
  // any static) and held across fork() (core/fork_safety.h).
  static BlockDepot& Global() {
    static BlockDepot* const depot =
        internal::HeldAcrossFork(new BlockDepot, &BlockDepot::mu_);
    return *depot;
  }

  // Moves the kBatch oldest blocks of a cache of class c here, or frees
  // them when the depot is full.
  void Spill(size_t c, void** blocks, size_t& count, size_t bytes)
      INFLOW_EXCLUDES(mu_) {
    Batch batch;
    std::copy_n(blocks, kBatch, batch.blocks);
    std::copy(blocks + kBatch, blocks + count, blocks);
    count -= kBatch;
    {
      MutexLock l(&mu_);
      if (bytes_ + kBatch * bytes <= kMaxBytes) {
        bytes_ += kBatch * bytes;
        batches_[c].push_back(batch);
        return;
      }
    }
    for (void* p : batch.blocks) std::free(p);
  }
  // Fills an empty cache of class c with the batch put last; false when
  // there is none.
  bool Refill(size_t c, void** blocks, size_t& count, size_t bytes)
      INFLOW_EXCLUDES(mu_) {
    Batch batch;
    {
      MutexLock l(&mu_);
      if (batches_[c].empty()) return false;
      batch = batches_[c].back();
      batches_[c].pop_back();
      bytes_ -= kBatch * bytes;
    }
    std::copy_n(batch.blocks, kBatch, blocks);
    count = kBatch;
    return true;
  }
  // A cache of class c whose thread ends: its whole batches here (or
  // freed when full), the rest freed.
  void Release(size_t c, void** blocks, size_t& count, size_t bytes) {
    while (count >= kBatch) Spill(c, blocks, count, bytes);
    for (size_t i = 0; i < count; ++i) std::free(blocks[i]);
    count = 0;
  }

  size_t Blocks() INFLOW_EXCLUDES(mu_) {
    MutexLock l(&mu_);
    size_t n = 0;
    for (const auto& b : batches_) n += b.size() * kBatch;
    return n;
  }

 private:
  struct Batch {
    void* blocks[kBatch];
  };

  Mutex mu_;
  std::vector<Batch> batches_[kClasses] INFLOW_GUARDED_BY(mu_);
  size_t bytes_ INFLOW_GUARDED_BY(mu_) = 0;
};

// Small blocks (a scalar's or a short row's: up to kSmallBlockMax bytes,
// in classes of kTensorAlignment) are recycled through a cache of the
// thread that frees them, and between threads through a depot: aligned_
// alloc of a small block costs glibc a memalign split, and a pipeline
// makes and drops such tensors per element (a record, a label). Off under
// AddressSanitizer, which should see every free.
constexpr bool kSmallCache = !internal::kAddressSanitizer;
constexpr size_t kSmallBlockMax = 1024;
constexpr size_t kSmallClasses = kSmallBlockMax / kTensorAlignment;
constexpr size_t kSmallPerClass = 128;
constexpr size_t kSmallBatch = kSmallPerClass / 2;
constexpr size_t kSmallDepotBytes = size_t{4} << 20;

using SmallDepot = BlockDepot<kSmallClasses, kSmallBatch, kSmallDepotBytes>;

struct SmallBlocks {
  void* free[kSmallClasses][kSmallPerClass];
  size_t count[kSmallClasses] = {};
};

size_t SmallClassBytes(size_t c) { return (c + 1) * kTensorAlignment; }

// When the thread ends its blocks go to the depot (or back to malloc).
void ReleaseSmallBlocks(SmallBlocks* b) {
  for (size_t c = 0; c < kSmallClasses; ++c) {
    SmallDepot::Global().Release(c, b->free[c], b->count[c],
                                 SmallClassBytes(c));
  }
  delete b;
}

SmallBlocks* ThreadSmallBlocks() {
  return internal::ThreadCache<SmallBlocks, ReleaseSmallBlocks>::Get();
}

void* TakeSmallBlock(size_t bytes) {
  if (!kSmallCache || bytes > kSmallBlockMax) return nullptr;
  SmallBlocks* b = ThreadSmallBlocks();
  if (b == nullptr) return nullptr;
  const size_t c = bytes / kTensorAlignment - 1;
  if (b->count[c] == 0 &&
      !SmallDepot::Global().Refill(c, b->free[c], b->count[c], bytes)) {
    return nullptr;
  }
  return b->free[c][--b->count[c]];
}

bool KeepSmallBlock(void* p, size_t bytes) {
  if (!kSmallCache || bytes > kSmallBlockMax) return false;
  SmallBlocks* b = ThreadSmallBlocks();
  if (b == nullptr) return false;
  const size_t c = bytes / kTensorAlignment - 1;
  if (b->count[c] == kSmallPerClass) {
    SmallDepot::Global().Spill(c, b->free[c], b->count[c], bytes);
  }
  b->free[c][b->count[c]++] = p;
  return true;
}

// Medium blocks (above kSmallBlockMax, below BlockCache::kMinBytes: a
// decoded image, a parsed row) are rounded up to one of four sizes per
// doubling and kept too, per thread and in a depot the threads share (see
// BlockDepot). Off under AddressSanitizer.
constexpr size_t kMediumClasses = 24;  // (1 KiB, 64 KiB]: 6 doublings
constexpr size_t kMediumPerClass = 16;
constexpr size_t kMediumBatch = kMediumPerClass / 2;
constexpr size_t kMediumThreadBytes = size_t{1} << 20;
constexpr size_t kMediumDepotBytes = size_t{16} << 20;

// The class of a medium block of `bytes` and the size it is rounded up
// to; kMediumClasses when `bytes` is not medium.
size_t MediumClass(size_t bytes, size_t* rounded) {
  if (!kSmallCache || bytes <= kSmallBlockMax ||
      bytes >= internal::BlockCache::kMinBytes) {
    return kMediumClasses;
  }
  // 2^(width-1) < bytes <= 2^width, in steps of 2^(width-3).
  const int width = std::bit_width(bytes - 1);
  const size_t step = size_t{1} << (width - 3);
  const size_t k = (bytes + step - 1) / step;  // 5..8
  *rounded = k * step;
  return static_cast<size_t>(width - 11) * 4 + (k - 5);
}

using MediumDepot = BlockDepot<kMediumClasses, kMediumBatch, kMediumDepotBytes>;

struct MediumBlocks {
  void* free[kMediumClasses][kMediumPerClass];
  size_t count[kMediumClasses] = {};
  size_t bytes = 0;
};

// Moves the kMediumBatch oldest blocks of class c to the depot (or frees
// them when it is full).
void SpillMedium(MediumBlocks* b, size_t c, size_t bytes) {
  MediumDepot::Global().Spill(c, b->free[c], b->count[c], bytes);
  b->bytes -= kMediumBatch * bytes;
}

// When the thread ends its blocks go to the depot (or back to malloc).
void ReleaseMediumBlocks(MediumBlocks* b) {
  for (size_t c = 0; c < kMediumClasses; ++c) {
    // The class's size (MediumClass's inverse).
    const size_t rounded = (size_t{1} << (c / 4 + 8)) * (c % 4 + 5);
    MediumDepot::Global().Release(c, b->free[c], b->count[c], rounded);
  }
  delete b;
}

MediumBlocks* ThreadMediumBlocks() {
  return internal::ThreadCache<MediumBlocks, ReleaseMediumBlocks>::Get();
}

void* TakeMediumBlock(size_t c, size_t bytes) {
  MediumBlocks* b = ThreadMediumBlocks();
  if (b == nullptr) return nullptr;
  if (b->count[c] == 0) {
    if (!MediumDepot::Global().Refill(c, b->free[c], b->count[c], bytes)) {
      return nullptr;
    }
    b->bytes += kMediumBatch * bytes;
  }
  b->bytes -= bytes;
  return b->free[c][--b->count[c]];
}

bool KeepMediumBlock(void* p, size_t c, size_t bytes) {
  MediumBlocks* b = ThreadMediumBlocks();
  if (b == nullptr) return false;
  if (b->count[c] == kMediumPerClass ||
      (b->bytes + bytes > kMediumThreadBytes && b->count[c] >= kMediumBatch)) {
    SpillMedium(b, c, bytes);
  }
  if (b->bytes + bytes > kMediumThreadBytes) return false;
  b->free[c][b->count[c]++] = p;
  b->bytes += bytes;
  return true;
}

void* AllocateBlock(size_t bytes) {
  if (bytes < kHugeBlockBytes)
    return std::aligned_alloc(kTensorAlignment, bytes);
  void* p = std::aligned_alloc(kHugePage, bytes);
#ifdef MADV_HUGEPAGE
  // Advice only: where the kernel has no huge pages it is ignored.
  if (p != nullptr) ::madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

// An allocator for std::allocate_shared that makes room, in the same
// aligned block as the shared object and its reference count, for
// `payload` more bytes starting at the next 64-byte boundary. It records
// where that payload starts in *payload_start. The recorded pointer is
// only read right after allocate_shared returns; deallocate needs nothing
// but the block itself.
template <typename T>
struct PayloadAllocator {
  using value_type = T;

  PayloadAllocator(size_t payload, char** payload_start)
      : payload(payload), payload_start(payload_start) {}
  template <typename U>
  PayloadAllocator(const PayloadAllocator<U>& other)  // NOLINT(implicit)
      : payload(other.payload), payload_start(other.payload_start) {}

  T* allocate(size_t n) {
    const size_t head = RoundUpToAlignment(n * sizeof(T));
    size_t bytes = BlockBytes(head, payload);
    void* p = TakeSmallBlock(bytes);
    if (const size_t c = MediumClass(bytes, &bytes); c < kMediumClasses) {
      p = TakeMediumBlock(c, bytes);
    } else if (p == nullptr) {
      p = internal::BlockCache::Global().Take(bytes);
    }
    if (p == nullptr) p = AllocateBlock(bytes);
    if (p == nullptr) throw std::bad_alloc();
    *payload_start = static_cast<char*>(p) + head;
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    size_t bytes = BlockBytes(RoundUpToAlignment(n * sizeof(T)), payload);
    if (KeepSmallBlock(p, bytes)) return;
    if (const size_t c = MediumClass(bytes, &bytes); c < kMediumClasses) {
      if (!KeepMediumBlock(p, c, bytes)) std::free(p);
      return;
    }
    if (!internal::BlockCache::Global().Keep(p, bytes)) std::free(p);
  }

  template <typename U>
  bool operator==(const PayloadAllocator<U>& other) const {
    return payload_start == other.payload_start;
  }

  size_t payload;
  char** payload_start;
};
}  // namespace

namespace internal {

size_t SmallBlocksInDepot() { return SmallDepot::Global().Blocks(); }
size_t MediumBlocksInDepot() { return MediumDepot::Global().Blocks(); }

}  // namespace internal

std::shared_ptr<TensorBuffer> TensorBuffer::Allocate(DType dtype,
                                                     int64_t num_elements,
                                                     bool zero) {
  const bool is_string = dtype == DType::kString;
  const size_t elem = is_string ? sizeof(std::string) : DTypeSize(dtype);
  // A count whose byte size (plus the header and rounding) would wrap
  // would allocate too little; no allocation could hold 2^56 elements (of
  // at most 32 bytes) anyway. A constant bound: no division per tensor.
  static_assert(sizeof(std::string) <= 32 &&
                sizeof(std::complex<double>) <= 32);
  if (num_elements < 0 || num_elements >= (int64_t{1} << 56)) {
    std::fprintf(stderr,
                 "inflow: TensorBuffer::Allocate: invalid element count %lld\n",
                 static_cast<long long>(num_elements));
    std::abort();
  }
  const size_t bytes = static_cast<size_t>(num_elements) * elem;
  char* payload = nullptr;
  std::shared_ptr<TensorBuffer> buf = std::allocate_shared<TensorBuffer>(
      PayloadAllocator<TensorBuffer>(bytes, &payload), Key());
  buf->data_ = payload;
  buf->size_ = bytes;
  if (is_string) {
    auto* s = reinterpret_cast<std::string*>(payload);
    for (int64_t i = 0; i < num_elements; ++i) new (s + i) std::string();
    buf->num_strings_ = num_elements;
  } else if (zero) {
    std::memset(payload, 0, bytes);
  }
  return buf;
}

std::shared_ptr<TensorBuffer> TensorBuffer::Wrap(
    const void* data, size_t size, std::function<void()> release) {
  // The pointer is only ever written through when read_only_ is false.
  std::shared_ptr<TensorBuffer> buf =
      WrapWritable(const_cast<void*>(data), size, std::move(release));
  buf->read_only_ = true;
  return buf;
}

std::shared_ptr<TensorBuffer> TensorBuffer::WrapWritable(
    void* data, size_t size, std::function<void()> release) {
  auto buf = std::make_shared<TensorBuffer>(Key());
  buf->data_ = data;
  buf->size_ = size;
  buf->release_ = std::move(release);
  return buf;
}

TensorBuffer::~TensorBuffer() {
  if (num_strings_ != 0) {
    internal::RecycleStrings(static_cast<std::string*>(data_), num_strings_);
  }
  if (release_) release_();
}

}  // namespace inflow
