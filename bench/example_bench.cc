// Copyright 2026 The inflow Authors.
//
// bench_example: parsing serialized tf.train.Examples into tensors, inflow
// against libprotobuf's generated parser doing the same extraction into the
// same tensors (same dtypes, shapes, layouts, same checks: presence, kind,
// value count).
//
// (a) fashion_mnist: 784 raw bytes + an int64 label per example.
// (b) features20: 20 features, float / int64 / bytes lists of varied
//     lengths; 10 fixed-length (dense [B, n]), 10 var-length (sparse).
//
// Batches of 64 records, as tf.io.parse_example gets them; single-record
// variants (parse_single_example) and a zero-copy variant (ExampleView +
// DecodeRawShared, the image as a uint8 view into the record) too. The
// protobuf side reuses its message objects across batches, its fastest
// arena-free use. The last line is the JSON summary:
//   {"bench": "example", "ratio_vs_protobuf": {"fashion_mnist": x,
//    "features20": y}, "examples_per_s": {...}, "kernels": {"varint": k}}
// with the ratios taken on the batch variants. Each case runs 3 times and
// the best rate (CPU time) of each is used. --smoke (bench_util.h) runs
// each for about a millisecond.

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "inflow/example/decode_raw.h"
#include "inflow/example/example.h"
#include "inflow/example/example_parser.h"
#include "inflow/example/feature_view.h"

#include "bench_util.h"
#include "example.pb.h"
#include "example/varint_kernels.h"

namespace inflow {
namespace {

constexpr int kBatch = 64;
constexpr int kRecords = 1024;

// ---- data -------------------------------------------------------------

struct FeatureDef {
  std::string key;
  FeatureKind kind;
  bool fixed;
  int min_len;
  int max_len;          // == min_len when fixed
  bool scalar = false;  // fixed, one value, shape []
};

const std::vector<FeatureDef>& Features20() {
  static const auto* kDefs = new std::vector<FeatureDef>{
      {"f00_score", FeatureKind::kFloat, true, 1, 1},
      {"f01_embed8", FeatureKind::kFloat, true, 8, 8},
      {"f02_embed32", FeatureKind::kFloat, true, 32, 32},
      {"f03_weights", FeatureKind::kFloat, false, 0, 64},
      {"f04_ratios", FeatureKind::kFloat, false, 1, 16},
      {"f05_embed128", FeatureKind::kFloat, true, 128, 128},
      {"f06_extra", FeatureKind::kFloat, false, 0, 8},
      {"f07_label", FeatureKind::kInt64, true, 1, 1},
      {"f08_bbox", FeatureKind::kInt64, true, 4, 4},
      {"f09_hist", FeatureKind::kInt64, true, 16, 16},
      {"f10_ids", FeatureKind::kInt64, false, 0, 32},
      {"f11_tokens", FeatureKind::kInt64, false, 1, 100},
      {"f12_buckets", FeatureKind::kInt64, true, 64, 64},
      {"f13_clicks", FeatureKind::kInt64, false, 0, 10},
      {"f14_name", FeatureKind::kBytes, true, 1, 1},
      {"f15_blob", FeatureKind::kBytes, true, 1, 1},
      {"f16_tags", FeatureKind::kBytes, false, 0, 5},
      {"f17_words", FeatureKind::kBytes, false, 1, 8},
      {"f18_pair", FeatureKind::kBytes, true, 2, 2},
      {"f19_notes", FeatureKind::kBytes, false, 0, 3},
  };
  return *kDefs;
}

DType DTypeOfKind(FeatureKind kind) {
  return kind == FeatureKind::kFloat   ? DType::kFloat32
         : kind == FeatureKind::kInt64 ? DType::kInt64
                                       : DType::kString;
}

std::vector<std::string> MakeFashionMnist() {
  std::mt19937 rng(7);
  std::vector<std::string> records;
  for (int i = 0; i < kRecords; ++i) {
    std::string image(784, '\0');
    for (char& c : image) c = static_cast<char>(rng() & 0xff);
    records.push_back(
        Example()
            .Set("image", Feature::Bytes({image}))
            .Set("label", Feature::Int64s({static_cast<int64_t>(rng() % 10)}))
            .Serialize());
  }
  return records;
}

std::vector<std::string> MakeFeatures20() {
  std::mt19937 rng(11);
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  std::vector<std::string> records;
  for (int i = 0; i < kRecords; ++i) {
    Example ex;
    for (const FeatureDef& d : Features20()) {
      const int n = uniform(d.min_len, d.max_len);
      switch (d.kind) {
        case FeatureKind::kFloat: {
          std::vector<float> v(static_cast<size_t>(n));
          for (float& x : v) x = std::normal_distribution<float>()(rng);
          ex.Set(d.key, Feature::Floats(std::move(v)));
          break;
        }
        case FeatureKind::kInt64: {
          std::vector<int64_t> v(static_cast<size_t>(n));
          for (int64_t& x : v) {
            x = uniform(0, 2) == 0
                    ? uniform(0, 100)
                    : static_cast<int64_t>(rng()) << uniform(0, 20);
          }
          ex.Set(d.key, Feature::Int64s(std::move(v)));
          break;
        }
        default: {
          std::vector<std::string> v(static_cast<size_t>(n));
          for (std::string& s : v) {
            s.resize(static_cast<size_t>(d.key == "f15_blob" ? uniform(100, 300)
                                                             : uniform(3, 40)));
            for (char& c : s) c = static_cast<char>('a' + uniform(0, 25));
          }
          ex.Set(d.key, Feature::Bytes(std::move(v)));
          break;
        }
      }
    }
    records.push_back(ex.Serialize());
  }
  return records;
}

const std::vector<std::string>& FashionRecords() {
  static const auto* kRecordsData =
      new std::vector<std::string>(MakeFashionMnist());
  return *kRecordsData;
}

const std::vector<std::string>& Features20Records() {
  static const auto* kRecordsData =
      new std::vector<std::string>(MakeFeatures20());
  return *kRecordsData;
}

FeatureSpecs FashionSpecs() {
  return {{"image", FixedLenFeature({}, DType::kString)},
          {"label", FixedLenFeature({}, DType::kInt64)}};
}

FeatureSpecs Features20Specs() {
  FeatureSpecs specs;
  for (const FeatureDef& d : Features20()) {
    if (d.fixed) {
      specs.emplace_back(d.key,
                         FixedLenFeature({d.min_len}, DTypeOfKind(d.kind)));
    } else {
      specs.emplace_back(d.key, VarLenFeature(DTypeOfKind(d.kind)));
    }
  }
  return specs;
}

// ---- the same extraction with libprotobuf -------------------------------

// What ExampleParser does, over parsed tensorflow::Example messages: for
// each spec, look the key up, check presence, kind and count, and copy the
// values into the same tensors.
class ProtobufExtractor {
 public:
  explicit ProtobufExtractor(std::vector<FeatureDef> defs)
      : defs_(std::move(defs)) {}

