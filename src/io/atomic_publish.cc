// Copyright 2026 The inflow Authors.

#include "io/atomic_publish.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <utility>

#include "io/path.h"

namespace inflow::internal {

AtomicPublish::AtomicPublish(Env& env, bool sync) : env_(env), sync_(sync) {}

AtomicPublish::~AtomicPublish() { Abandon(); }

Result<WritableFile*> AtomicPublish::Create(std::string final_path,
                                            std::string temp_path) {
  Result<std::unique_ptr<WritableFile>> file = env_.NewWritableFile(temp_path);
  if (!file.ok()) return file.status().WithContext("publishing " + final_path);
  files_.push_back(
      {std::move(final_path), std::move(temp_path), std::move(file).value()});
  return files_.back().file.get();
}

void AtomicPublish::Add(std::string final_path, std::string temp_path) {
  files_.push_back({std::move(final_path), std::move(temp_path), nullptr});
}

Status AtomicPublish::Close() {
  for (size_t i = renamed_; i < files_.size(); ++i) {
    File& f = files_[i];
    if (f.file == nullptr) continue;
    // The bytes are made durable before the rename can make them visible
    // under the final name.
    Status s = sync_ ? f.file->Sync() : OkStatus();
    if (s.ok()) {
      s = f.file->Close();
    } else {
      f.file->Close().IgnoreError();
    }
    f.file.reset();
    if (!s.ok()) {
      const std::string final_path = f.final_path;
      Abandon();
      return s.WithContext("publishing " + final_path);
    }
  }
  return OkStatus();
}

Status AtomicPublish::Rename() {
  INFLOW_RETURN_IF_ERROR(Close());
  while (renamed_ < files_.size()) {
    const File& f = files_[renamed_];
    Status s = env_.RenameFile(f.temp_path, f.final_path);
    if (!s.ok()) {
      const std::string final_path = f.final_path;
      Abandon();
      return s.WithContext("publishing " + final_path);
    }
    ++renamed_;
    std::string dir = DirectoryOf(f.final_path);
    if (std::none_of(dirs_to_sync_.begin(), dirs_to_sync_.end(),
                     [&](const auto& d) { return d.first == dir; })) {
      dirs_to_sync_.emplace_back(std::move(dir), f.final_path);
    }
  }
  return OkStatus();
}

Status AtomicPublish::SyncDirs() {
  std::vector<std::pair<std::string, std::string>> dirs;
  dirs.swap(dirs_to_sync_);
  if (!sync_) return OkStatus();
  Status first;
  for (const auto& [dir, final_path] : dirs) {
    // Until its directory is synced, a crash may undo the rename.
    Status s = env_.SyncDir(dir);
    if (!s.ok() && first.ok())
      first = s.WithContext("publishing " + final_path);
  }
  return first;
}

Status AtomicPublish::Commit() {
  Status s = Rename();
  Status synced = SyncDirs();
  return s.ok() ? synced : s;
}

void AtomicPublish::Abandon() {
  for (size_t i = renamed_; i < files_.size(); ++i) {
    File& f = files_[i];
    if (f.file != nullptr) {
      f.file->Close().IgnoreError();
      f.file.reset();
    }
    env_.DeleteFile(f.temp_path).IgnoreError();
  }
  files_.erase(files_.begin() + static_cast<std::ptrdiff_t>(renamed_),
               files_.end());
}

Status WriteFileAtomically(Env& env, std::string final_path,
                           std::string temp_path, std::string_view data,
                           bool sync, bool* renamed) {
  if (renamed != nullptr) *renamed = false;
  AtomicPublish publish(env, sync);
  const std::string context = "publishing " + final_path;
  INFLOW_ASSIGN_OR_RETURN(
      WritableFile * file,
      publish.Create(std::move(final_path), std::move(temp_path)));
  Status s = file->Append(data);
  if (!s.ok()) return s.WithContext(context);  // the destructor deletes it
  s = publish.Commit();
  if (renamed != nullptr) *renamed = publish.renamed() == 1;
  return s;
}

std::string RandomHex(size_t digits) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(digits);
  uint64_t bits = 0;
  for (size_t i = 0; i < digits; ++i, bits >>= 4) {
    if (i % 16 == 0) bits = rng();
    out += kHex[bits & 0xF];
  }
  return out;
}

}  // namespace inflow::internal
