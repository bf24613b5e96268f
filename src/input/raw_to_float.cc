// Copyright 2026 The inflow Authors.

#include "raw_to_float.h"

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <variant>

#include "inflow/example/decode_raw.h"

#include "core/convert_kernels.h"
#include "proto/wire.h"

namespace inflow {
namespace internal {
namespace {

// A length-delimited field `field` read from `r` after its tag; false for
// another field or wire type.
bool ReadLen(WireReader& r, uint32_t want, std::string_view* out) {
  uint32_t field;
  int wire_type;
  return r.ReadTag(&field, &wire_type) && field == want &&
         wire_type == kWireLen && r.ReadLengthDelimited(out);
}

// The value of bytes feature `key` in `record`, a well-formed Example (the
// parser of the other features accepted it): the last map entry of that
// key, when it is one field (key, value) and its Feature is one BytesList
// of one value. False on anything else (no such key, another kind or
// count, a message split over several fields), for the general path.
bool FindOneBytes(std::string_view record, std::string_view key,
                  std::string_view* value) {
  bool found = false;
  // Example.features (1) -> Features.feature (1, map entries).
  const auto on_entry = [&](std::string_view entry) {
    std::string_view k;
    std::string_view v;
    int values = 0;
    if (!WalkFields(entry, [&](uint32_t field, int wire_type, WireReader& e) {
          if (wire_type != kWireLen) return true;
          if (field == 1) return e.ReadLengthDelimited(&k);
          if (field != 2) return true;
          ++values;
          return e.ReadLengthDelimited(&v);
        })) {
      return false;
    }
    if (k != key) return true;
    found = false;
    if (values != 1) return false;
    WireReader feature(v);
    std::string_view list;
    if (!ReadLen(feature, 1, &list) || !feature.done()) return false;
    WireReader bytes(list);
    if (!ReadLen(bytes, 1, value) || !bytes.done()) return false;
    found = true;
    return true;
  };
  const bool ok =
      WalkFields(record, [&](uint32_t field, int wire_type, WireReader& top) {
        if (field != 1 || wire_type != kWireLen) return true;
        std::string_view features;
        if (!top.ReadLengthDelimited(&features)) return false;
        return WalkFields(features, [&](uint32_t f, int wt, WireReader& map) {
          if (f != 1 || wt != kWireLen) return true;
          std::string_view entry;
          return map.ReadLengthDelimited(&entry) && on_entry(entry);
        });
      });
  return ok && found;
}

}  // namespace

Result<std::optional<RawToFloat>> RawToFloat::Create(
    const PipelineOptions& options) {
  if (options.raw_to_float.empty()) return std::optional<RawToFloat>();
  RawToFloat r;
  r.num_components_ = options.features.size();
  std::vector<bool> fused(options.features.size(), false);
  for (const PipelineOptions::RawToFloat& want : options.raw_to_float) {
    const std::string name =
        "pipeline: raw_to_float feature \"" + want.feature + "\"";
    size_t c = 0;
    while (c < options.features.size() &&
           options.features[c].first != want.feature) {
      ++c;
    }
    if (c == options.features.size()) {
      return InvalidArgumentError(name + " is not one of the features");
    }
    if (fused[c]) return InvalidArgumentError(name + " is named twice");
    const auto* fixed =
        std::get_if<FixedLenFeature>(&options.features[c].second);
    if (fixed == nullptr || fixed->dtype != DType::kString ||
        fixed->shape.rank() != 0) {
      return InvalidArgumentError(
          name + " must be declared FixedLenFeature({}, kString)");
    }
    if (want.length < 1) {
      return InvalidArgumentError(name + ": length must be >= 1, got " +
                                  std::to_string(want.length));
    }
    fused[c] = true;
    r.fused_.push_back({c, want.feature, want.length, want.scale});
  }
  FeatureSpecs rest;
  r.rest_from_view_ = true;
  for (size_t c = 0; c < options.features.size(); ++c) {
    if (fused[c]) continue;
    rest.push_back(options.features[c]);
    r.rest_components_.push_back(c);
    const auto* fixed =
        std::get_if<FixedLenFeature>(&options.features[c].second);
    if (fixed == nullptr ||
        (fixed->dtype != DType::kInt64 && fixed->dtype != DType::kFloat32)) {
      r.rest_from_view_ = false;
      continue;
    }
    r.numeric_.push_back(
        {c, options.features[c].first, fixed->dtype, fixed->shape});
  }
  if (!r.rest_from_view_) r.numeric_.clear();
  if (!rest.empty()) {
    INFLOW_ASSIGN_OR_RETURN(ExampleParser parser,
                            ExampleParser::Create(std::move(rest)));
    r.rest_.emplace(std::move(parser));
  }
  return std::optional<RawToFloat>(std::move(r));
}

bool RawToFloat::Prepare(const RecordBatch& records, Scratch* scratch) const {
  const size_t n = records.size();
  scratch->rows = n;
  scratch->rest.assign(num_components_, Tensor());
  // Without other features, or with numeric ones only, the record's view
  // finds every value; otherwise the parser parses the others.
  const bool by_view = !rest_.has_value() || rest_from_view_;
  if (!by_view) {
    Result<ParsedFeatures> parsed = rest_->ParseBatch(records.values());
    if (!parsed.ok()) return false;
    for (size_t j = 0; j < rest_components_.size(); ++j) {
      scratch->rest[rest_components_[j]] = std::move(parsed->dense[j]);
    }
  }
  for (const Numeric& f : numeric_) {
    scratch->rest[f.component] = Tensor::Uninitialized(
        f.dtype, f.shape.Prepend(static_cast<int64_t>(n)));
  }
  scratch->values.resize(fused_.size());
  for (std::vector<std::string_view>& v : scratch->values) v.clear();
  const std::less_equal<const char*> le;
  for (size_t i = 0; i < n; ++i) {
    const std::string_view record = records.value(i);
    if (by_view) {
      // The view validates the record, as the parser would.
      if (!scratch->view.Parse(record).ok()) return false;
      if (!ReadNumeric(scratch->view, i, &scratch->rest)) return false;
    }
    for (size_t k = 0; k < fused_.size(); ++k) {
      std::string_view bytes;
      if (!by_view) {
        if (!FindOneBytes(record, fused_[k].feature, &bytes)) return false;
      } else {
        const FeatureView* v = scratch->view.Find(fused_[k].feature);
        if (v == nullptr || v->kind() != FeatureKind::kBytes ||
            v->size() != 1) {
          return false;
        }
        v->ForEachBytes([&bytes](std::string_view b) { bytes = b; });
      }
      // A value joined from split fields lives in the view, not the
      // record, and would not outlast the next Parse.
      const bool in_record =
          le(record.data(), bytes.data()) &&
          le(bytes.data() + bytes.size(), record.data() + record.size());
      if (!in_record ||
          static_cast<int64_t>(bytes.size()) != fused_[k].length) {
        return false;
      }
      scratch->values[k].push_back(bytes);
    }
  }
  return true;
}

bool RawToFloat::ReadNumeric(const ExampleView& view, size_t row,
                             Tuple* rest) const {
  for (const Numeric& f : numeric_) {
    const FeatureView* v = view.Find(f.feature);
    const FeatureKind want =
        f.dtype == DType::kInt64 ? FeatureKind::kInt64 : FeatureKind::kFloat;
    const int64_t count = f.shape.num_elements();
    if (v == nullptr || v->kind() != want || v->size() != count) return false;
    Tensor& t = (*rest)[f.component];
    // Just allocated by Prepare, so writable.
    char* out = static_cast<char*>(t.mutable_raw_data().value()) +
                row * static_cast<size_t>(count) * DTypeSize(f.dtype);
    if (f.dtype == DType::kInt64) {
      v->CopyInt64s(reinterpret_cast<int64_t*>(out));
    } else {
      v->CopyFloats(reinterpret_cast<float*>(out));
    }
  }
  return true;
}

void RawToFloat::Write(const Scratch& scratch,
                       std::span<char* const> rows) const {
  const size_t n = scratch.rows;
  if (n == 0) return;
  for (const size_t c : rest_components_) {
    const Tensor& t = scratch.rest[c];
    const size_t row_bytes = t.num_bytes() / n;
    const char* src = static_cast<const char*>(t.raw_data());
    for (size_t r = 0; r < n; ++r, src += row_bytes) {
      std::memcpy(rows[c * n + r], src, row_bytes);
    }
  }
  for (size_t k = 0; k < fused_.size(); ++k) {
    const std::vector<std::string_view>& values = scratch.values[k];
    for (size_t r = 0; r < n; ++r) {
      std::memcpy(rows[fused_[k].component * n + r], values[r].data(),
                  values[r].size());
    }
  }
}

Status RawToFloat::ToBytes(const RecordBatch& records, Tuple* rows) const {
  INFLOW_RETURN_IF_ERROR(CheckLengths(records, *rows));
  for (const Fused& f : fused_) {
    Tensor& strings = (*rows)[f.component];
    const std::span<const std::string> in = strings.flat<std::string>();
    Tensor bytes = Tensor::Uninitialized(
        DType::kUInt8,
        TensorShape({static_cast<int64_t>(in.size()), f.length}));
    // Just allocated, so writable.
    char* out = static_cast<char*>(bytes.mutable_raw_data().value());
    for (const std::string& s : in) {
      std::memcpy(out, s.data(), s.size());
      out += s.size();
    }
    strings = std::move(bytes);
  }
  return OkStatus();
}

void RawToFloat::Decode(Tuple* batch, BatchPool* pool) const {
  for (const Fused& f : fused_) {
    Tensor& bytes = (*batch)[f.component];
    Tensor floats = pool->Uninitialized(DType::kFloat32, bytes.shape());
    Uint8ToFloatScaled(static_cast<const uint8_t*>(bytes.raw_data()),
                       static_cast<size_t>(bytes.num_elements()), f.scale,
                       static_cast<float*>(floats.mutable_raw_data().value()));
    bytes = std::move(floats);
  }
}

std::optional<Tuple> RawToFloat::TryParse(const RecordBatch& records,
                                          Scratch* scratch) const {
  if (!Prepare(records, scratch)) return std::nullopt;
  Tuple rows = std::move(scratch->rest);
  for (size_t k = 0; k < fused_.size(); ++k) {
    Result<Tensor> t = DecodeRawToFloat(scratch->values[k], fused_[k].scale);
    if (!t.ok()) return std::nullopt;
    rows[fused_[k].component] = std::move(t).value();
  }
  return rows;
}

Status RawToFloat::CheckLengths(const RecordBatch& records,
                                const Tuple& rows) const {
  for (const Fused& f : fused_) {
    const std::span<const std::string> in =
        rows[f.component].flat<std::string>();
    for (size_t i = 0; i < in.size(); ++i) {
      if (static_cast<int64_t>(in[i].size()) != f.length) {
        return InvalidArgumentError(
            "record " + records.key(i) + ": feature \"" + f.feature +
            "\" has " + std::to_string(in[i].size()) +
            " bytes, raw_to_float wants " + std::to_string(f.length));
      }
    }
  }
  return OkStatus();
}

Status RawToFloat::Convert(const RecordBatch& records, Tuple* rows) const {
  INFLOW_RETURN_IF_ERROR(CheckLengths(records, *rows));
  for (const Fused& f : fused_) {
    Tensor& strings = (*rows)[f.component];
    INFLOW_ASSIGN_OR_RETURN(Tensor floats, DecodeRawToFloat(strings, f.scale));
    strings = std::move(floats);
  }
  return OkStatus();
}

}  // namespace internal
}  // namespace inflow