  // Returns false on any error (none occur in this benchmark).
  bool Parse(std::span<const std::string> records, bool single,
             ParsedFeatures* out) {
    if (messages_.size() < records.size()) messages_.resize(records.size());
    for (size_t b = 0; b < records.size(); ++b) {
      if (!messages_[b].ParseFromString(records[b])) return false;
    }
    out->dense.clear();
    out->sparse.clear();
    const auto batch = static_cast<int64_t>(records.size());
    found_.assign(records.size(), nullptr);
    for (const FeatureDef& d : defs_) {
      const DType dtype = DTypeOfKind(d.kind);
      for (size_t b = 0; b < records.size(); ++b) {
        const auto& map = messages_[b].features().feature();
        auto it = map.find(d.key);
        found_[b] = it == map.end() || it->second.kind_case() ==
                                           tensorflow::Feature::KIND_NOT_SET
                        ? nullptr
                        : &it->second;
        if (found_[b] != nullptr && KindOf(*found_[b]) != d.kind) return false;
      }
      if (d.fixed) {
        TensorShape shape = d.scalar ? TensorShape() : TensorShape({d.min_len});
        if (!single) shape = shape.Prepend(batch);
        Tensor t = Tensor::Uninitialized(dtype, shape);
        for (size_t b = 0; b < records.size(); ++b) {
          if (found_[b] == nullptr) return false;  // required
          if (Count(*found_[b]) != d.min_len) return false;
          Copy(*found_[b], t, static_cast<int64_t>(b) * d.min_len);
        }
        out->dense.push_back(std::move(t));
      } else {
        int64_t total = 0, max_n = 0;
        for (size_t b = 0; b < records.size(); ++b) {
          const int64_t n = found_[b] ? Count(*found_[b]) : 0;
          total += n;
          max_n = std::max(max_n, n);
        }
        SparseTensor sp;
        sp.indices = Tensor::Uninitialized(
            DType::kInt64, TensorShape({total, single ? 1 : 2}));
        sp.values = Tensor::Uninitialized(dtype, TensorShape({total}));
        sp.dense_shape =
            single ? Tensor::FromVector(std::vector<int64_t>{max_n})
                   : Tensor::FromVector(std::vector<int64_t>{batch, max_n});
        int64_t* idx = sp.indices.mutable_flat<int64_t>().value().data();
        int64_t at = 0;
        for (size_t b = 0; b < records.size(); ++b) {
          if (found_[b] == nullptr) continue;
          const int64_t n = Count(*found_[b]);
          Copy(*found_[b], sp.values, at);
          for (int64_t j = 0; j < n; ++j) {
            if (!single) *idx++ = static_cast<int64_t>(b);
            *idx++ = j;
          }
          at += n;
        }
        out->sparse.push_back(std::move(sp));
      }
    }
    return true;
  }

