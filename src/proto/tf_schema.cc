// Copyright 2026 The inflow Authors.
//
// Field numbers are those of tensorflow/core/framework/types.proto,
// tensor_shape.proto and versions.proto.

#include "proto/tf_schema.h"

#include "proto/wire.h"

namespace inflow::internal {

std::string_view TfTypeName(int type) {
  switch (type) {
    case kDtFloat:
      return "DT_FLOAT";
    case kDtDouble:
      return "DT_DOUBLE";
    case kDtInt32:
      return "DT_INT32";
    case kDtUInt8:
      return "DT_UINT8";
    case kDtInt16:
      return "DT_INT16";
    case kDtInt8:
      return "DT_INT8";
    case kDtString:
      return "DT_STRING";
    case kDtComplex64:
      return "DT_COMPLEX64";
    case kDtInt64:
      return "DT_INT64";
    case kDtBool:
      return "DT_BOOL";
    case kDtQInt8:
      return "DT_QINT8";
    case kDtBFloat16:
      return "DT_BFLOAT16";
    case kDtUInt16:
      return "DT_UINT16";
    case kDtComplex128:
      return "DT_COMPLEX128";
    case kDtHalf:
      return "DT_HALF";
    case kDtUInt32:
      return "DT_UINT32";
    case kDtUInt64:
      return "DT_UINT64";
  }
  return "DT_INVALID";
}

ProtoMessage ShapeProto(const PartialShape& shape) {
  ProtoMessage m;
  if (!shape.rank_known()) {
    m.AddBool(tf_shape::kUnknownRank, "unknown_rank", true);
    return m;
  }
  for (const int64_t d : shape.dims()) {
    ProtoMessage& dim = m.AddMessage(tf_shape::kDim, "dim");
    if (d != 0) dim.AddInt(tf_shape::kDimSize, "size", d);
  }
  return m;
}

bool MergeShapeProto(std::string_view bytes, ShapeFields* shape) {
  return WalkFields(bytes, [&](uint32_t field, int wire_type, WireReader& r) {
    if (field == tf_shape::kDim && wire_type == kWireLen) {
      std::string_view dim;
      if (!r.ReadLengthDelimited(&dim)) return false;
      int64_t size = 0;
      const bool ok = WalkFields(dim, [&](uint32_t f, int wt, WireReader& d) {
        if (f != tf_shape::kDimSize || wt != kWireVarint) return true;
        return d.ReadInt64(&size);
      });
      shape->dims.push_back(size);
      return ok;
    }
    if (field == tf_shape::kUnknownRank && wire_type == kWireVarint) {
      uint64_t v;
      if (!r.ReadVarint(&v)) return false;
      shape->unknown_rank = v != 0;
    }
    return true;
  });
}

ProtoMessage VersionDefProto(const VersionDef& version) {
  ProtoMessage m;
  if (version.producer != 0) {
    m.AddInt(tf_version::kProducer, "producer", version.producer);
  }
  if (version.min_consumer != 0) {
    m.AddInt(tf_version::kMinConsumer, "min_consumer", version.min_consumer);
  }
  for (const int32_t bad : version.bad_consumers) {
    m.AddInt(tf_version::kBadConsumers, "bad_consumers", bad, /*packed=*/true);
  }
  return m;
}

bool MergeVersionDef(std::string_view bytes, VersionDef* version) {
  return WalkFields(bytes, [&](uint32_t field, int wire_type, WireReader& r) {
    if (field == tf_version::kProducer && wire_type == kWireVarint) {
      return r.ReadInt32(&version->producer);
    }
    if (field == tf_version::kMinConsumer && wire_type == kWireVarint) {
      return r.ReadInt32(&version->min_consumer);
    }
    if (field == tf_version::kBadConsumers && wire_type == kWireVarint) {
      int32_t v;
      if (!r.ReadInt32(&v)) return false;
      version->bad_consumers.push_back(v);
      return true;
    }
    if (field == tf_version::kBadConsumers && wire_type == kWireLen) {
      std::string_view packed;
      if (!r.ReadLengthDelimited(&packed)) return false;
      WireReader values(packed);
      while (!values.done()) {
        int32_t v;
        if (!values.ReadInt32(&v)) return false;
        version->bad_consumers.push_back(v);
      }
    }
    return true;
  });
}

}  // namespace inflow::internal
