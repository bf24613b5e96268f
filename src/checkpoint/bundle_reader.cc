// Copyright 2026 The inflow Authors.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "inflow/checkpoint/bundle.h"
#include "inflow/core/mutex.h"
#include "inflow/io/crc32c.h"

#include "checkpoint/bundle_index.h"
#include "checkpoint/tensor_bytes.h"

namespace inflow {
namespace {

// An opened data file. Immutable once made.
struct Shard {
  std::unique_ptr<RandomAccessFile> file;
  uint64_t size = 0;
};

std::string Hex(uint32_t v) {
  char buf[11];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

}  // namespace

// Where one stored slice of a partitioned tensor goes.
struct SlicePlacement {
  size_t stored = 0;            // its entry in Rep::stored
  std::vector<int64_t> starts;  // per dimension
  bool whole = false;           // the slice is the whole tensor
};

struct BundleReader::Rep {
  std::string prefix;
  Env* env = nullptr;
  int num_shards = 1;
  std::string index_path;
  // Every entry of the index, in key order, the slices' hidden keys too.
  std::vector<internal::StoredEntry> stored;
  // The listed ones (all but the hidden slice keys), and where each is in
  // `stored`.
  std::vector<BundleEntry> entries;
  std::vector<size_t> stored_of;

  mutable Mutex mu;
  // Data files are opened on first use; a node, once inserted, is never
  // removed, so a Shard* stays valid without the lock.
  mutable std::map<int32_t, Shard> shards INFLOW_GUARDED_BY(mu);

  std::string DataPath(int32_t shard) const {
    return BundleDataFilename(prefix, shard, num_shards);
  }

  Result<const Shard*> OpenShard(int32_t id) const {
    MutexLock lock(&mu);
    auto it = shards.find(id);
    if (it != shards.end()) return &it->second;
    const std::string path = DataPath(id);
    Shard shard;
    Result<uint64_t> size = env->GetFileSize(path);
    if (!size.ok()) {
      return size.status().WithContext("opening bundle data file " + path);
    }
    shard.size = *size;
    Result<std::unique_ptr<RandomAccessFile>> file =
        env->NewRandomAccessFile(path);
    if (!file.ok()) {
      return file.status().WithContext("opening bundle data file " + path);
    }
    shard.file = std::move(file).value();
    return &shards.emplace(id, std::move(shard)).first->second;
  }

  // What a read of `e` needs before any allocation: a readable dtype, a
  // size that fits the shape, and bytes that lie inside the data file.
  Result<const Shard*> Prepare(
      const internal::StoredEntry& stored_entry) const {
    const BundleEntry& e = stored_entry.entry;
    // Messages are built only on the error paths (a read is often 1 MiB
    // or less).
    auto name = [&] { return "tensor '" + e.name + "' in bundle " + prefix; };
    auto path = [&] { return DataPath(e.shard_id); };
    if (e.dtype == DType::kInvalid) {
      return UnimplementedError(name() + " has DataType " +
                                std::to_string(stored_entry.dtype_enum) +
                                ", which inflow does not support");
    }
    if (e.dtype != DType::kString) {
      const uint64_t elem = DTypeSize(e.dtype);
      const uint64_t n = static_cast<uint64_t>(e.shape.num_elements());
      if (n > static_cast<uint64_t>(e.size) / elem ||
          n * elem != static_cast<uint64_t>(e.size)) {
        return DataLossError(
            "Invalid size in bundle entry: key " + e.name + "; stored size " +
            std::to_string(e.size) + "; expected " + std::to_string(n) +
            " elements of " + std::to_string(elem) + " bytes (" + path() +
            ", offset " + std::to_string(e.offset) + ")");
      }
    } else if (e.shape.num_elements() > 0 &&
               (e.size < 4 || e.shape.num_elements() > e.size - 4)) {
      return DataLossError("string tensor '" + e.name + "' of " +
                           std::to_string(e.shape.num_elements()) +
                           " elements cannot fit its stored size " +
                           std::to_string(e.size) + " (" + path() +
                           ", offset " + std::to_string(e.offset) + ")");
    }
    INFLOW_ASSIGN_OR_RETURN(const Shard* shard, OpenShard(e.shard_id));
    if (static_cast<uint64_t>(e.offset) + static_cast<uint64_t>(e.size) >
        shard->size) {
      return DataLossError(
          name() + " spans bytes [" + std::to_string(e.offset) + ", " +
          std::to_string(e.offset + e.size) + ") but data file " + path() +
          " has " + std::to_string(shard->size) + " bytes");
    }
    return shard;
  }