 private:
  static FeatureKind KindOf(const tensorflow::Feature& f) {
    switch (f.kind_case()) {
      case tensorflow::Feature::kBytesList:
        return FeatureKind::kBytes;
      case tensorflow::Feature::kFloatList:
        return FeatureKind::kFloat;
      case tensorflow::Feature::kInt64List:
        return FeatureKind::kInt64;
      default:
        return FeatureKind::kNone;
    }
  }
  static int64_t Count(const tensorflow::Feature& f) {
    switch (f.kind_case()) {
      case tensorflow::Feature::kBytesList:
        return f.bytes_list().value_size();
      case tensorflow::Feature::kFloatList:
        return f.float_list().value_size();
      case tensorflow::Feature::kInt64List:
        return f.int64_list().value_size();
      default:
        return 0;
    }
  }
  static void Copy(const tensorflow::Feature& f, Tensor& t, int64_t at) {
    switch (f.kind_case()) {
      case tensorflow::Feature::kBytesList: {
        std::string* out = t.mutable_flat<std::string>().value().data() + at;
        for (const std::string& s : f.bytes_list().value()) *out++ = s;
        break;
      }
      case tensorflow::Feature::kFloatList:
        if (f.float_list().value_size() > 0) {
          std::memcpy(t.mutable_flat<float>().value().data() + at,
                      f.float_list().value().data(),
                      sizeof(float) * f.float_list().value_size());
        }
        break;
      case tensorflow::Feature::kInt64List:
        if (f.int64_list().value_size() > 0) {
          std::memcpy(t.mutable_flat<int64_t>().value().data() + at,
                      f.int64_list().value().data(),
                      sizeof(int64_t) * f.int64_list().value_size());
        }
        break;
      default:
        break;
    }
  }

