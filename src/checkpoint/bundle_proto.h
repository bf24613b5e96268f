// Copyright 2026 The inflow Authors.
//
// The protobuf messages of a bundle's index, encoded and decoded by hand
// (docs/formats.md, "Index entries"): BundleHeaderProto under the key ""
// and BundleEntryProto under every tensor name, with the TensorShapeProto,
// TensorSliceProto and VersionDef inside them. Encoding follows proto3
// (zero scalars omitted) and writes the shape even for scalars, as TF
// does. Decoding follows libprotobuf: unknown fields and fields of an
// unexpected wire type are skipped, a repeated scalar field may be packed
// or not, a scalar seen twice keeps the last value and a sub-message seen
// twice is merged.
//
// Internal to the checkpoint component. Pure functions.

#ifndef INFLOW_CHECKPOINT_BUNDLE_PROTO_H_
#define INFLOW_CHECKPOINT_BUNDLE_PROTO_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/checkpoint/bundle.h"
#include "inflow/core/status.h"

namespace inflow::internal {

inline constexpr int32_t kBundleLittleEndian = 0;
inline constexpr int32_t kBundleBigEndian = 1;
// The version this library writes and the range it reads (TF's
// kTensorBundleVersion, kTensorBundleMinProducer, kTensorBundleMinConsumer).
inline constexpr int32_t kBundleVersion = 1;
inline constexpr int32_t kBundleMinProducer = 0;
inline constexpr int32_t kBundleMinConsumer = 0;

struct BundleHeader {
  int32_t num_shards = 0;
  int32_t endianness = kBundleLittleEndian;
  // VersionDef.
  int32_t producer = 0;
  int32_t min_consumer = 0;
  std::vector<int32_t> bad_consumers;
};

// One dimension of a TensorSliceProto: [start, start + length), or the
// whole dimension when length is kFullExtent (the proto's length unset).
inline constexpr int64_t kFullExtent = -1;
struct SliceExtent {
  int64_t start = 0;
  int64_t length = kFullExtent;
  friend bool operator==(const SliceExtent&, const SliceExtent&) = default;
};

// A BundleEntryProto as stored: the public entry plus what it cannot hold.
struct StoredEntry {
  BundleEntry entry;  // entry.name is not part of the message
  // The DataType number; entry.dtype is kInvalid when inflow has no such
  // type.
  int32_t dtype_enum = 0;
  // Serialized TensorSliceProto messages, kept as they were, and decoded
  // (one extent per dimension each).
  std::vector<std::string> slices;
  std::vector<std::vector<SliceExtent>> slice_extents;
};

std::string EncodeBundleHeader(const BundleHeader& header);
// DATA_LOSS when `bytes` is not a BundleHeaderProto.
Status DecodeBundleHeader(std::string_view bytes, BundleHeader* header);
// INVALID_ARGUMENT when this library may not read a bundle of this
// version (VersionDef rules: producer too old, min_consumer too new, or
// this version listed as bad).
Status CheckBundleVersion(const BundleHeader& header);

std::string EncodeBundleEntry(const StoredEntry& stored);
// DATA_LOSS when `bytes` is not a BundleEntryProto or its shape is
// invalid (a negative dimension, unknown rank, too many elements).
Status DecodeBundleEntry(std::string_view bytes, StoredEntry* stored);

// A TensorSliceProto (an extent's start and length are written when not
// zero and not full, as TF's TensorSlice::AsProto).
std::string EncodeTensorSlice(std::span<const SliceExtent> extents);
// DATA_LOSS when `bytes` is not a TensorSliceProto.
Status DecodeTensorSlice(std::string_view bytes,
                         std::vector<SliceExtent>* extents);

// The key under which a partitioned tensor's slice is stored, hidden from
// listings (TF's checkpoint::EncodeTensorNameSlice, docs/formats.md,
// "Partitioned tensors"): OrderedCode's NumIncreasing(0), String(name),
// NumIncreasing(rank), then SignedNumIncreasing(start) and
// SignedNumIncreasing(length, -1 for a full extent) per dimension.
std::string EncodeTensorNameSlice(std::string_view name,
                                  std::span<const SliceExtent> extents);

}  // namespace inflow::internal

#endif  // INFLOW_CHECKPOINT_BUNDLE_PROTO_H_
