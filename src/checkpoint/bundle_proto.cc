// Copyright 2026 The inflow Authors.

#include "checkpoint/bundle_proto.h"

#include <string>

#include "inflow/core/dtype.h"
#include "inflow/core/tensor_shape.h"

#include "proto/tf_schema.h"
#include "proto/wire.h"

namespace inflow::internal {
namespace {

// Field numbers (tensor_bundle.proto, tensor_slice.proto; the shape and
// the VersionDef inside them are proto/tf_schema.h's).
constexpr uint32_t kHeaderNumShards = 1;
constexpr uint32_t kHeaderEndianness = 2;
constexpr uint32_t kHeaderVersion = 3;
constexpr uint32_t kEntryDtype = 1;
constexpr uint32_t kEntryShape = 2;
constexpr uint32_t kEntryShardId = 3;
constexpr uint32_t kEntryOffset = 4;
constexpr uint32_t kEntrySize = 5;
constexpr uint32_t kEntryCrc32c = 6;
constexpr uint32_t kEntrySlices = 7;
constexpr uint32_t kSliceExtent = 1;
constexpr uint32_t kExtentStart = 1;
constexpr uint32_t kExtentLength = 2;

}  // namespace

std::string EncodeBundleHeader(const BundleHeader& header) {
  const VersionDef version{header.producer, header.min_consumer,
                           header.bad_consumers};
  std::string out;
  PutVarintField(&out, kHeaderNumShards, header.num_shards);
  PutVarintField(&out, kHeaderEndianness, header.endianness);
  PutLengthDelimited(&out, kHeaderVersion,
                     VersionDefProto(version).SerializeAsString());
  return out;
}

Status DecodeBundleHeader(std::string_view bytes, BundleHeader* header) {
  *header = BundleHeader();
  VersionDef version;
  const bool ok =
      WalkFields(bytes, [&](uint32_t field, int wire_type, WireReader& r) {
        if (field == kHeaderNumShards && wire_type == kWireVarint) {
          return r.ReadInt32(&header->num_shards);
        }
        if (field == kHeaderEndianness && wire_type == kWireVarint) {
          return r.ReadInt32(&header->endianness);
        }
        if (field == kHeaderVersion && wire_type == kWireLen) {
          std::string_view version_bytes;
          return r.ReadLengthDelimited(&version_bytes) &&
                 MergeVersionDef(version_bytes, &version);
        }
        return true;
      });
  if (!ok) return DataLossError("malformed BundleHeaderProto");
  header->producer = version.producer;
  header->min_consumer = version.min_consumer;
  header->bad_consumers = std::move(version.bad_consumers);
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
  const std::string shape = ShapeProto(e.shape).SerializeAsString();
  std::string out;
  PutVarintField(&out, kEntryDtype, stored.dtype_enum);
  PutLengthDelimited(&out, kEntryShape, shape);
  PutVarintField(&out, kEntryShardId, e.shard_id);
  PutVarintField(&out, kEntryOffset, e.offset);
  PutVarintField(&out, kEntrySize, e.size);
  PutFixed32Field(&out, kEntryCrc32c, e.masked_crc32c);
  for (const std::string& slice : stored.slices) {
    PutLengthDelimited(&out, kEntrySlices, slice);
  }
  return out;
}

Status DecodeBundleEntry(std::string_view bytes, StoredEntry* stored) {
  std::string name = std::move(stored->entry.name);
  *stored = StoredEntry();
  stored->entry.name = std::move(name);
  BundleEntry& e = stored->entry;
  ShapeFields shape_fields;
  const bool ok =
      WalkFields(bytes, [&](uint32_t field, int wire_type, WireReader& r) {
        if (wire_type == kWireVarint) {
          switch (field) {
            case kEntryDtype:
              return r.ReadInt32(&stored->dtype_enum);
            case kEntryShardId:
              return r.ReadInt32(&e.shard_id);
            case kEntryOffset:
              return r.ReadInt64(&e.offset);
            case kEntrySize:
              return r.ReadInt64(&e.size);
            default:
              return true;
          }
        }
        if (field == kEntryCrc32c && wire_type == kWireFixed32) {
          return r.ReadFixed32(&e.masked_crc32c);
        }
        if (field == kEntryShape && wire_type == kWireLen) {
          std::string_view shape;
          return r.ReadLengthDelimited(&shape) &&
                 MergeShapeProto(shape, &shape_fields);
        }
        if (field == kEntrySlices && wire_type == kWireLen) {
          std::string_view slice;
          if (!r.ReadLengthDelimited(&slice)) return false;
          stored->slices.emplace_back(slice);
          stored->slice_extents.emplace_back();
          return DecodeTensorSlice(slice, &stored->slice_extents.back()).ok();
        }
        return true;
      });
  if (!ok) return DataLossError("malformed BundleEntryProto");
  if (shape_fields.unknown_rank) {
    return DataLossError("entry's shape has unknown rank");
  }
  const std::vector<int64_t>& dims = shape_fields.dims;
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
    PutLengthDelimited(&out, kSliceExtent, extent);
  }
  return out;
}

Status DecodeTensorSlice(std::string_view bytes,
                         std::vector<SliceExtent>* extents) {
  extents->clear();
  const bool ok =
      WalkFields(bytes, [&](uint32_t field, int wire_type, WireReader& r) {
        if (field != kSliceExtent || wire_type != kWireLen) return true;
        std::string_view extent;
        if (!r.ReadLengthDelimited(&extent)) return false;
        SliceExtent x;
        const bool extent_ok =
            WalkFields(extent, [&](uint32_t f, int wt, WireReader& e) {
              if (wt != kWireVarint) return true;
              if (f == kExtentStart) return e.ReadInt64(&x.start);
              if (f == kExtentLength) return e.ReadInt64(&x.length);
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
