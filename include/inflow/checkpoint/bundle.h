// Copyright 2026 The inflow Authors.
//
// Tensor bundles: TensorFlow's V2 checkpoint format (docs/formats.md,
// "V2 checkpoints"). A bundle with prefix P is
//
//   P.index                    a table: "" -> header, name -> entry
//   P.data-00000-of-00001      the tensors' raw bytes, back to back
//
// TensorFlow reads what BundleWriter writes and BundleReader reads what
// TensorFlow writes (tf.train.Saver, tf.train.Checkpoint, estimators).
//
//   BundleWriter writer(prefix);
//   INFLOW_RETURN_IF_ERROR(writer.Add("dense/kernel", kernel));
//   INFLOW_RETURN_IF_ERROR(writer.Finish());
//
//   INFLOW_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader,
//                           BundleReader::Open(prefix));
//   INFLOW_RETURN_IF_ERROR(reader->ReadInto("dense/kernel", &kernel));

#ifndef INFLOW_CHECKPOINT_BUNDLE_H_
#define INFLOW_CHECKPOINT_BUNDLE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/result.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/io/env.h"

namespace inflow {

// "P.index".
std::string BundleIndexFilename(std::string_view prefix);
// "P.data-SSSSS-of-NNNNN" (both zero-padded to 5 digits).
std::string BundleDataFilename(std::string_view prefix, int shard,
                               int num_shards);

// One tensor's entry in the index.
struct BundleEntry {
  std::string name;
  DType dtype = DType::kInvalid;
  TensorShape shape;
  int32_t shard_id = 0;
  int64_t offset = 0;
  int64_t size = 0;
  uint32_t masked_crc32c = 0;
  // A partitioned tensor (TF's slices field): listed once, with its full
  // shape; its slices are stored under hidden keys (docs/formats.md,
  // "Partitioned tensors") and reading it assembles them. shard_id,
  // offset, size and masked_crc32c are then unused.
  bool partitioned = false;
};

struct BundleWriterOptions {
  Env* env = &Env::Default();
  // Zero bytes after each tensor up to a multiple of this (1: none, as
  // TF's Saver).
  int data_alignment = 1;
  // Sync the files before the renames that publish them, and the
  // directory after. Off only for benchmarks and tests that measure the
  // bytes: an unsynced bundle may be lost in a crash (never half-read).
  bool sync = true;
};

// Writes one bundle with one data shard. Files are written under
// temporary names in P's directory (created if missing) and renamed into
// place by Finish(): the data file first, then the index, then the
// directory is synced, so a crash never leaves a readable index without
// its data. Overwriting a bundle deletes its old index first, so a crash
// leaves the old bundle, the new one or none, never a mix. A writer that
// fails, or is destroyed before a successful Finish(), deletes its
// temporaries and publishes nothing. Not thread-safe.
class BundleWriter {
 public:
  explicit BundleWriter(std::string prefix, BundleWriterOptions options = {});
  ~BundleWriter();
  BundleWriter(const BundleWriter&) = delete;
  BundleWriter& operator=(const BundleWriter&) = delete;

  // Appends `tensor`'s bytes to the data file. Names are any non-empty
  // byte strings ("" is the header's key); a name added twice is
  // INVALID_ARGUMENT ("Adding duplicate key"). Entries may be added in any
  // order. The first error is returned again by every later call.
  [[nodiscard]] Status Add(std::string_view name, const Tensor& tensor);
  // Writes the index, syncs, renames into place. Idempotent once OK.
  [[nodiscard]] Status Finish();

  // Bytes of tensor data written so far.
  uint64_t data_bytes() const;
  const std::string& prefix() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

// Reads a bundle. Opening reads only the index; each read touches only
// the bytes of the tensor it reads, and checks their CRC32C. Errors:
// NOT_FOUND for a missing index or data file or an unknown name ("Key X
// not found in checkpoint"), DATA_LOSS naming the file and byte offset
// for damage, INVALID_ARGUMENT for a dtype or shape mismatch in
// ReadInto() or an incompatible version in the header. Thread-safe after
// Open().
class BundleReader {
 public:
  [[nodiscard]] static Result<std::unique_ptr<BundleReader>> Open(
      std::string prefix, Env* env = &Env::Default());
  ~BundleReader();

  const std::string& prefix() const;
  int num_shards() const;
  // Every tensor entry, in key order (unsigned bytewise), without the
  // hidden keys that hold partitioned tensors' slices (as TF's
  // CheckpointReader lists them).
  const std::vector<BundleEntry>& entries() const;
  // NOT_FOUND if absent.
  [[nodiscard]] Result<const BundleEntry*> Lookup(std::string_view name) const;

  // A new tensor holding the stored value.
  [[nodiscard]] Result<Tensor> Read(std::string_view name) const;
  // Writes the stored value into `*out`'s existing buffer without
  // reallocating; `out` must be initialized, writable and of the stored
  // dtype and shape (INVALID_ARGUMENT naming the tensor, both dtypes or
  // shapes otherwise). On error `*out` may hold part of the value.
  [[nodiscard]] Status ReadInto(std::string_view name, Tensor* out) const;

  // Reads every tensor and checks every CRC (partitioned tensors' slices
  // too, and that their slices fit together); the first damage found.
  [[nodiscard]] Status Verify() const;

 private:
  struct Rep;
  explicit BundleReader(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

// Merges single- or multi-shard bundles into one bundle at `merged_prefix`
// with one data shard per input shard, as TF's MergeBundles: the inputs'
// data files are renamed (not copied), their index files deleted. A name
// present in two inputs is INVALID_ARGUMENT.
[[nodiscard]] Status MergeBundles(Env& env,
                                  std::span<const std::string> prefixes,
                                  const std::string& merged_prefix);

}  // namespace inflow

#endif  // INFLOW_CHECKPOINT_BUNDLE_H_