  Status CheckCrc(const BundleEntry& e, uint32_t crc) const {
    if (crc32c::Mask(crc) == e.masked_crc32c) return OkStatus();
    return DataLossError("checksum mismatch for tensor '" + e.name +
                         "' at offset " + std::to_string(e.offset) + " of " +
                         DataPath(e.shard_id) + ": stored " +
                         Hex(e.masked_crc32c) + ", computed " +
                         Hex(crc32c::Mask(crc)) + " (masked)");
  }

  // Reads `e`'s value into `out`, which has its dtype and shape.
  Status Fill(const BundleEntry& e, const Shard& shard, Tensor* out) const {
    uint32_t crc = 0;
    const size_t size = static_cast<size_t>(e.size);
    if (e.dtype == DType::kString) {
      std::string bytes(size, '\0');
      INFLOW_RETURN_IF_ERROR(internal::ReadChecksummed(
          *shard.file, static_cast<uint64_t>(e.offset), size, bytes.data(),
          &crc));
      Status s = internal::DecodeStringTensor(bytes, out, &crc);
      if (!s.ok()) {
        return s.WithContext("tensor '" + e.name + "' at offset " +
                             std::to_string(e.offset) + " of " +
                             DataPath(e.shard_id));
      }
      return CheckCrc(e, crc);
    }
    INFLOW_ASSIGN_OR_RETURN(void* dst, out->mutable_raw_data());
    INFLOW_RETURN_IF_ERROR(
        internal::ReadChecksummed(*shard.file, static_cast<uint64_t>(e.offset),
                                  size, static_cast<char*>(dst), &crc));
    INFLOW_RETURN_IF_ERROR(CheckCrc(e, crc));
    if (e.dtype == DType::kBool) {
      // Any non-zero byte is true (as TF reads it); a bool holding another
      // byte than 0 or 1 is undefined behaviour in C++.
      auto* p = static_cast<unsigned char*>(dst);
      for (size_t i = 0; i < size; ++i) p[i] = p[i] != 0;
    }
    return OkStatus();
  }

  // The index of `name` in `stored` (any key, hidden or not).
  std::optional<size_t> FindStored(std::string_view name) const {
    auto it =
        std::lower_bound(stored.begin(), stored.end(), name,
                         [](const internal::StoredEntry& e,
                            std::string_view n) { return e.entry.name < n; });
    if (it == stored.end() || it->entry.name != name) return std::nullopt;
    return static_cast<size_t>(it - stored.begin());
  }

  // The index in `stored` of the listed tensor `name`.
  Result<size_t> Find(std::string_view name) const {
    auto it = std::lower_bound(
        entries.begin(), entries.end(), name,
        [](const BundleEntry& e, std::string_view n) { return e.name < n; });
    if (it == entries.end() || it->name != name) {
      return NotFoundError("Key " + std::string(name) +
                           " not found in checkpoint");
    }
    return stored_of[static_cast<size_t>(it - entries.begin())];
  }

  Status BadSlices(const BundleEntry& e, const std::string& what) const {
    return DataLossError("partitioned tensor '" + e.name + "' " +
                         e.shape.DebugString() + " in bundle index " +
                         index_path + ": " + what);
  }

