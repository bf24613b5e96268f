// Copyright 2026 The inflow Authors.
//
// MemEnv's directories: creation, listing, deletion and SyncDir, which is
// what makes directory entries durable (mem_env.h, "The crash model").

#include <set>
#include <utility>

#include "inflow/io/mem_env.h"

#include "io/path.h"
#include "mem_env_state.h"

namespace inflow {

using internal::Basename;
using internal::Dirname;
using internal::MemEnvKey;
using internal::WallTime;

namespace {

bool IsRoot(const std::string& path) { return path.empty() || path == "/"; }

}  // namespace

Status MemEnv::State::NotADirectory(const std::string& dir,
                                    const std::string& d) const {
  if (files.count(d) > 0 || FileAncestor(d)) {
    return FailedPreconditionError(dir + " is not a directory");
  }
  return NotFoundError(dir + " not found");
}

Status MemEnv::CreateDir(const std::string& path) {
  State& s = *state_;
  MutexLock lock(&s.mu);
  const std::string p = MemEnvKey(path);
  INFLOW_RETURN_IF_ERROR(s.Mutate(MemEnvOp::kCreateDir, p));
  if (s.IsDir(p)) return OkStatus();
  if (s.files.count(p) > 0) {
    return FailedPreconditionError("mkdir " + path + ": a file is there");
  }
  if (auto file = s.FileAncestor(p)) {
    return FailedPreconditionError("mkdir " + path + ": " + *file +
                                   " is not a directory");
  }
  if (!s.IsDir(Dirname(p))) {
    return NotFoundError("mkdir " + path + ": " + Dirname(p) + " not found");
  }
  const double now = WallTime();
  s.dirs.emplace(p, now);
  s.Touch(Dirname(p), now);
  return OkStatus();
}

Status MemEnv::DeleteDir(const std::string& path) {
  State& s = *state_;
  MutexLock lock(&s.mu);
  const std::string p = MemEnvKey(path);
  INFLOW_RETURN_IF_ERROR(s.Mutate(MemEnvOp::kDeleteDir, p));
  if (s.files.count(p) > 0 || s.FileAncestor(p)) {
    return FailedPreconditionError("rmdir " + path + ": not a directory");
  }
  if (IsRoot(p)) return FailedPreconditionError("rmdir " + path + ": root");
  if (!s.IsDir(p)) return NotFoundError(path + " not found");
  const std::string prefix = p + "/";
  auto file = s.files.lower_bound(prefix);
  auto dir = s.dirs.lower_bound(prefix);
  if ((file != s.files.end() && file->first.starts_with(prefix)) ||
      (dir != s.dirs.end() && dir->first.starts_with(prefix))) {
    return FailedPreconditionError("rmdir " + path + ": directory not empty");
  }
  s.dirs.erase(p);
  s.Touch(Dirname(p), WallTime());
  return OkStatus();
}

Status MemEnv::IsDirectory(const std::string& path) {
  MutexLock lock(&state_->mu);
  const std::string p = MemEnvKey(path);
  if (state_->IsDir(p)) return OkStatus();
  if (state_->files.count(p) > 0 || state_->FileAncestor(p)) {
    return FailedPreconditionError(path + " is not a directory");
  }
  return NotFoundError(path + " not found");
}

Result<double> MemEnv::GetModificationTime(const std::string& path) {
  MutexLock lock(&state_->mu);
  const std::string p = MemEnvKey(path);
  if (auto it = state_->files.find(p); it != state_->files.end()) {
    return it->second->mtime;
  }
  if (auto it = state_->dirs.find(p); it != state_->dirs.end()) {
    return it->second;
  }
  return NotFoundError(path + " not found");
}

Result<std::vector<std::string>> MemEnv::GetChildren(const std::string& dir) {
  State& s = *state_;
  MutexLock lock(&s.mu);
  const std::string d = MemEnvKey(dir);
  if (!s.IsDir(d)) return s.NotADirectory(dir, d);
  std::set<std::string> names;
  for (const auto& [path, file] : s.files) {
    if (Dirname(path) == d && path != d) names.insert(Basename(path));
  }
  for (const auto& [path, mtime] : s.dirs) {
    if (Dirname(path) == d && path != d) names.insert(Basename(path));
  }
  return std::vector<std::string>(names.begin(), names.end());
}

Status MemEnv::SyncDir(const std::string& dir) {
  State& s = *state_;
  MutexLock lock(&s.mu);
  const std::string d = MemEnvKey(dir);
  INFLOW_RETURN_IF_ERROR(s.Mutate(MemEnvOp::kSyncDir, d));
  if (!s.IsDir(d)) return s.NotADirectory(dir, d);
  for (auto it = s.durable_files.begin(); it != s.durable_files.end();) {
    it = Dirname(it->first) == d ? s.durable_files.erase(it) : std::next(it);
  }
  for (const auto& [path, file] : s.files) {
    if (Dirname(path) == d) s.durable_files.emplace(path, file);
  }
  for (auto it = s.durable_dirs.begin(); it != s.durable_dirs.end();) {
    it = Dirname(*it) == d ? s.durable_dirs.erase(it) : std::next(it);
  }
  for (const auto& [path, mtime] : s.dirs) {
    if (Dirname(path) == d) s.durable_dirs.insert(path);
  }
  return OkStatus();
}

}  // namespace inflow
