// Copyright 2026 The inflow Authors.

#include "inflow/io/mem_env.h"

#include <chrono>
#include <utility>

#include "io/path.h"
#include "mem_env_state.h"

namespace inflow {

using internal::Dirname;
using internal::MemEnvKey;
using internal::MemFile;
using internal::WallTime;

namespace internal {

double WallTime() {
  return std::chrono::duration<double>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string MemEnvKey(std::string_view path) {
  std::string p = NormalizePath(path);
  if (p == ".") p.clear();
  return p;
}

}  // namespace internal

namespace {

bool IsRoot(const std::string& path) { return path.empty() || path == "/"; }

Status Missing(const std::string& path) {
  return NotFoundError(path + " not found");
}

}  // namespace

std::string_view MemEnvOpName(MemEnvOp op) {
  switch (op) {
    case MemEnvOp::kNewWritableFile:
      return "NewWritableFile";
    case MemEnvOp::kNewAppendableFile:
      return "NewAppendableFile";
    case MemEnvOp::kAppend:
      return "Append";
    case MemEnvOp::kFlush:
      return "Flush";
    case MemEnvOp::kSync:
      return "Sync";
    case MemEnvOp::kClose:
      return "Close";
    case MemEnvOp::kRenameFile:
      return "RenameFile";
    case MemEnvOp::kDeleteFile:
      return "DeleteFile";
    case MemEnvOp::kCreateDir:
      return "CreateDir";
    case MemEnvOp::kDeleteDir:
      return "DeleteDir";
    case MemEnvOp::kSyncDir:
      return "SyncDir";
  }
  return "?";
}

// --- State. ---

Status MemEnv::State::Mutate(MemEnvOp op, std::string_view path,
                             std::string_view to, int64_t bytes) {
  const uint64_t n = ++mutations;
  Status fault;
  if (dead) {
    fault = fail_error;
  } else if (fail_at == n) {
    fault = fail_error;
    dead = fail_mode == kSticky;
    fail_at = 0;
  } else if (auto it = next_faults.find(op); it != next_faults.end()) {
    fault = std::move(it->second);
    next_faults.erase(it);
  }
  if (!log_on && fault.ok()) return OkStatus();
  std::string what(MemEnvOpName(op));
  if (bytes >= 0)
    what.append(" ").append(std::to_string(bytes)).append(" bytes to");
  what.append(" ").append(path);
  if (!to.empty()) what.append(" -> ").append(to);
  if (log_on) log.push_back(what);
  if (fault.ok()) return OkStatus();
  return fault.WithContext("injected at mutating call " + std::to_string(n) +
                           " (" + what + ")");
}

bool MemEnv::State::IsDir(const std::string& path) const {
  return IsRoot(path) || dirs.count(path) > 0;
}

std::optional<std::string> MemEnv::State::FileAncestor(
    const std::string& path) const {
  for (std::string p = Dirname(path); !IsRoot(p); p = Dirname(p)) {
    if (files.count(p) > 0) return p;
  }
  return std::nullopt;
}

void MemEnv::State::MakeParents(const std::string& path, double now) {
  for (std::string p = Dirname(path); !IsRoot(p); p = Dirname(p)) {
    if (!dirs.emplace(p, now).second) break;
    durable_dirs.insert(p);
  }
}

void MemEnv::State::Touch(const std::string& dir, double now) {
  auto it = dirs.find(dir);
  if (it != dirs.end()) it->second = now;
}

// --- Faults. ---

MemEnv::MemEnv() : state_(std::make_shared<State>()) {}
MemEnv::~MemEnv() = default;

void MemEnv::SetMaxReadChunk(size_t n) {
  MutexLock lock(&state_->mu);
  state_->max_read_chunk = n;
}

void MemEnv::InjectReadError(const std::string& path, uint64_t offset,
                             Status error) {
  MutexLock lock(&state_->mu);
  state_->read_faults[path] = {offset, std::move(error)};
}

void MemEnv::InjectWriteError(const std::string& path, uint64_t offset,
                              Status error) {
  MutexLock lock(&state_->mu);
  state_->write_faults[path] = {offset, std::move(error)};
}

uint64_t MemEnv::mutation_count() const {
  MutexLock lock(&state_->mu);
  return state_->mutations;
}

void MemEnv::FailMutation(uint64_t n, Status error, FaultMode mode) {
  MutexLock lock(&state_->mu);
  state_->fail_at = n == 0 ? 0 : state_->mutations + n;
  state_->fail_error = std::move(error);
  state_->fail_mode = mode;
}

void MemEnv::FailNext(MemEnvOp op, Status error) {
  MutexLock lock(&state_->mu);
  state_->next_faults[op] = std::move(error);
}

void MemEnv::set_log_mutations(bool on) {
  MutexLock lock(&state_->mu);
  state_->log_on = on;
}

std::vector<std::string> MemEnv::mutation_log() const {
  MutexLock lock(&state_->mu);
  return state_->log;
}

void MemEnv::ClearFaults() {
  MutexLock lock(&state_->mu);
  state_->max_read_chunk = 0;
  state_->read_faults.clear();
  state_->write_faults.clear();
  state_->fail_at = 0;
  state_->dead = false;
  state_->next_faults.clear();
}

// --- The crash model. ---

void MemEnv::SimulateCrash() {
  State& s = *state_;
  MutexLock lock(&s.mu);
  const double now = WallTime();
  // A directory survives if its parent did and its own entry was synced;
  // parents sort before their children.
  std::map<std::string, double> dirs;
  for (const std::string& d : s.durable_dirs) {
    if (!IsRoot(Dirname(d)) && dirs.count(Dirname(d)) == 0) continue;
    auto live = s.dirs.find(d);
    dirs.emplace(d, live == s.dirs.end() ? now : live->second);
  }
  std::map<std::string, std::shared_ptr<MemFile>> files;
  for (const auto& [path, file] : s.durable_files) {
    const std::string parent = Dirname(path);
    if (!IsRoot(parent) && dirs.count(parent) == 0) continue;
    file->data.resize(file->synced);
    files.emplace(path, file);
  }
  s.dirs = std::move(dirs);
  s.files = std::move(files);
  s.durable_dirs.clear();
  for (const auto& [d, mtime] : s.dirs) s.durable_dirs.insert(d);
  s.durable_files = s.files;
  ++s.generation;
}

Result<std::string> MemEnv::Contents(const std::string& path) {
  MutexLock lock(&state_->mu);
  auto it = state_->files.find(MemEnvKey(path));
  if (it == state_->files.end()) return Missing(path);
  return it->second->data;
}

// --- Env: files. ---

Result<std::unique_ptr<RandomAccessFile>> MemEnv::NewRandomAccessFile(
    const std::string& path) {
  MutexLock lock(&state_->mu);
  auto it = state_->files.find(MemEnvKey(path));
  if (it == state_->files.end()) return Missing(path);
  return internal::NewMemRandomAccessFile(path, state_, it->second);
}

Result<std::unique_ptr<WritableFile>> MemEnv::NewWritableFile(
    const std::string& path) {
  return OpenForWrite(path, /*truncate=*/true);
}

Result<std::unique_ptr<WritableFile>> MemEnv::NewAppendableFile(
    const std::string& path) {
  return OpenForWrite(path, /*truncate=*/false);
}

Result<std::unique_ptr<WritableFile>> MemEnv::OpenForWrite(
    const std::string& path, bool truncate) {
  State& s = *state_;
  MutexLock lock(&s.mu);
  const std::string p = MemEnvKey(path);
  INFLOW_RETURN_IF_ERROR(s.Mutate(
      truncate ? MemEnvOp::kNewWritableFile : MemEnvOp::kNewAppendableFile, p));
  if (s.IsDir(p)) return InvalidArgumentError(path + " is a directory");
  if (auto file = s.FileAncestor(p)) {
    return NotFoundError("cannot create " + path + ": " + *file +
                         " is not a directory");
  }
  const double now = WallTime();
  std::shared_ptr<MemFile>& file = s.files[p];
  if (file == nullptr) {
    file = std::make_shared<MemFile>();
    file->mtime = now;
    s.MakeParents(p, now);
    s.Touch(Dirname(p), now);
  } else if (truncate) {
    // The same file, emptied: a crash before the next Sync leaves it empty.
    file->data.clear();
    file->synced = 0;
    file->mtime = now;
  }
  return internal::NewMemWritableFile(path, state_, file, s.generation);
}

Result<uint64_t> MemEnv::GetFileSize(const std::string& path) {
  MutexLock lock(&state_->mu);
  auto it = state_->files.find(MemEnvKey(path));
  if (it == state_->files.end()) return Missing(path);
  return static_cast<uint64_t>(it->second->data.size());
}

Status MemEnv::FileExists(const std::string& path) {
  MutexLock lock(&state_->mu);
  const std::string p = MemEnvKey(path);
  if (state_->files.count(p) > 0 || state_->IsDir(p)) return OkStatus();
  return Missing(path);
}

Status MemEnv::DeleteFile(const std::string& path) {
  State& s = *state_;
  MutexLock lock(&s.mu);
  const std::string p = MemEnvKey(path);
  INFLOW_RETURN_IF_ERROR(s.Mutate(MemEnvOp::kDeleteFile, p));
  if (s.IsDir(p)) return InvalidArgumentError(path + " is a directory");
  if (s.files.erase(p) == 0) return Missing(path);
  s.Touch(Dirname(p), WallTime());
  return OkStatus();
}

Status MemEnv::RenameFile(const std::string& from, const std::string& to) {
  State& s = *state_;
  MutexLock lock(&s.mu);
  const std::string f = MemEnvKey(from);
  const std::string t = MemEnvKey(to);
  INFLOW_RETURN_IF_ERROR(s.Mutate(MemEnvOp::kRenameFile, f, t));
  if (s.IsDir(f)) {
    return UnimplementedError("MemEnv renames files only, not the directory " +
                              from);
  }
  auto it = s.files.find(f);
  if (it == s.files.end()) return Missing(from);
  if (s.IsDir(t)) return InvalidArgumentError(to + " is a directory");
  if (auto file = s.FileAncestor(t)) {
    return NotFoundError("cannot rename to " + to + ": " + *file +
                         " is not a directory");
  }
  if (f == t) return OkStatus();
  std::shared_ptr<MemFile> file = std::move(it->second);
  s.files.erase(it);
  const double now = WallTime();
  s.MakeParents(t, now);
  s.files[t] = std::move(file);
  s.Touch(Dirname(f), now);
  s.Touch(Dirname(t), now);
  return OkStatus();
}

}  // namespace inflow
