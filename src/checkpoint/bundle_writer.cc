// Copyright 2026 The inflow Authors.

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "inflow/checkpoint/bundle.h"
#include "inflow/io/crc32c.h"

#include "checkpoint/bundle_index.h"
#include "checkpoint/bundle_proto.h"
#include "checkpoint/tensor_bytes.h"

namespace inflow {

using internal::StoredEntry;

struct BundleWriter::Rep {
  std::string prefix;
  BundleWriterOptions options;
  std::string data_path;
  std::string index_path;
  std::string data_tmp;
  std::string index_tmp;
  std::unique_ptr<WritableFile> data_file;
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
    if (data_file != nullptr) {
      data_file->Close().IgnoreError();
      data_file.reset();
    }
    if (!data_tmp.empty()) env().DeleteFile(data_tmp).IgnoreError();
    if (!index_tmp.empty()) env().DeleteFile(index_tmp).IgnoreError();
    data_tmp.clear();
    index_tmp.clear();
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
    const std::string dir = internal::DirectoryOf(index_path);
    if (options.sync) INFLOW_RETURN_IF_ERROR(data_file->Sync());
    Status s = data_file->Close();
    data_file.reset();
    if (!s.ok()) return s.WithContext("bundle data file " + data_path);
    index_tmp = internal::TempFilename(index_path);
    s = internal::WriteBundleIndex(
        env(), index_tmp, internal::MakeBundleHeader(1), entries, options.sync);
    if (!s.ok()) return s.WithContext("bundle index " + index_path);
    // Overwriting a bundle: its index goes first, so that a crash in
    // between never pairs the old index with the new data.
    if (env().FileExists(index_path).ok()) {
      INFLOW_RETURN_IF_ERROR(env().DeleteFile(index_path));
      if (options.sync) INFLOW_RETURN_IF_ERROR(env().SyncDir(dir));
    }
    // The data file before the index, each rename made durable before the
    // next: an index is never visible without its data.
    INFLOW_RETURN_IF_ERROR(env().RenameFile(data_tmp, data_path));
    data_tmp.clear();
    if (options.sync) INFLOW_RETURN_IF_ERROR(env().SyncDir(dir));
    INFLOW_RETURN_IF_ERROR(env().RenameFile(index_tmp, index_path));
    index_tmp.clear();
    if (options.sync) INFLOW_RETURN_IF_ERROR(env().SyncDir(dir));
    return OkStatus();
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
  r.data_tmp = internal::TempFilename(r.data_path);
  Result<std::unique_ptr<WritableFile>> file =
      r.env().NewWritableFile(r.data_tmp);
  if (!file.ok()) {
    r.data_tmp.clear();
    r.status = file.status().WithContext("bundle data file " + r.data_path);
    return;
  }
  r.data_file = std::move(file).value();
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
  Status s =
      internal::AppendTensorBytes(tensor, r.data_file.get(), &bytes, &crc);
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