  // Where each stored slice of the partitioned tensor `full` goes, after
  // checking them as TF does: each slice lies inside the shape, no two
  // overlap, together they cover it, and each is stored (under its hidden
  // key) with the tensor's dtype and the slice's shape. DATA_LOSS
  // otherwise.
  Result<std::vector<SlicePlacement>> PlanSlices(
      const internal::StoredEntry& full) const {
    const BundleEntry& e = full.entry;
    const int rank = e.shape.rank();
    // The overlap check compares every pair: bounded so that a damaged
    // index cannot make it run for hours (TF's partitioners make tens to
    // thousands of slices).
    constexpr size_t kMaxSlices = size_t{1} << 14;
    if (full.slice_extents.size() > kMaxSlices) {
      return BadSlices(e, std::to_string(full.slice_extents.size()) +
                              " slices, more than the " +
                              std::to_string(kMaxSlices) + " inflow reads");
    }
    std::vector<SlicePlacement> plan;
    std::vector<std::vector<int64_t>> lengths;
    int64_t covered = 0;
    for (size_t k = 0; k < full.slice_extents.size(); ++k) {
      const std::vector<internal::SliceExtent>& extents = full.slice_extents[k];
      const std::string which = "slice " + std::to_string(k);
      if (static_cast<int>(extents.size()) != rank) {
        return BadSlices(e, which + " has " + std::to_string(extents.size()) +
                                " dimensions");
      }
      SlicePlacement place;
      std::vector<int64_t> len(static_cast<size_t>(rank));
      int64_t elements = 1;
      bool whole = true;
      for (int d = 0; d < rank; ++d) {
        const internal::SliceExtent& x = extents[static_cast<size_t>(d)];
        const int64_t dim = e.shape.dim(d);
        const int64_t start = x.length == internal::kFullExtent ? 0 : x.start;
        const int64_t length =
            x.length == internal::kFullExtent ? dim : x.length;
        if (start < 0 || length < 0 || start > dim || length > dim - start) {
          return BadSlices(e, which + " spans [" + std::to_string(x.start) +
                                  ", +" + std::to_string(x.length) +
                                  ") of dimension " + std::to_string(d));
        }
        place.starts.push_back(start);
        len[static_cast<size_t>(d)] = length;
        elements *= length;
        whole = whole && start == 0 && length == dim;
      }
      place.whole = whole;
      const std::string key = internal::EncodeTensorNameSlice(e.name, extents);
      std::optional<size_t> at = FindStored(key);
      if (!at) return BadSlices(e, which + ": its data entry is missing");
      const internal::StoredEntry& part = stored[*at];
      if (!part.slices.empty() || part.dtype_enum != full.dtype_enum ||
          part.entry.shape.dims() != len) {
        return BadSlices(e, which + " is stored as " +
                                std::string(DTypeName(part.entry.dtype)) + " " +
                                part.entry.shape.DebugString());
      }
      place.stored = *at;
      for (size_t j = 0; j < plan.size(); ++j) {
        bool overlap = true;
        for (int d = 0; d < rank && overlap; ++d) {
          const size_t u = static_cast<size_t>(d);
          overlap = place.starts[u] < plan[j].starts[u] + lengths[j][u] &&
                    plan[j].starts[u] < place.starts[u] + len[u];
        }
        if (overlap && elements > 0) {
          return BadSlices(e, "slices " + std::to_string(j) + " and " +
                                  std::to_string(k) + " overlap");
        }
      }
      covered += elements;
      plan.push_back(std::move(place));
      lengths.push_back(std::move(len));
    }
    if (covered != e.shape.num_elements()) {
      return BadSlices(
          e, "its slices cover " + std::to_string(covered) + " of its " +
                 std::to_string(e.shape.num_elements()) + " elements");
    }
    return plan;
  }

  // Reads a partitioned tensor into `out` (of its dtype and shape): each
  // slice is read and CRC-checked, then copied to its place.
  Status ReadPartitioned(const internal::StoredEntry& full, Tensor* out) const {
    INFLOW_ASSIGN_OR_RETURN(std::vector<SlicePlacement> plan, PlanSlices(full));
    for (const SlicePlacement& place : plan) {
      const internal::StoredEntry& part = stored[place.stored];
      INFLOW_ASSIGN_OR_RETURN(const Shard* shard, Prepare(part));
      if (place.whole) {
        INFLOW_RETURN_IF_ERROR(Fill(part.entry, *shard, out));
        continue;
      }
      if (part.entry.shape.num_elements() == 0) continue;
      Tensor slice =
          part.entry.dtype == DType::kString
              ? Tensor(part.entry.dtype, part.entry.shape)
              : Tensor::Uninitialized(part.entry.dtype, part.entry.shape);
      INFLOW_RETURN_IF_ERROR(Fill(part.entry, *shard, &slice));
      INFLOW_RETURN_IF_ERROR(CopySlice(&slice, place.starts, out));
    }
    return OkStatus();
  }

