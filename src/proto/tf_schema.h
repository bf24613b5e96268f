// Copyright 2026 The inflow Authors.
//
// The TensorFlow messages that more than one component writes or reads,
// defined once (docs/formats.md, "Protobuf wire format"): the DataType
// numbers, TensorShapeProto and VersionDef. Checkpoint bundles store shapes
// and a VersionDef in their index; the model graphs put shapes in attrs
// and tensors and a VersionDef in every GraphDef.
//
// Encoders follow proto3 as TensorFlow's Python serialization does (zero
// scalars are omitted); decoders follow libprotobuf (unknown fields and
// fields of an unexpected wire type are skipped, a repeated int32 may be
// packed or not, a message seen twice is merged).
//
// Internal. Pure functions.

#ifndef INFLOW_PROTO_TF_SCHEMA_H_
#define INFLOW_PROTO_TF_SCHEMA_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/tensor_shape.h"

#include "proto/proto_message.h"

namespace inflow::internal {

// tensorflow.DataType numbers (types.proto) that the graphs, the op
// definitions and the bundles name. inflow's DType uses the same numbers
// for the types it holds; kDtQInt8 is one it does not.
enum TfType : int {
  kDtFloat = 1,
  kDtDouble = 2,
  kDtInt32 = 3,
  kDtUInt8 = 4,
  kDtInt16 = 5,
  kDtInt8 = 6,
  kDtString = 7,
  kDtComplex64 = 8,
  kDtInt64 = 9,
  kDtBool = 10,
  kDtQInt8 = 11,
  kDtBFloat16 = 14,
  kDtUInt16 = 17,
  kDtComplex128 = 18,
  kDtHalf = 19,
  kDtUInt32 = 22,
  kDtUInt64 = 23,
};

// "DT_FLOAT"; "DT_INVALID" for a number not listed above.
std::string_view TfTypeName(int type);

// TensorShapeProto (tensor_shape.proto).
namespace tf_shape {
inline constexpr uint32_t kDim = 2;
inline constexpr uint32_t kUnknownRank = 3;
inline constexpr uint32_t kDimSize = 1;  // in TensorShapeProto.Dim
}  // namespace tf_shape

// A TensorShapeProto as a ProtoMessage (for files written in both the
// binary and the text form): `dim { size }` per dimension (-1 unknown, a
// zero size omitted as proto3 omits it), or `unknown_rank: true`.
ProtoMessage ShapeProto(const PartialShape& shape);

// A decoded TensorShapeProto. Dims keep the values as stored (negative
// ones included); callers decide what they accept.
struct ShapeFields {
  std::vector<int64_t> dims;
  bool unknown_rank = false;
};

// Merges the TensorShapeProto in `bytes` into *shape (dims seen are
// appended, as libprotobuf merges a repeated field). False when `bytes` is
// not a TensorShapeProto.
bool MergeShapeProto(std::string_view bytes, ShapeFields* shape);

// VersionDef (versions.proto).
namespace tf_version {
inline constexpr uint32_t kProducer = 1;
inline constexpr uint32_t kMinConsumer = 2;
inline constexpr uint32_t kBadConsumers = 3;
}  // namespace tf_version

struct VersionDef {
  int32_t producer = 0;
  int32_t min_consumer = 0;
  std::vector<int32_t> bad_consumers;
};

// A VersionDef as a ProtoMessage: zero fields omitted, bad_consumers
// packed (proto3's default for a repeated int32).
ProtoMessage VersionDefProto(const VersionDef& version);

// Merges the VersionDef in `bytes` into *version. False when `bytes` is not
// a VersionDef.
bool MergeVersionDef(std::string_view bytes, VersionDef* version);

}  // namespace inflow::internal

#endif  // INFLOW_PROTO_TF_SCHEMA_H_
