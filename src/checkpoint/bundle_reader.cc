// Copyright 2026 The inflow Authors.

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
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

struct BundleReader::Rep {
  std::string prefix;
  Env* env = nullptr;
  int num_shards = 1;
  std::vector<BundleEntry> entries;
  std::vector<int32_t> dtype_enums;  // parallel to entries

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
  Result<const Shard*> Prepare(const BundleEntry& e, size_t index) const {
    const std::string name = "tensor '" + e.name + "' in bundle " + prefix;
    if (e.partitioned) {
      return UnimplementedError(
          name + " is partitioned (stored as slices), which is not supported");
    }
    if (e.dtype == DType::kInvalid) {
      return UnimplementedError(name + " has DataType " +
                                std::to_string(dtype_enums[index]) +
                                ", which inflow does not support");
    }
    const std::string path = DataPath(e.shard_id);
    if (e.dtype != DType::kString) {
      const uint64_t elem = DTypeSize(e.dtype);
      const uint64_t n = static_cast<uint64_t>(e.shape.num_elements());
      if (n > static_cast<uint64_t>(e.size) / elem ||
          n * elem != static_cast<uint64_t>(e.size)) {
        return DataLossError(
            "Invalid size in bundle entry: key " + e.name + "; stored size " +
            std::to_string(e.size) + "; expected " + std::to_string(n) +
            " elements of " + std::to_string(elem) + " bytes (" + path +
            ", offset " + std::to_string(e.offset) + ")");
      }
    } else if (e.shape.num_elements() > 0 &&
               (e.size < 4 || e.shape.num_elements() > e.size - 4)) {
      return DataLossError("string tensor '" + e.name + "' of " +
                           std::to_string(e.shape.num_elements()) +
                           " elements cannot fit its stored size " +
                           std::to_string(e.size) + " (" + path + ", offset " +
                           std::to_string(e.offset) + ")");
    }
    INFLOW_ASSIGN_OR_RETURN(const Shard* shard, OpenShard(e.shard_id));
    if (static_cast<uint64_t>(e.offset) + static_cast<uint64_t>(e.size) >
        shard->size) {
      return DataLossError(name + " spans bytes [" + std::to_string(e.offset) +
                           ", " + std::to_string(e.offset + e.size) +
                           ") but data file " + path + " has " +
                           std::to_string(shard->size) + " bytes");
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

  Result<size_t> Find(std::string_view name) const {
    auto it = std::lower_bound(
        entries.begin(), entries.end(), name,
        [](const BundleEntry& e, std::string_view n) { return e.name < n; });
    if (it == entries.end() || it->name != name) {
      return NotFoundError("Key " + std::string(name) +
                           " not found in checkpoint");
    }
    return static_cast<size_t>(it - entries.begin());
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
  rep->entries.reserve(index.entries.size());
  rep->dtype_enums.reserve(index.entries.size());
  for (internal::StoredEntry& stored : index.entries) {
    rep->dtype_enums.push_back(stored.dtype_enum);
    rep->entries.push_back(std::move(stored.entry));
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
  return &rep_->entries[i];
}

Result<Tensor> BundleReader::Read(std::string_view name) const {
  INFLOW_ASSIGN_OR_RETURN(size_t i, rep_->Find(name));
  const BundleEntry& e = rep_->entries[i];
  INFLOW_ASSIGN_OR_RETURN(const Shard* shard, rep_->Prepare(e, i));
  Tensor out = e.dtype == DType::kString
                   ? Tensor(e.dtype, e.shape)
                   : Tensor::Uninitialized(e.dtype, e.shape);
  INFLOW_RETURN_IF_ERROR(rep_->Fill(e, *shard, &out));
  return out;
}

Status BundleReader::ReadInto(std::string_view name, Tensor* out) const {
  INFLOW_ASSIGN_OR_RETURN(size_t i, rep_->Find(name));
  const BundleEntry& e = rep_->entries[i];
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
  INFLOW_ASSIGN_OR_RETURN(const Shard* shard, rep_->Prepare(e, i));
  return rep_->Fill(e, *shard, out);
}

Status BundleReader::Verify() const {
  std::vector<char> scratch;
  for (size_t i = 0; i < rep_->entries.size(); ++i) {
    const BundleEntry& e = rep_->entries[i];
    if (e.partitioned || e.dtype == DType::kInvalid) continue;
    if (e.dtype == DType::kString) {
      INFLOW_RETURN_IF_ERROR(Read(e.name).status());
      continue;
    }
    // Numeric values are only checksummed, a chunk at a time, so that
    // verifying a large tensor needs no tensor-sized buffer.
    INFLOW_ASSIGN_OR_RETURN(const Shard* shard, rep_->Prepare(e, i));
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
