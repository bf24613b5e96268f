// Copyright 2026 The inflow Authors.
//
// The POSIX Env: pread for random access, a buffered writer that hands
// large appends to the kernel with writev (so a big record costs one system
// call and no extra copy), fsync for Sync.

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

#include "inflow/io/env.h"

namespace inflow {
namespace {

// ENOTDIR from a directory call: `path` or a component of it is a file.
Status NotADirectory(std::string_view context, const std::string& path) {
  return FailedPreconditionError(std::string(context) + " " + path +
                                 ": it or a directory in its path is not a "
                                 "directory");
}

Status IoError(std::string_view context, const std::string& path, int err) {
  std::string message =
      std::string(context) + " " + path + ": " + std::strerror(err);
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return NotFoundError(message);
    case EACCES:
    case EPERM:
    case EROFS:
      return PermissionDeniedError(message);
    case EEXIST:
      return AlreadyExistsError(message);
    case ENOSPC:
    case EDQUOT:
    case EMFILE:
    case ENFILE:
      return ResourceExhaustedError(message);
    case EISDIR:
    case ENAMETOOLONG:
    case EINVAL:
      return InvalidArgumentError(message);
    default:
      return UnavailableError(message);
  }
}

class PosixRandomAccessFile final : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string name, int fd)
      : name_(std::move(name)), fd_(fd) {}
  ~PosixRandomAccessFile() override { ::close(fd_); }

  Result<size_t> Read(uint64_t offset, size_t n, char* scratch) const override {
    while (true) {
      const ssize_t r = ::pread(fd_, scratch, n, static_cast<off_t>(offset));
      if (r >= 0) return static_cast<size_t>(r);
      if (errno == EINTR) continue;
      return IoError("read at offset " + std::to_string(offset) + " of", name_,
                     errno);
    }
  }
  const std::string& name() const override { return name_; }

 private:
  const std::string name_;
  const int fd_;
};

class PosixWritableFile final : public WritableFile {
 public:
  static constexpr size_t kBufferSize = 64 << 10;

  PosixWritableFile(std::string name, int fd)
      : name_(std::move(name)), fd_(fd), buffer_(new char[kBufferSize]) {}
  ~PosixWritableFile() override { Close().IgnoreError(); }

  Status Append(std::string_view data) override {
    if (fd_ < 0) return Closed();
    if (used_ + data.size() <= kBufferSize) {
      std::memcpy(buffer_.get() + used_, data.data(), data.size());
      used_ += data.size();
      return OkStatus();
    }
    if (data.size() < kBufferSize / 2) {
      INFLOW_RETURN_IF_ERROR(WriteAll({}));
      std::memcpy(buffer_.get(), data.data(), data.size());
      used_ = data.size();
      return OkStatus();
    }
    // Large: the buffered bytes and `data` go out in one writev, uncopied.
    return WriteAll(data);
  }

  Status Flush() override {
    if (fd_ < 0) return Closed();
    return WriteAll({});
  }

  Status Sync() override {
    if (fd_ < 0) return Closed();
    INFLOW_RETURN_IF_ERROR(WriteAll({}));
    if (::fdatasync(fd_) != 0) return IoError("fdatasync", name_, errno);
    return OkStatus();
  }

  Status Close() override {
    if (fd_ < 0) return OkStatus();
    Status s = WriteAll({});
    if (::close(fd_) != 0 && s.ok()) s = IoError("close", name_, errno);
    fd_ = -1;
    return s;
  }

  const std::string& name() const override { return name_; }

 private:
  Status Closed() const {
    return FailedPreconditionError("file " + name_ + " is closed");
  }

