// Copyright 2026 The inflow Authors.

#include "checkpoint/bundle_proto.h"

#include <string>

#include "inflow/core/dtype.h"
#include "inflow/core/tensor_shape.h"

#include "checkpoint/proto_wire.h"

namespace inflow::internal {
namespace {

// Field numbers (tensor_bundle.proto, tensor_shape.proto, versions.proto).
constexpr uint32_t kHeaderNumShards = 1;
constexpr uint32_t kHeaderEndianness = 2;
constexpr uint32_t kHeaderVersion = 3;
constexpr uint32_t kVersionProducer = 1;
constexpr uint32_t kVersionMinConsumer = 2;
constexpr uint32_t kVersionBadConsumers = 3;
constexpr uint32_t kEntryDtype = 1;
constexpr uint32_t kEntryShape = 2;
constexpr uint32_t kEntryShardId = 3;
constexpr uint32_t kEntryOffset = 4;
constexpr uint32_t kEntrySize = 5;
constexpr uint32_t kEntryCrc32c = 6;
constexpr uint32_t kEntrySlices = 7;
constexpr uint32_t kShapeDim = 2;
constexpr uint32_t kShapeUnknownRank = 3;
constexpr uint32_t kDimSize = 1;
constexpr uint32_t kSliceExtent = 1;
constexpr uint32_t kExtentStart = 1;
constexpr uint32_t kExtentLength = 2;

// Calls `on_field(field, type, reader)` for every field; it consumes the
// value and returns false for malformed input, or returns true without
// consuming anything to have the field skipped.
template <typename OnField>
bool ForEachField(std::string_view bytes, OnField on_field) {
  ProtoReader reader(bytes);
  while (!reader.done()) {
    uint32_t field;
    WireType type;
    if (!reader.ReadTag(&field, &type)) return false;
    bool consumed = false;
    if (!on_field(field, type, reader, &consumed)) return false;
    if (!consumed && !reader.SkipField(field, type)) return false;
  }
  return true;
}

// An int32 field: libprotobuf keeps the low 32 bits of the varint.
bool ReadInt32(ProtoReader& reader, int32_t* out) {
  uint64_t v;
  if (!reader.ReadVarint(&v)) return false;
  *out = static_cast<int32_t>(static_cast<uint32_t>(v));
  return true;
}

bool ReadInt64(ProtoReader& reader, int64_t* out) {
  uint64_t v;
  if (!reader.ReadVarint(&v)) return false;
  *out = static_cast<int64_t>(v);
  return true;
}

bool DecodeVersion(std::string_view bytes, BundleHeader* header) {
  return ForEachField(bytes, [&](uint32_t field, WireType type, ProtoReader& r,
                                 bool* consumed) {
    if (field == kVersionProducer && type == WireType::kVarint) {
      *consumed = true;
      return ReadInt32(r, &header->producer);
    }
    if (field == kVersionMinConsumer && type == WireType::kVarint) {
      *consumed = true;
      return ReadInt32(r, &header->min_consumer);
    }
    if (field == kVersionBadConsumers && type == WireType::kVarint) {
      *consumed = true;
      int32_t v;
      if (!ReadInt32(r, &v)) return false;
      header->bad_consumers.push_back(v);
      return true;
    }
    if (field == kVersionBadConsumers && type == WireType::kLen) {
      *consumed = true;
      std::string_view packed;
      if (!r.ReadLengthDelimited(&packed)) return false;
      ProtoReader values(packed);
      while (!values.done()) {
        int32_t v;
        if (!ReadInt32(values, &v)) return false;
        header->bad_consumers.push_back(v);
      }
      return true;
    }
    return true;
  });
}

bool DecodeShape(std::string_view bytes, std::vector<int64_t>* dims,
                 bool* unknown_rank) {
  return ForEachField(bytes, [&](uint32_t field, WireType type, ProtoReader& r,
                                 bool* consumed) {
    if (field == kShapeDim && type == WireType::kLen) {
      *consumed = true;
      std::string_view dim;
      if (!r.ReadLengthDelimited(&dim)) return false;
      int64_t size = 0;
      const bool ok = ForEachField(
          dim, [&](uint32_t f, WireType t, ProtoReader& d, bool* used) {
            if (f != kDimSize || t != WireType::kVarint) return true;
            *used = true;
            return ReadInt64(d, &size);
          });
      dims->push_back(size);
      return ok;
    }
    if (field == kShapeUnknownRank && type == WireType::kVarint) {
      *consumed = true;
      uint64_t v;
      if (!r.ReadVarint(&v)) return false;
      *unknown_rank = v != 0;
      return true;
    }
    return true;
  });
}

}  // namespace

std::string EncodeBundleHeader(const BundleHeader& header) {
  std::string version;
  PutVarintField(&version, kVersionProducer, header.producer);
  PutVarintField(&version, kVersionMinConsumer, header.min_consumer);
  if (!header.bad_consumers.empty()) {
    std::string packed;
    for (int32_t v : header.bad_consumers) {
      PutVarint64(&packed, static_cast<uint64_t>(int64_t{v}));
    }
    PutMessageField(&version, kVersionBadConsumers, packed);
  }
  std::string out;
  PutVarintField(&out, kHeaderNumShards, header.num_shards);
  PutVarintField(&out, kHeaderEndianness, header.endianness);
  PutMessageField(&out, kHeaderVersion, version);
  return out;
}

Status DecodeBundleHeader(std::string_view bytes, BundleHeader* header) {
  *header = BundleHeader();
  const bool ok = ForEachField(bytes, [&](uint32_t field, WireType type,
                                          ProtoReader& r, bool* consumed) {
    if (field == kHeaderNumShards && type == WireType::kVarint) {
      *consumed = true;
      return ReadInt32(r, &header->num_shards);
    }
    if (field == kHeaderEndianness && type == WireType::kVarint) {
      *consumed = true;
      return ReadInt32(r, &header->endianness);
    }
    if (field == kHeaderVersion && type == WireType::kLen) {
      *consumed = true;
      std::string_view version;
      return r.ReadLengthDelimited(&version) && DecodeVersion(version, header);
    }
    return true;
  });
  if (!ok) return DataLossError("malformed BundleHeaderProto");
  return OkStatus();
}

Status CheckBundleVersion(const BundleHeader& header) {
  if (header.producer < kBundleMinProducer) {
    return InvalidArgumentError(
        "checkpoint producer version " + std::to_string(header.producer) +
        " below min producer " + std::to_string(kBundleMinProducer) +
        " supported by this library");
  }
  if (header.min_consumer > kBundleVersion) {
    return InvalidArgumentError("checkpoint min consumer version " +
                                std::to_string(header.min_consumer) +
                                " above current version " +
                                std::to_string(kBundleVersion));
  }
  for (int32_t bad : header.bad_consumers) {
    if (bad == kBundleVersion) {
      return InvalidArgumentError("checkpoint disallows consumer version " +
                                  std::to_string(bad));
    }
  }
  return OkStatus();
}

std::string EncodeBundleEntry(const StoredEntry& stored) {
  const BundleEntry& e = stored.entry;
  std::string shape;
  for (int64_t size : e.shape.dims()) {
    std::string dim;
    PutVarintField(&dim, kDimSize, size);
    PutMessageField(&shape, kShapeDim, dim);
  }
  std::string out;
  PutVarintField(&out, kEntryDtype, stored.dtype_enum);
  PutMessageField(&out, kEntryShape, shape);
  PutVarintField(&out, kEntryShardId, e.shard_id);
  PutVarintField(&out, kEntryOffset, e.offset);
  PutVarintField(&out, kEntrySize, e.size);
  PutFixed32Field(&out, kEntryCrc32c, e.masked_crc32c);
  for (const std::string& slice : stored.slices) {
    PutMessageField(&out, kEntrySlices, slice);
  }
  return out;
}

Status DecodeBundleEntry(std::string_view bytes, StoredEntry* stored) {
  std::string name = std::move(stored->entry.name);
  *stored = StoredEntry();
  stored->entry.name = std::move(name);
  BundleEntry& e = stored->entry;
  std::vector<int64_t> dims;
  bool unknown_rank = false;
  const bool ok = ForEachField(bytes, [&](uint32_t field, WireType type,
                                          ProtoReader& r, bool* consumed) {
    if (type == WireType::kVarint) {
      switch (field) {
        case kEntryDtype:
          *consumed = true;
          return ReadInt32(r, &stored->dtype_enum);
        case kEntryShardId:
          *consumed = true;
          return ReadInt32(r, &e.shard_id);
        case kEntryOffset:
          *consumed = true;
          return ReadInt64(r, &e.offset);
        case kEntrySize:
          *consumed = true;
          return ReadInt64(r, &e.size);
        default:
          return true;
      }
    }
    if (field == kEntryCrc32c && type == WireType::kFixed32) {
      *consumed = true;
      return r.ReadFixed32(&e.masked_crc32c);
    }
    if (field == kEntryShape && type == WireType::kLen) {
      *consumed = true;
      std::string_view shape;
      return r.ReadLengthDelimited(&shape) &&
             DecodeShape(shape, &dims, &unknown_rank);
    }
    if (field == kEntrySlices && type == WireType::kLen) {
      *consumed = true;
      std::string_view slice;
      if (!r.ReadLengthDelimited(&slice)) return false;
      stored->slices.emplace_back(slice);
      stored->slice_extents.emplace_back();
      return DecodeTensorSlice(slice, &stored->slice_extents.back()).ok();
    }
    return true;
  });
  if (!ok) return DataLossError("malformed BundleEntryProto");
  if (unknown_rank) return DataLossError("entry's shape has unknown rank");
  for (int64_t d : dims) {
    if (d < 0) {
      return DataLossError("entry's shape has a negative dimension (" +
                           std::to_string(d) + ")");
    }
  }
  Result<TensorShape> shape = TensorShape::FromDims(dims);
  if (!shape.ok()) {
    return DataLossError("entry's shape is invalid: " +
                         std::string(shape.status().message()));
  }
  e.shape = std::move(shape).value();
  const std::optional<DType> dtype = DTypeFromEnum(stored->dtype_enum);
  e.dtype = dtype ? *dtype : DType::kInvalid;
  e.partitioned = !stored->slices.empty();
  return OkStatus();
}

std::string EncodeTensorSlice(std::span<const SliceExtent> extents) {
  std::string out;
  for (const SliceExtent& x : extents) {
    std::string extent;
    PutVarintField(&extent, kExtentStart, x.start);
    if (x.length != kFullExtent) {
      PutVarintField(&extent, kExtentLength, x.length);
    }
    PutMessageField(&out, kSliceExtent, extent);
  }
  return out;
}

Status DecodeTensorSlice(std::string_view bytes,
                         std::vector<SliceExtent>* extents) {
  extents->clear();
  const bool ok = ForEachField(bytes, [&](uint32_t field, WireType type,
                                          ProtoReader& r, bool* consumed) {
    if (field != kSliceExtent || type != WireType::kLen) return true;
    *consumed = true;
    std::string_view bytes;
    if (!r.ReadLengthDelimited(&bytes)) return false;
    SliceExtent x;
    const bool extent_ok = ForEachField(
        bytes, [&](uint32_t f, WireType t, ProtoReader& e, bool* used) {
          if (t != WireType::kVarint) return true;
          if (f == kExtentStart) {
            *used = true;
            return ReadInt64(e, &x.start);
          }
          if (f == kExtentLength) {
            *used = true;
            return ReadInt64(e, &x.length);
          }
          return true;
        });
    extents->push_back(x);
    return extent_ok;
  });
  if (!ok) return DataLossError("malformed TensorSliceProto");
  return OkStatus();
}

namespace {

// OrderedCode (TF's lib/strings/ordered_code): encodings whose bytewise
// order is the order of the values.
void WriteNumIncreasing(std::string* out, uint64_t v) {
  char buf[8];
  int n = 0;
  for (; v > 0; v >>= 8) buf[7 - n++] = static_cast<char>(v & 0xff);
  out->push_back(static_cast<char>(n));
  out->append(buf + 8 - n, static_cast<size_t>(n));
}

void WriteString(std::string* out, std::string_view s) {
  for (char c : s) {
    out->push_back(c);
    if (c == '\x00') out->push_back('\xff');
    if (c == '\xff') out->push_back('\x00');
  }
  out->append("\x00\x01", 2);
}

// A length byte prefix in unary (the first `len` bits set, then a zero),
// then the value in two's complement, big-endian, in 7 * len - 1 bits.
void WriteSignedNumIncreasing(std::string* out, int64_t v) {
  const uint64_t x =
      v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  // Significant bits of x, plus the sign bit, in 7-bit groups.
  int bits = 0;
  while (bits < 64 && (x >> bits) != 0) ++bits;
  const int len = bits == 0 ? 1 : (bits + 1 + 6) / 7;
  unsigned char buf[10];
  const unsigned char sign = v < 0 ? 0xff : 0x00;
  buf[0] = sign;
  buf[1] = sign;
  for (int i = 0; i < 8; ++i) {
    buf[2 + i] =
        static_cast<unsigned char>(static_cast<uint64_t>(v) >> (8 * (7 - i)));
  }
  unsigned char* begin = buf + 10 - len;
  // The header: `len` one bits from the top, xor'ed in (a negative value's
  // leading ones become zeros).
  for (int i = 0; i < len; ++i) {
    begin[i / 8] ^= static_cast<unsigned char>(0x80u >> (i % 8));
  }
  out->append(reinterpret_cast<const char*>(begin), static_cast<size_t>(len));
}

}  // namespace

std::string EncodeTensorNameSlice(std::string_view name,
                                  std::span<const SliceExtent> extents) {
  std::string out;
  WriteNumIncreasing(&out, 0);
  WriteString(&out, name);
  WriteNumIncreasing(&out, extents.size());
  for (const SliceExtent& x : extents) {
    WriteSignedNumIncreasing(&out, x.start);
    WriteSignedNumIncreasing(&out, x.length);
  }
  return out;
}

}  // namespace inflow::internal
