// Copyright 2026 The inflow Authors.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "inflow/checkpoint/bundle.h"
#include "inflow/io/crc32c.h"

#include "checkpoint/bundle_index.h"
#include "checkpoint/bundle_proto.h"
#include "checkpoint/tensor_bytes.h"
#include "io/atomic_publish.h"
#include "io/path.h"

namespace inflow {

using internal::StoredEntry;

struct BundleWriter::Rep {
  std::string prefix;
  BundleWriterOptions options;
  std::string data_path;
  std::string index_path;
  // The data file, then the index, under temporaries until Finish; a
  // failure or the destructor deletes them.
  std::optional<internal::AtomicPublish> files;
  WritableFile* data_file = nullptr;  // files' data temporary, until closed
  std::map<std::string, StoredEntry> entries;  // key order, for the index
  uint64_t size = 0;  // data file bytes, padding included
  Status status;
  bool finished = false;

  Env& env() const { return *options.env; }

  // Records the first error and removes every temporary, so that a failed
  // writer leaves nothing behind even before it is destroyed.
  Status Fail(Status s) {
    if (status.ok()) status = std::move(s);
    Discard();
    return status;
  }

  void Discard() {
    data_file = nullptr;
    if (files.has_value()) files->Abandon();
  }

  Status Pad() {
    const uint64_t align = static_cast<uint64_t>(options.data_alignment);
    if (align <= 1 || size % align == 0) return OkStatus();
    const std::string zeros(static_cast<size_t>(align - size % align), '\0');
    INFLOW_RETURN_IF_ERROR(data_file->Append(zeros));
    size += zeros.size();
    return OkStatus();
  }

  Status Publish() {
    data_file = nullptr;
    INFLOW_RETURN_IF_ERROR(files->Close());
    const std::string index_tmp = internal::TempFilename(index_path);
    files->Add(index_path, index_tmp);
    Status s = internal::WriteBundleIndex(
        env(), index_tmp, internal::MakeBundleHeader(1), entries, options.sync);
    if (!s.ok()) return s.WithContext("bundle index " + index_path);
    // Overwriting a bundle: its index goes first (made durable), so that a
    // crash in between never pairs the old index with the new data.
    if (env().FileExists(index_path).ok()) {
      INFLOW_RETURN_IF_ERROR(env().DeleteFile(index_path));
      if (options.sync) {
        INFLOW_RETURN_IF_ERROR(
            env().SyncDir(internal::DirectoryOf(index_path)));
      }
    }
    // The data file before the index, then one directory sync for both:
    // both files' bytes are already durable, and the two renames change
    // one directory, whose changes a journaling file system (and MemEnv's
    // crash model) makes durable in order, so an index is never visible
    // without its data.
    return files->Commit();
  }
};

BundleWriter::BundleWriter(std::string prefix, BundleWriterOptions options)
    : rep_(std::make_unique<Rep>()) {
  Rep& r = *rep_;
  r.prefix = std::move(prefix);
  r.options = options;
  r.data_path = BundleDataFilename(r.prefix, 0, 1);
  r.index_path = BundleIndexFilename(r.prefix);
  if (r.options.data_alignment < 1) {
    r.status = InvalidArgumentError(
        "BundleWriterOptions.data_alignment must be >= 1, got " +
        std::to_string(r.options.data_alignment));
    return;
  }
  Status s = internal::CreateParentDir(r.env(), r.data_path);
  if (!s.ok()) {
    r.status = s.WithContext("creating the directory of bundle " + r.prefix);
    return;
  }
  r.files.emplace(r.env(), r.options.sync);
  Result<WritableFile*> file =
      r.files->Create(r.data_path, internal::TempFilename(r.data_path));
  if (!file.ok()) {
    r.status = file.status();
    return;
  }
  r.data_file = *file;
}

BundleWriter::~BundleWriter() {
  if (!rep_->finished) rep_->Discard();
}

Status BundleWriter::Add(std::string_view name, const Tensor& tensor) {
  Rep& r = *rep_;
  if (!r.status.ok()) return r.status;
  if (r.finished) {
    return FailedPreconditionError("BundleWriter::Add after Finish for " +
                                   r.prefix);
  }
  if (name.empty()) {
    return InvalidArgumentError(
        "a tensor name must not be empty (\"\" is the header's key)");
  }
  if (!tensor.IsInitialized()) {
    return InvalidArgumentError("tensor '" + std::string(name) +
                                "' is uninitialized");
  }
  auto [it, inserted] = r.entries.try_emplace(std::string(name));
  if (!inserted) {
    return r.Fail(
        InvalidArgumentError("Adding duplicate key: " + std::string(name)));
  }
  StoredEntry& stored = it->second;
  stored.entry.name = it->first;
  stored.entry.dtype = tensor.dtype();
  stored.dtype_enum = static_cast<int32_t>(tensor.dtype());
  stored.entry.shape = tensor.shape();
  stored.entry.offset = static_cast<int64_t>(r.size);
  uint64_t bytes = 0;
  uint32_t crc = 0;
  Status s = internal::AppendTensorBytes(tensor, r.data_file, &bytes, &crc);
  if (s.ok()) {
    r.size += bytes;
    s = r.Pad();
  }
  if (!s.ok()) {
    return r.Fail(s.WithContext("adding tensor '" + std::string(name) +
                                "' to bundle data file " + r.data_path));
  }
  stored.entry.size = static_cast<int64_t>(bytes);
  stored.entry.masked_crc32c = crc32c::Mask(crc);
  return OkStatus();
}

Status BundleWriter::Finish() {
  Rep& r = *rep_;
  if (!r.status.ok()) return r.status;
  if (r.finished) return OkStatus();
  Status s = r.Publish();
  if (!s.ok()) return r.Fail(std::move(s));
  r.finished = true;
  return OkStatus();
}

uint64_t BundleWriter::data_bytes() const { return rep_->size; }

const std::string& BundleWriter::prefix() const { return rep_->prefix; }

}  // namespace inflow