  // Writes the buffer, then `extra`, retrying short writes.
  Status WriteAll(std::string_view extra) {
    const char* a = buffer_.get();
    size_t an = used_;
    const char* b = extra.data();
    size_t bn = extra.size();
    while (an + bn > 0) {
      iovec iov[2];
      int count = 0;
      if (an > 0) iov[count++] = {const_cast<char*>(a), an};
      if (bn > 0) iov[count++] = {const_cast<char*>(b), bn};
      const ssize_t w = ::writev(fd_, iov, count);
      if (w < 0) {
        if (errno == EINTR) continue;
        return IoError("write", name_, errno);
      }
      size_t done = static_cast<size_t>(w);
      const size_t from_a = std::min(done, an);
      a += from_a;
      an -= from_a;
      done -= from_a;
      b += done;
      bn -= done;
    }
    used_ = 0;
    return OkStatus();
  }

  const std::string name_;
  int fd_;
  std::unique_ptr<char[]> buffer_;
  size_t used_ = 0;
};

class PosixEnv final : public Env {
 public:
  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return IoError("open", path, errno);
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd);
      return IoError("open", path, EISDIR);
    }
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<PosixRandomAccessFile>(path, fd));
  }

  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    return OpenForWrite(path, O_TRUNC);
  }

  Result<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override {
    return OpenForWrite(path, O_APPEND);
  }

  Result<uint64_t> GetFileSize(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return IoError("stat", path, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  Status FileExists(const std::string& path) override {
    if (::access(path.c_str(), F_OK) != 0)
      return IoError("access", path, errno);
    return OkStatus();
  }

  Status DeleteFile(const std::string& path) override {
    if (::unlink(path.c_str()) != 0) return IoError("unlink", path, errno);
    return OkStatus();
  }

  Status RenameFile(const std::string& from, const std::string& to) override {
    if (::rename(from.c_str(), to.c_str()) != 0) {
      return IoError("rename to " + to + " from", from, errno);
    }
    return OkStatus();
  }

  Status CreateDir(const std::string& path) override {
    if (::mkdir(path.c_str(), 0755) == 0) return OkStatus();
    const int err = errno;
    if (err == EEXIST) return IsDirectory(path);
    if (err == ENOTDIR) return NotADirectory("mkdir", path);
    return IoError("mkdir", path, err);
  }

  Status DeleteDir(const std::string& path) override {
    if (::rmdir(path.c_str()) == 0) return OkStatus();
    const int err = errno;
    if (err == ENOTEMPTY || err == EEXIST) {
      return FailedPreconditionError("rmdir " + path + ": directory not empty");
    }
    if (err == ENOTDIR) return NotADirectory("rmdir", path);
    return IoError("rmdir", path, err);
  }

  Status IsDirectory(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) {
      if (errno == ENOTDIR) return NotADirectory("stat", path);
      return IoError("stat", path, errno);
    }
    if (!S_ISDIR(st.st_mode)) {
      return FailedPreconditionError(path + " is not a directory");
    }
    return OkStatus();
  }

  Result<double> GetModificationTime(const std::string& path) override {
    struct stat st;
    if (::stat(path.c_str(), &st) != 0) return IoError("stat", path, errno);
    return static_cast<double>(st.st_mtim.tv_sec) +
           static_cast<double>(st.st_mtim.tv_nsec) * 1e-9;
  }

  Result<std::vector<std::string>> GetChildren(
      const std::string& dir) override {
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return IoError("opendir", dir, errno);
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d)) {
      const std::string_view name(e->d_name);
      if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    return names;
  }

  Status SyncDir(const std::string& dir) override {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return IoError("open directory", dir, errno);
    Status s;
    if (::fsync(fd) != 0) s = IoError("fsync directory", dir, errno);
    ::close(fd);
    return s;
  }

 private:
  Result<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path,
                                                     int mode) {
    const int fd =
        ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | mode, 0644);
    if (fd < 0) return IoError("open for writing", path, errno);
    return std::unique_ptr<WritableFile>(
        std::make_unique<PosixWritableFile>(path, fd));
  }
};

}  // namespace

Env& Env::Default() {
  static PosixEnv* env = new PosixEnv();  // never destroyed
  return *env;
}

}  // namespace inflow
