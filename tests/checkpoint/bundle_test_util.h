// Copyright 2026 The inflow Authors.
//
// Helpers for the bundle tests: tensors of every dtype with distinct
// values, a scratch directory, and an Env wrapper that counts the bytes
// read from each file.

#ifndef INFLOW_TESTS_CHECKPOINT_BUNDLE_TEST_UTIL_H_
#define INFLOW_TESTS_CHECKPOINT_BUNDLE_TEST_UTIL_H_

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>

#include "inflow/core/mutex.h"
#include "inflow/core/tensor.h"
#include "inflow/io/env.h"

namespace inflow::testing {

// "prefix" + i, spelled so that gcc 12's -Wrestrict false positive on
// short literal + std::to_string stays quiet.
inline std::string Indexed(std::string prefix, size_t i) {
  prefix += std::to_string(i);
  return prefix;
}

// Every DType a Tensor can hold.
inline constexpr DType kAllDTypes[] = {
    DType::kFloat32, DType::kFloat64,  DType::kInt32,  DType::kUInt8,
    DType::kInt16,   DType::kInt8,     DType::kString, DType::kInt64,
    DType::kBool,    DType::kBFloat16, DType::kUInt16, DType::kFloat16,
    DType::kUInt32,  DType::kUInt64};

// A tensor whose every byte (or string) depends on `seed` and its index;
// bools are 0 or 1.
inline Tensor PatternTensor(DType dtype, TensorShape shape, int seed) {
  Tensor t(dtype, std::move(shape));
  if (dtype == DType::kString) {
    std::span<std::string> s = t.mutable_flat<std::string>().value();
    for (size_t i = 0; i < s.size(); ++i) {
      s[i] = std::string(i % 5, static_cast<char>('a' + (seed + i) % 26));
    }
    return t;
  }
  auto* p = static_cast<unsigned char*>(t.mutable_raw_data().value());
  for (size_t i = 0; i < t.num_bytes(); ++i) {
    p[i] = dtype == DType::kBool ? (i + seed) % 2
                                 : static_cast<unsigned char>(i * 7 + seed);
  }
  return t;
}

// A fresh directory under the system's temp dir, removed on destruction.
class ScratchDir {
 public:
  ScratchDir() {
    std::random_device rd;
    path_ =
        std::filesystem::temp_directory_path() /
        ("inflow_bundle_test_" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Path(const std::string& name) const {
    return (path_ / name).string();
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// Forwards to `base`, counting the bytes Read() returns per file name.
// Thread-safe.
class CountingEnv final : public Env {
 public:
  explicit CountingEnv(Env* base) : base_(base) {}

  uint64_t BytesRead(const std::string& path) {
    MutexLock lock(&mu_);
    return read_[path];
  }

  Result<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<RandomAccessFile> file,
                            base_->NewRandomAccessFile(path));
    return std::unique_ptr<RandomAccessFile>(
        std::make_unique<CountingFile>(this, std::move(file)));
  }
  Result<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    return base_->NewWritableFile(path);
  }
  Result<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override {
    return base_->NewAppendableFile(path);
  }
  Result<uint64_t> GetFileSize(const std::string& path) override {
    return base_->GetFileSize(path);
  }
  Status FileExists(const std::string& path) override {
    return base_->FileExists(path);
  }
  Status DeleteFile(const std::string& path) override {
    return base_->DeleteFile(path);
  }
  Status RenameFile(const std::string& from, const std::string& to) override {
    return base_->RenameFile(from, to);
  }
  Status CreateDir(const std::string& path) override {
    return base_->CreateDir(path);
  }
  Result<std::vector<std::string>> GetChildren(
      const std::string& dir) override {
    return base_->GetChildren(dir);
  }
  Status SyncDir(const std::string& dir) override {
    return base_->SyncDir(dir);
  }
  Status DeleteDir(const std::string& path) override {
    return base_->DeleteDir(path);
  }
  Status IsDirectory(const std::string& path) override {
    return base_->IsDirectory(path);
  }
  Result<double> GetModificationTime(const std::string& path) override {
    return base_->GetModificationTime(path);
  }

 private:
  class CountingFile final : public RandomAccessFile {
   public:
    CountingFile(CountingEnv* env, std::unique_ptr<RandomAccessFile> base)
        : env_(env), base_(std::move(base)) {}
    Result<size_t> Read(uint64_t offset, size_t n,
                        char* scratch) const override {
      Result<size_t> got = base_->Read(offset, n, scratch);
      if (got.ok()) {
        MutexLock lock(&env_->mu_);
        env_->read_[base_->name()] += *got;
      }
      return got;
    }
    const std::string& name() const override { return base_->name(); }

   private:
    CountingEnv* env_;
    std::unique_ptr<RandomAccessFile> base_;
  };

  Env* base_;
  Mutex mu_;
  std::map<std::string, uint64_t> read_ INFLOW_GUARDED_BY(mu_);
};

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_CHECKPOINT_BUNDLE_TEST_UTIL_H_