  std::vector<FeatureDef> defs_;
  std::vector<tensorflow::Example> messages_;
  std::vector<const tensorflow::Feature*> found_;
};

std::vector<FeatureDef> FashionDefs() {
  return {{"image", FeatureKind::kBytes, true, 1, 1, true},
          {"label", FeatureKind::kInt64, true, 1, 1, true}};
}

// ---- benchmarks -----------------------------------------------------------

void RunInflowBatch(benchmark::State& state,
                    const std::vector<std::string>& records,
                    FeatureSpecs specs) {
  ExampleParser parser = ExampleParser::Create(std::move(specs)).value();
  size_t at = 0;
  for (auto _ : state) {
    std::span<const std::string> batch(records.data() + at, kBatch);
    Result<ParsedFeatures> r = parser.ParseBatch(batch);
    if (!r.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
    at = (at + kBatch) % records.size();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void RunProtobufBatch(benchmark::State& state,
                      const std::vector<std::string>& records,
                      std::vector<FeatureDef> defs) {
  ProtobufExtractor extractor(std::move(defs));
  size_t at = 0;
  for (auto _ : state) {
    std::span<const std::string> batch(records.data() + at, kBatch);
    ParsedFeatures out;
    if (!extractor.Parse(batch, false, &out))
      state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(out);
    at = (at + kBatch) % records.size();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void RunInflowSingle(benchmark::State& state,
                     const std::vector<std::string>& records,
                     FeatureSpecs specs) {
  ExampleParser parser = ExampleParser::Create(std::move(specs)).value();
  size_t at = 0;
  for (auto _ : state) {
    Result<ParsedFeatures> r = parser.ParseSingle(records[at]);
    if (!r.ok()) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(r);
    at = (at + 1) % records.size();
  }
  state.SetItemsProcessed(state.iterations());
}

void RunProtobufSingle(benchmark::State& state,
                       const std::vector<std::string>& records,
                       std::vector<FeatureDef> defs) {
  ProtobufExtractor extractor(std::move(defs));
  size_t at = 0;
  for (auto _ : state) {
    ParsedFeatures out;
    if (!extractor.Parse(std::span<const std::string>(&records[at], 1), true,
                         &out)) {
      state.SkipWithError("parse failed");
    }
    benchmark::DoNotOptimize(out);
    at = (at + 1) % records.size();
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Inflow_FashionMnist(benchmark::State& state) {
  RunInflowBatch(state, FashionRecords(), FashionSpecs());
}
void BM_Protobuf_FashionMnist(benchmark::State& state) {
  RunProtobufBatch(state, FashionRecords(), FashionDefs());
}
void BM_Inflow_Features20(benchmark::State& state) {
  RunInflowBatch(state, Features20Records(), Features20Specs());
}
void BM_Protobuf_Features20(benchmark::State& state) {
  RunProtobufBatch(state, Features20Records(), Features20());
}
void BM_Inflow_FashionMnistSingle(benchmark::State& state) {
  RunInflowSingle(state, FashionRecords(), FashionSpecs());
}
void BM_Protobuf_FashionMnistSingle(benchmark::State& state) {
  RunProtobufSingle(state, FashionRecords(), FashionDefs());
}
void BM_Inflow_Features20Single(benchmark::State& state) {
  RunInflowSingle(state, Features20Records(), Features20Specs());
}
void BM_Protobuf_Features20Single(benchmark::State& state) {
  RunProtobufSingle(state, Features20Records(), Features20());
}

// Zero copy: the image becomes a uint8 [784] tensor viewing the record.
void BM_Inflow_FashionMnistZeroCopy(benchmark::State& state) {
  std::vector<std::shared_ptr<const std::string>> records;
  for (const std::string& r : FashionRecords()) {
    records.push_back(std::make_shared<const std::string>(r));
  }
  ExampleView view;
  size_t at = 0;
  for (auto _ : state) {
    const auto& record = records[at];
    if (!view.Parse(*record).ok()) state.SkipWithError("parse failed");
    const FeatureView* image = view.Find("image");
    const FeatureView* label = view.Find("label");
    if (image == nullptr || label == nullptr || image->size() != 1 ||
        label->kind() != FeatureKind::kInt64 || label->size() != 1) {
      state.SkipWithError("bad example");
      break;
    }
    std::string_view pixels;
    image->ForEachBytes([&](std::string_view v) { pixels = v; });
    Result<Tensor> t = DecodeRawShared(record, pixels, DType::kUInt8);
    int64_t y;
    label->CopyInt64s(&y);
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(y);
    at = (at + 1) % records.size();
  }
  state.SetItemsProcessed(state.iterations());
}

// The protobuf counterpart: parse, then copy the image into a uint8 tensor.
void BM_Protobuf_FashionMnistZeroCopy(benchmark::State& state) {
  const std::vector<std::string>& records = FashionRecords();
  tensorflow::Example message;
  size_t at = 0;
  for (auto _ : state) {
    if (!message.ParseFromString(records[at]))
      state.SkipWithError("parse failed");
    const auto& map = message.features().feature();
    auto image = map.find("image");
    auto label = map.find("label");
    if (image == map.end() || label == map.end() ||
        image->second.bytes_list().value_size() != 1 ||
        label->second.int64_list().value_size() != 1) {
      state.SkipWithError("bad example");
      break;
    }
    Result<Tensor> t =
        DecodeRaw(image->second.bytes_list().value(0), DType::kUInt8);
    int64_t y = label->second.int64_list().value(0);
    benchmark::DoNotOptimize(t);
    benchmark::DoNotOptimize(y);
    at = (at + 1) % records.size();
  }
  state.SetItemsProcessed(state.iterations());
}

BENCHMARK(BM_Inflow_FashionMnist)->Repetitions(3);
BENCHMARK(BM_Protobuf_FashionMnist)->Repetitions(3);
BENCHMARK(BM_Inflow_Features20)->Repetitions(3);
BENCHMARK(BM_Protobuf_Features20)->Repetitions(3);
BENCHMARK(BM_Inflow_FashionMnistSingle)->Repetitions(3);
BENCHMARK(BM_Protobuf_FashionMnistSingle)->Repetitions(3);
BENCHMARK(BM_Inflow_Features20Single)->Repetitions(3);
BENCHMARK(BM_Protobuf_Features20Single)->Repetitions(3);
BENCHMARK(BM_Inflow_FashionMnistZeroCopy)->Repetitions(3);
BENCHMARK(BM_Protobuf_FashionMnistZeroCopy)->Repetitions(3);

// Both sides must produce identical tensors, or the comparison means
// nothing.
bool SameOutputs(const std::vector<std::string>& records, FeatureSpecs specs,
                 std::vector<FeatureDef> defs) {
  ExampleParser parser = ExampleParser::Create(std::move(specs)).value();
  ProtobufExtractor extractor(std::move(defs));
  for (bool single : {false, true}) {
    std::span<const std::string> batch(records.data(), single ? 1 : kBatch);
    Result<ParsedFeatures> ours =
        single ? parser.ParseSingle(batch[0]) : parser.ParseBatch(batch);
    ParsedFeatures theirs;
    if (!ours.ok() || !extractor.Parse(batch, single, &theirs)) return false;
    if (ours->dense.size() != theirs.dense.size() ||
        ours->sparse.size() != theirs.sparse.size()) {
      return false;
    }
    for (size_t i = 0; i < theirs.dense.size(); ++i) {
      if (!(ours->dense[i] == theirs.dense[i])) return false;
    }
    for (size_t i = 0; i < theirs.sparse.size(); ++i) {
      if (!(ours->sparse[i].indices == theirs.sparse[i].indices) ||
          !(ours->sparse[i].values == theirs.sparse[i].values) ||
          !(ours->sparse[i].dense_shape == theirs.sparse[i].dense_shape)) {
        return false;
      }
    }
  }
  return true;
}

class CaptureReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    // The best of the repetitions: the machine is shared, and interference
    // only ever slows a run down.
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;
      auto it = run.counters.find("items_per_second");
      if (it == run.counters.end()) continue;
      double& best = rates[run.run_name.function_name];
      best = std::max(best, static_cast<double>(it->second.value));
    }
    ConsoleReporter::ReportRuns(runs);
  }
  std::map<std::string, double> rates;
};

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) {
  using inflow::FashionRecords;
  using inflow::Features20Records;
  if (!inflow::SameOutputs(FashionRecords(), inflow::FashionSpecs(),
                           inflow::FashionDefs()) ||
      !inflow::SameOutputs(Features20Records(), inflow::Features20Specs(),
                           inflow::Features20())) {
    std::fprintf(stderr, "inflow and protobuf extraction disagree\n");
    return 1;
  }
  const bool smoke = inflow::bench::TakeSmokeFlag(&argc, argv);
  inflow::bench::BenchArgs args(argc, argv, smoke);
  benchmark::Initialize(args.argc(), args.argv());
  if (benchmark::ReportUnrecognizedArguments(*args.argc(), args.argv())) {
    return 1;
  }
  inflow::CaptureReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  auto rate = [&](const std::string& name) {
    auto it = reporter.rates.find(name);
    return it == reporter.rates.end() ? 0.0 : it->second;
  };
  auto ratio = [&](const std::string& suffix) {
    const double theirs = rate("BM_Protobuf_" + suffix);
    return theirs > 0 ? rate("BM_Inflow_" + suffix) / theirs : 0.0;
  };
  std::string per_s;
  for (const auto& [name, value] : reporter.rates) {
    char buf[160];
    std::snprintf(buf, sizeof(buf), "%s\"%s\": %.0f", per_s.empty() ? "" : ", ",
                  name.substr(3).c_str(), value);
    per_s += buf;
  }
  std::printf(
      "{\"bench\": \"example\", \"ratio_vs_protobuf\": {\"fashion_mnist\": "
      "%.2f, \"features20\": %.2f, \"fashion_mnist_single\": %.2f, "
      "\"features20_single\": %.2f, \"fashion_mnist_zero_copy\": %.2f}, "
      "\"examples_per_s\": {%s}, \"kernels\": %s}\n",
      ratio("FashionMnist"), ratio("Features20"), ratio("FashionMnistSingle"),
      ratio("Features20Single"), ratio("FashionMnistZeroCopy"), per_s.c_str(),
      inflow::bench::KernelsJson(
          {{"varint", inflow::internal::VarintKernelName(
                          inflow::internal::SelectedVarintKernel())}})
          .c_str());
  return 0;
}
