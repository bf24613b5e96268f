// Copyright 2026 The inflow Authors.
//
// Driver for tests/py/test_bundle_vs_tf.py: writes a bundle from a JSON
// description, or prints a bundle's entries and values as JSON, so that
// TensorFlow and inflow can each read what the other wrote.
//
//   bundle_tf_driver write PREFIX < tensors.json
//   bundle_tf_driver read PREFIX > tensors.json
//
// tensors.json: [{"name": hex, "dtype": "float32", "shape": [2],
// "values": [...]}, ...] in the order they are (or were) added. Values
// are numbers; strings are hex; float16 and bfloat16 are their uint16
// bits. "read" adds "offset", "size", "crc32c" (masked) and "shard_id".

#include <complex>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "inflow/checkpoint/bundle.h"

namespace inflow {
namespace {

using json = nlohmann::json;

std::string Hex(std::string_view s) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

std::string Unhex(const std::string& h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  }
  return out;
}

template <typename T, typename J = T>
void Fill(const json& values, Tensor* t) {
  std::span<T> out = t->mutable_flat<T>().value();
  for (size_t i = 0; i < out.size(); ++i) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      out[i].bits = values[i].get<uint16_t>();
    } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                         std::is_same_v<T, std::complex<double>>) {
      out[i] = T(values[i][0].get<typename T::value_type>(),
                 values[i][1].get<typename T::value_type>());
    } else {
      out[i] = static_cast<T>(values[i].get<J>());
    }
  }
}

template <typename T>
json Values(const Tensor& t) {
  json out = json::array();
  for (const T& v : t.flat<T>()) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      out.push_back(v.bits);
    } else if constexpr (std::is_same_v<T, std::string>) {
      out.push_back(Hex(v));
    } else if constexpr (std::is_same_v<T, float>) {
      out.push_back(static_cast<double>(v));
    } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                         std::is_same_v<T, std::complex<double>>) {
      out.push_back(json::array(
          {static_cast<double>(v.real()), static_cast<double>(v.imag())}));
    } else {
      out.push_back(v);
    }
  }
  return out;
}

Tensor Make(const json& spec) {
  const DType dtype =
      DTypeFromName(spec.at("dtype").get<std::string>()).value();
  Tensor t(dtype, TensorShape(spec.at("shape").get<std::vector<int64_t>>()));
  const json& v = spec.at("values");
  switch (dtype) {
    case DType::kFloat32:
      Fill<float, double>(v, &t);
      break;
    case DType::kFloat64:
      Fill<double>(v, &t);
      break;
    case DType::kInt32:
      Fill<int32_t>(v, &t);
      break;
    case DType::kUInt8:
      Fill<uint8_t>(v, &t);
      break;
    case DType::kInt16:
      Fill<int16_t>(v, &t);
      break;
    case DType::kInt8:
      Fill<int8_t>(v, &t);
      break;
    case DType::kInt64:
      Fill<int64_t>(v, &t);
      break;
    case DType::kBool:
      Fill<bool>(v, &t);
      break;
    case DType::kBFloat16:
      Fill<BFloat16>(v, &t);
      break;
    case DType::kUInt16:
      Fill<uint16_t>(v, &t);
      break;
    case DType::kFloat16:
      Fill<Float16>(v, &t);
      break;
    case DType::kUInt32:
      Fill<uint32_t>(v, &t);
      break;
    case DType::kUInt64:
      Fill<uint64_t>(v, &t);
      break;
    case DType::kComplex64:
      Fill<std::complex<float>>(v, &t);
      break;
    case DType::kComplex128:
      Fill<std::complex<double>>(v, &t);
      break;
    case DType::kString: {
      std::span<std::string> s = t.mutable_flat<std::string>().value();
      for (size_t i = 0; i < s.size(); ++i)
        s[i] = Unhex(v[i].get<std::string>());
      break;
    }
    case DType::kInvalid:
      break;
  }
  return t;
}

json Dump(const Tensor& t) {
  switch (t.dtype()) {
    case DType::kFloat32:
      return Values<float>(t);
    case DType::kFloat64:
      return Values<double>(t);
    case DType::kInt32:
      return Values<int32_t>(t);
    case DType::kUInt8:
      return Values<uint8_t>(t);
    case DType::kInt16:
      return Values<int16_t>(t);
    case DType::kInt8:
      return Values<int8_t>(t);
    case DType::kInt64:
      return Values<int64_t>(t);
    case DType::kBool:
      return Values<bool>(t);
    case DType::kBFloat16:
      return Values<BFloat16>(t);
    case DType::kUInt16:
      return Values<uint16_t>(t);
    case DType::kFloat16:
      return Values<Float16>(t);
    case DType::kUInt32:
      return Values<uint32_t>(t);
    case DType::kUInt64:
      return Values<uint64_t>(t);
    case DType::kString:
      return Values<std::string>(t);
    case DType::kComplex64:
      return Values<std::complex<float>>(t);
    case DType::kComplex128:
      return Values<std::complex<double>>(t);
    case DType::kInvalid:
      break;
  }
  return nullptr;
}

int Fail(const Status& s) {
  std::fprintf(stderr, "%s\n", s.ToString().c_str());
  return 1;
}

int Write(const std::string& prefix) {
  const json specs = json::parse(std::cin);
  BundleWriter writer(prefix);
  for (const json& spec : specs) {
    Status s =
        writer.Add(Unhex(spec.at("name").get<std::string>()), Make(spec));
    if (!s.ok()) return Fail(s);
  }
  Status s = writer.Finish();
  return s.ok() ? 0 : Fail(s);
}

int Read(const std::string& prefix) {
  Result<std::unique_ptr<BundleReader>> reader = BundleReader::Open(prefix);
  if (!reader.ok()) return Fail(reader.status());
  json out = json::array();
  for (const BundleEntry& e : (*reader)->entries()) {
    Result<Tensor> t = (*reader)->Read(e.name);
    if (!t.ok()) return Fail(t.status());
    out.push_back({{"name", Hex(e.name)},
                   {"dtype", std::string(DTypeName(e.dtype))},
                   {"shape", e.shape.dims()},
                   {"values", Dump(*t)},
                   {"offset", e.offset},
                   {"size", e.size},
                   {"shard_id", e.shard_id},
                   {"crc32c", e.masked_crc32c}});
  }
  Status s = (*reader)->Verify();
  if (!s.ok()) return Fail(s);
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: bundle_tf_driver write|read PREFIX\n");
    return 2;
  }
  const std::string mode = argv[1];
  if (mode == "write") return inflow::Write(argv[2]);
  if (mode == "read") return inflow::Read(argv[2]);
  std::fprintf(stderr, "unknown mode %s\n", argv[1]);
  return 2;
}
