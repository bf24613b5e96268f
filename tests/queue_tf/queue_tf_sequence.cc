// Copyright 2026 The inflow Authors.

#include "queue_tf_sequence.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/tensor_shape.h"

namespace inflow::queue_tf {

Result<QueueKind> KindFromName(std::string_view name) {
  if (name == "fifo") return QueueKind::kFIFO;
  if (name == "padding_fifo") return QueueKind::kPaddingFIFO;
  if (name == "random_shuffle") return QueueKind::kRandomShuffle;
  if (name == "priority") return QueueKind::kPriority;
  return InvalidArgumentError("unknown queue kind '" + std::string(name) + "'");
}

Result<Tensor> TensorFromJson(const json& j) {
  const std::string dtype_name = j.at("dtype").get<std::string>();
  std::optional<DType> dtype = DTypeFromName(dtype_name);
  if (!dtype) return InvalidArgumentError("unknown dtype " + dtype_name);
  std::vector<int64_t> dims = j.at("shape").get<std::vector<int64_t>>();
  INFLOW_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
  const json& values = j.at("values");
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    return InvalidArgumentError("tensor with shape " + shape.DebugString() +
                                " has " + std::to_string(values.size()) +
                                " values");
  }
  Tensor t(*dtype, shape);
  INFLOW_ASSIGN_OR_RETURN(void* const out, t.mutable_raw_data());
  for (size_t i = 0; i < values.size(); ++i) {
    switch (*dtype) {
      case DType::kInt64:
        static_cast<int64_t*>(out)[i] = values[i].get<int64_t>();
        break;
      case DType::kInt32:
        static_cast<int32_t*>(out)[i] = values[i].get<int32_t>();
        break;
      case DType::kFloat32:
        static_cast<float*>(out)[i] =
            static_cast<float>(values[i].get<double>());
        break;
      case DType::kFloat64:
        static_cast<double*>(out)[i] = values[i].get<double>();
        break;
      case DType::kUInt8:
        static_cast<uint8_t*>(out)[i] = values[i].get<uint8_t>();
        break;
      case DType::kBool:
        static_cast<bool*>(out)[i] = values[i].get<bool>();
        break;
      case DType::kString:
        static_cast<std::string*>(out)[i] = values[i].get<std::string>();
        break;
      default:
        return InvalidArgumentError("unsupported dtype " + dtype_name);
    }
  }
  return t;
}

Result<Tuple> TupleFromJson(const json& j) {
  Tuple out;
  for (const json& t : j) {
    INFLOW_ASSIGN_OR_RETURN(Tensor tensor, TensorFromJson(t));
    out.push_back(std::move(tensor));
  }
  return out;
}

Result<Sequence> ParseSequence(const std::string& line) {
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidArgumentError("not a JSON object");
  }
  try {
    Sequence s;
    s.seed = j.at("seed").get<int64_t>();
    const json& q = j.at("queue");
    s.queue_json = q.dump();
    s.kind_name = q.at("kind").get<std::string>();
    INFLOW_ASSIGN_OR_RETURN(s.kind, KindFromName(s.kind_name));
    s.options.capacity = q.at("capacity").get<int64_t>();
    for (const json& d : q.at("dtypes")) {
      std::optional<DType> dtype = DTypeFromName(d.get<std::string>());
      if (!dtype) return InvalidArgumentError("unknown dtype " + d.dump());
      s.options.dtypes.push_back(*dtype);
    }
    if (!q.at("shapes").is_null()) {
      for (const json& shape : q.at("shapes")) {
        s.options.shapes.emplace_back(shape.get<std::vector<int64_t>>());
      }
    }
    if (q.contains("min_after_dequeue")) {
      s.options.min_after_dequeue = q.at("min_after_dequeue").get<int64_t>();
    }
    if (q.contains("seed")) s.options.seed = q.at("seed").get<int64_t>();
    if (q.contains("seed2")) s.options.seed2 = q.at("seed2").get<int64_t>();
    s.multiset_order = q.value("order", std::string("exact")) == "multiset";
    s.ops = j.at("ops");
    if (j.contains("remaining")) s.remaining = j.at("remaining");
    return s;
  } catch (const json::exception& e) {
    return InvalidArgumentError(std::string("bad sequence: ") + e.what());
  }
}

std::string CodeName(int code) {
  return std::string(StatusCodeName(static_cast<StatusCode>(code)));
}

std::string StatusText(const Status& s) { return s.ok() ? "OK" : s.ToString(); }

// "dequeue_many(n=3, timeout_ms=1)" and the like, for reports.
std::string OpSummary(const json& op) {
  std::ostringstream os;
  const std::string name = op.at("op").get<std::string>();
  os << name << "(";
  std::string sep;
  if (op.contains("args")) {
    os << "[";
    for (size_t i = 0; i < op["args"].size(); ++i) {
      const json& t = op["args"][i];
      os << (i ? ", " : "") << t["dtype"].get<std::string>()
         << t["shape"].dump() << " " << t["values"].dump();
    }
    os << "]";
    sep = ", ";
  }
  if (op.contains("n")) {
    os << sep << "n=" << op["n"].get<int64_t>();
    sep = ", ";
  }
  if (op.contains("cancel")) {
    os << sep << "cancel=" << (op["cancel"].get<bool>() ? "true" : "false");
    sep = ", ";
  }
  os << sep << "timeout_ms=" << op.at("timeout_ms").get<int64_t>() << ")";
  if (op.contains("invalid")) os << " /* invalid: " << op["invalid"] << " */";
  return os.str();
}

std::string ExpectSummary(const json& expect) {
  std::ostringstream os;
  os << CodeName(expect.at("code").get<int>());
  if (expect.contains("values")) {
    auto tuple = TupleFromJson(expect["values"]);
    os << " " << (tuple.ok() ? DebugString(*tuple) : expect["values"].dump());
  }
  if (expect.contains("size")) os << " size=" << expect["size"];
  if (expect.contains("closed")) os << " closed=" << expect["closed"];
  return os.str();
}

// One row of a dequeued batch (or a whole single element) as a printable
// key, for multiset comparisons.
std::string RowKey(const Tuple& tuple, int64_t row, bool batched) {
  Tuple element;
  for (const Tensor& t : tuple) {
    element.push_back(batched ? t.SubTensor(row) : t);
  }
  return DebugString(element);
}

std::vector<std::string> RowKeys(const Tuple& tuple, bool batched) {
  std::vector<std::string> keys;
  if (tuple.empty()) return keys;
  if (!batched) {
    keys.push_back(RowKey(tuple, 0, false));
    return keys;
  }
  for (int64_t r = 0; r < tuple[0].dim_size(0); ++r) {
    keys.push_back(RowKey(tuple, r, true));
  }
  return keys;
}

}  // namespace inflow::queue_tf
