// Copyright 2026 The inflow Authors.

#include "inflow/datafiles/pending_files.h"

#include <unistd.h>

#include <set>

namespace inflow {
namespace {

constexpr char kTmpMarker[] = ".tmp-";

std::pair<std::string, std::string> SplitPath(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return {"", path};
  return {path.substr(0, slash + 1), path.substr(slash + 1)};
}

}  // namespace

PendingFiles::~PendingFiles() { Abandon(); }

std::string PendingFiles::TemporaryPath(const std::string& final_path) {
  auto [dir, name] = SplitPath(final_path);
  return dir + "." + name + kTmpMarker + std::to_string(::getpid());
}

bool PendingFiles::IsTemporaryName(const std::string& name) {
  if (name.empty() || name[0] != '.') return false;
  const size_t marker = name.rfind(kTmpMarker);
  if (marker == std::string::npos || marker < 2) return false;
  const std::string pid = name.substr(marker + sizeof(kTmpMarker) - 1);
  return !pid.empty() && pid.find_first_not_of("0123456789") == pid.npos;
}

std::string PendingFiles::Add(const std::string& final_path) {
  std::string tmp = TemporaryPath(final_path);
  files_.emplace_back(tmp, final_path);
  return tmp;
}

Status PendingFiles::Commit() {
  std::set<std::string> dirs;
  Status first;
  while (!files_.empty()) {
    const auto [tmp, final_path] = files_.front();
    Status s = env_.RenameFile(tmp, final_path);
    if (!s.ok()) {
      first = s.WithContext("renaming " + tmp + " to " + final_path);
      break;
    }
    files_.erase(files_.begin());
    const std::string dir = SplitPath(final_path).first;
    dirs.insert(dir.empty() ? "." : dir.substr(0, dir.size() - 1));
  }
  Abandon();
  // The renames are durable only once each directory is synced.
  for (const std::string& dir : dirs) {
    Status s = env_.SyncDir(dir.empty() ? "/" : dir);
    if (first.ok() && !s.ok()) first = s;
  }
  return first;
}

void PendingFiles::Abandon() {
  for (const auto& [tmp, final_path] : files_) {
    env_.DeleteFile(tmp).IgnoreError();
  }
  files_.clear();
}

}  // namespace inflow