  // Copies `*slice` into `*out` at `starts`, row by row (strings are moved
  // out of `*slice`).
  static Status CopySlice(Tensor* slice, const std::vector<int64_t>& starts,
                          Tensor* out) {
    const int rank = out->rank();
    const bool strings = out->dtype() == DType::kString;
    const size_t elem = strings ? 0 : DTypeSize(out->dtype());
    char* dst = nullptr;
    std::string* dst_s = nullptr;
    std::string* src_s = nullptr;
    const char* src = nullptr;
    if (strings) {
      INFLOW_ASSIGN_OR_RETURN(std::span<std::string> d,
                              out->mutable_flat<std::string>());
      INFLOW_ASSIGN_OR_RETURN(std::span<std::string> s,
                              slice->mutable_flat<std::string>());
      dst_s = d.data();
      src_s = s.data();
    } else {
      INFLOW_ASSIGN_OR_RETURN(void* d, out->mutable_raw_data());
      dst = static_cast<char*>(d);
      src = static_cast<const char*>(slice->raw_data());
    }
    // Row-major strides of the whole tensor.
    std::vector<int64_t> stride(static_cast<size_t>(rank), 1);
    for (int d = rank - 2; d >= 0; --d) {
      stride[static_cast<size_t>(d)] =
          stride[static_cast<size_t>(d) + 1] * out->dim_size(d + 1);
    }
    const int64_t row = rank == 0 ? 1 : slice->dim_size(rank - 1);
    const int64_t rows = row == 0 ? 0 : slice->num_elements() / row;
    std::vector<int64_t> index(static_cast<size_t>(std::max(rank - 1, 0)), 0);
    for (int64_t r = 0; r < rows; ++r) {
      int64_t at = rank == 0 ? 0 : starts[static_cast<size_t>(rank) - 1];
      for (int d = 0; d + 1 < rank; ++d) {
        at += (starts[static_cast<size_t>(d)] + index[static_cast<size_t>(d)]) *
              stride[static_cast<size_t>(d)];
      }
      const int64_t from = r * row;
      if (strings) {
        for (int64_t i = 0; i < row; ++i) dst_s[at + i].swap(src_s[from + i]);
      } else {
        std::memcpy(dst + static_cast<size_t>(at) * elem,
                    src + static_cast<size_t>(from) * elem,
                    static_cast<size_t>(row) * elem);
      }
      for (int d = rank - 2; d >= 0; --d) {
        const size_t u = static_cast<size_t>(d);
        if (++index[u] < slice->dim_size(d)) break;
        index[u] = 0;
      }
    }
    return OkStatus();
  }
};

Result<std::unique_ptr<BundleReader>> BundleReader::Open(std::string prefix,
                                                         Env* env) {
  INFLOW_ASSIGN_OR_RETURN(internal::BundleIndex index,
                          internal::ReadBundleIndex(*env, prefix));
  auto rep = std::make_unique<Rep>();
  rep->prefix = std::move(prefix);
  rep->env = env;
  rep->num_shards = index.header.num_shards;
  rep->index_path = index.path;
  rep->stored = std::move(index.entries);
  // A partitioned tensor's slices are stored under keys made from its name
  // and each slice; exactly those keys are hidden (as TF's
  // CheckpointReader filters them).
  std::set<std::string> hidden;
  for (const internal::StoredEntry& stored : rep->stored) {
    for (const auto& extents : stored.slice_extents) {
      hidden.insert(
          internal::EncodeTensorNameSlice(stored.entry.name, extents));
    }
  }
  for (size_t i = 0; i < rep->stored.size(); ++i) {
    if (hidden.count(rep->stored[i].entry.name) > 0) continue;
    rep->entries.push_back(rep->stored[i].entry);
    rep->stored_of.push_back(i);
  }
  return std::unique_ptr<BundleReader>(new BundleReader(std::move(rep)));
}

BundleReader::BundleReader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
BundleReader::~BundleReader() = default;

const std::string& BundleReader::prefix() const { return rep_->prefix; }
int BundleReader::num_shards() const { return rep_->num_shards; }
const std::vector<BundleEntry>& BundleReader::entries() const {
  return rep_->entries;
}

Result<const BundleEntry*> BundleReader::Lookup(std::string_view name) const {
  INFLOW_ASSIGN_OR_RETURN(size_t i, rep_->Find(name));
  return &rep_->stored[i].entry;
}

Result<Tensor> BundleReader::Read(std::string_view name) const {
  INFLOW_ASSIGN_OR_RETURN(size_t i, rep_->Find(name));
  const internal::StoredEntry& stored = rep_->stored[i];
  const BundleEntry& e = stored.entry;
  // Every check that can fail without reading comes before the
  // allocation: a damaged shape must not allocate what it claims.
  const Shard* shard = nullptr;
  if (e.partitioned && e.dtype != DType::kInvalid) {
    INFLOW_ASSIGN_OR_RETURN(std::vector<SlicePlacement> plan,
                            rep_->PlanSlices(stored));
    for (const SlicePlacement& place : plan) {
      INFLOW_RETURN_IF_ERROR(
          rep_->Prepare(rep_->stored[place.stored]).status());
    }
  } else {
    INFLOW_ASSIGN_OR_RETURN(shard, rep_->Prepare(stored));
  }
  Tensor out = e.dtype == DType::kString
                   ? Tensor(e.dtype, e.shape)
                   : Tensor::Uninitialized(e.dtype, e.shape);
  if (shard == nullptr) {
    INFLOW_RETURN_IF_ERROR(rep_->ReadPartitioned(stored, &out));
  } else {
    INFLOW_RETURN_IF_ERROR(rep_->Fill(e, *shard, &out));
  }
  return out;
}

Status BundleReader::ReadInto(std::string_view name, Tensor* out) const {
  INFLOW_ASSIGN_OR_RETURN(size_t i, rep_->Find(name));
  const internal::StoredEntry& stored = rep_->stored[i];
  const BundleEntry& e = stored.entry;
  if (!out->IsInitialized()) {
    return InvalidArgumentError("ReadInto tensor '" + e.name +
                                "': the output tensor is uninitialized");
  }
  if (out->dtype() != e.dtype && e.dtype != DType::kInvalid) {
    return InvalidArgumentError("Tensor dtype mismatch for '" + e.name +
                                "': stored " + std::string(DTypeName(e.dtype)) +
                                " vs. requested " +
                                std::string(DTypeName(out->dtype())));
  }
  if (out->shape() != e.shape) {
    return InvalidArgumentError("Tensor shape mismatch for '" + e.name +
                                "': stored " + e.shape.DebugString() +
                                " vs. requested " + out->shape().DebugString());
  }
  if (e.partitioned && e.dtype != DType::kInvalid) {
    return rep_->ReadPartitioned(stored, out);
  }
  INFLOW_ASSIGN_OR_RETURN(const Shard* shard, rep_->Prepare(stored));
  return rep_->Fill(e, *shard, out);
}

Status BundleReader::Verify() const {
  std::vector<char> scratch;
  // Every stored entry, the hidden slices too; a partitioned tensor's
  // slices are checked to fit together.
  for (const internal::StoredEntry& stored : rep_->stored) {
    const BundleEntry& e = stored.entry;
    if (e.dtype == DType::kInvalid) continue;
    if (e.partitioned) {
      INFLOW_RETURN_IF_ERROR(rep_->PlanSlices(stored).status());
      continue;
    }
    if (e.dtype == DType::kString) {
      Tensor value(e.dtype, e.shape);
      INFLOW_ASSIGN_OR_RETURN(const Shard* shard, rep_->Prepare(stored));
      INFLOW_RETURN_IF_ERROR(rep_->Fill(e, *shard, &value));
      continue;
    }
    // Numeric values are only checksummed, a chunk at a time, so that
    // verifying a large tensor needs no tensor-sized buffer.
    INFLOW_ASSIGN_OR_RETURN(const Shard* shard, rep_->Prepare(stored));
    scratch.resize(internal::kTensorChunkBytes);
    uint32_t crc = 0;
    for (int64_t done = 0; done < e.size;) {
      const size_t n = static_cast<size_t>(std::min<int64_t>(
          e.size - done, static_cast<int64_t>(scratch.size())));
      INFLOW_RETURN_IF_ERROR(internal::ReadChecksummed(
          *shard->file, static_cast<uint64_t>(e.offset + done), n,
          scratch.data(), &crc));
      done += static_cast<int64_t>(n);
    }
    INFLOW_RETURN_IF_ERROR(rep_->CheckCrc(e, crc));
  }
  return OkStatus();
}

}  // namespace inflow
