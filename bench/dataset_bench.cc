// Copyright 2026 The inflow Authors.
//
// bench_dataset: the Fashion-MNIST input pipeline as an inflow Dataset
// (data/dataset.h), beside the queue Pipeline (input/pipeline.h) and
// tf.data, in one run; and the size of an iterator checkpoint.
//
// The data: bench_pipeline's (Fashion-MNIST's 60000 training images as 4
// TFRecord shards of tf.train.Examples, pipeline_data.h). The forms, each
// reading every shard --epochs times and handing batches of 128 (float32
// images [128, 784] in [0, 1], int64 labels) to a consumer that sums them:
//
//   dataset_per_example  TFRecord -> map(parse one Example + decode_raw to
//                        float, 2 threads) -> shuffle(10000) -> batch(128,
//                        drop_remainder) -> prefetch(2);
//   dataset_batched      TFRecord -> shuffle(10000) of the records ->
//                        batch(128) -> map(parse the batch in place with
//                        ExampleView + decode its images into one float
//                        tensor, 2 threads) -> prefetch(2) (tf.data's
//                        vectorized form);
//   dataset_rows         TFRecord -> batch(128) of the records -> map(parse
//                        + decode, 2 threads) -> unbatch -> shuffle(10000)
//                        -> batch(128, drop_remainder) (the rows' path);
//   dataset_inline       dataset_batched without threads: its map and no
//                        prefetch run in the consumer's Next() calls;
//   dataset_split        TFRecord -> shuffle(10000) of the records ->
//                        batch(128) -> prefetch(2) -> map(parse + decode
//                        as dataset_batched's, in the consumer's Next()):
//                        the batches of records (110 KB) handed from one
//                        thread to the other, not the float batches;
//   dataset_files        the shards, 2 at a time, each read on a thread of
//                        its own (interleave, 2 parallel calls) in batches
//                        of 128 records -> unbatch -> shuffle(10000) of the
//                        records -> batch(128) -> map(parse + decode as
//                        dataset_batched's, 2 threads) -> prefetch(2);
//   queue_pipeline       the Pipeline builder, 2 reader threads, read_batch
//                        128, raw_to_float, shuffle batching capacity 10000,
//                        min_after_dequeue 5000 (bench_pipeline's);
//   tf_data              bench/py/dataset_tf.py in the project's venv: the
//                        same two forms in tf.data with AUTOTUNE, the best.
//
// Each round runs every form once, a different one first each round; a
// form's figure is its median over --rounds. checkpoint_bytes: the iterator
// state after 5000 elements of TFRecord -> map(parse + decode) ->
// shuffle(10000), inflow's Save() against tf.data's
// tf.train.Checkpoint(iterator=it) files (the script's). --only=FORM runs
// that form alone (its figures on stderr, no JSON line; a FORM not listed
// above exits with status 2), for profiling;
// --only=stages times the batched form's stages one by one (Stages()).
//
// The last stdout line:
//   {"bench": "dataset", "samples_per_s": {"dataset_per_example": ..,
//    "dataset_batched": .., "dataset_rows": .., "dataset_inline": ..,
//    "dataset_split": ..,
//    "dataset_files": ..,
//    "queue_pipeline": ..,
//    "tf_data": ..},
//    "cpu_ns_per_sample": {...}, "ratio_vs_queue_pipeline": x,
//    "ratio_vs_tf_data": y, "checkpoint_bytes": {"inflow": a, "tf_data": b},
//    "kernels": {...}}
// where x and y take the best inflow Dataset form: x is the median over
// the rounds of each round's best form over the Pipeline in that round
// (each round's on stderr), y the best form's median over tf.data's;
// without TensorFlow
// (INFLOW_TF_PYTHON a Python that fails) ratio_vs_tf_data is null, the
// tf_data entries are left out and "tf_data_reason" says why. --smoke:
// 6000 images, one round.

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "inflow/data/dataset.h"
#include "inflow/example/decode_raw.h"
#include "inflow/example/example_parser.h"
#include "inflow/example/feature_view.h"

#include "bench_util.h"
#include "core/convert_kernels.h"
#include "io/crc32c_internal.h"
#include "pipeline_data.h"
#include "pipeline_inflow.h"
#include "pipeline_plain.h"

namespace inflow::bench {
namespace {

constexpr int kStateElements = 5000;

double WallSeconds() { return CpuSeconds(CLOCK_MONOTONIC); }

FeatureSpecs Features() {
  return {{"image_raw", FixedLenFeature{{}, DType::kString}},
          {"label", FixedLenFeature{{}, DType::kInt64}}};
}

// {image float32 [784] or [n, 784], label int64 [] or [n]} of parsed
// features.
Result<Tuple> Decode(ParsedFeatures parsed) {
  INFLOW_ASSIGN_OR_RETURN(
      Tensor images,
      DecodeRawToFloat(*parsed.FindDense("image_raw"), 1.0f / 255));
  return Tuple{std::move(images), *parsed.FindDense("label")};
}

data::Dataset PerExample(const std::vector<std::string>& paths, int epochs,
                         const ExampleParser& parser) {
  return data::Dataset::TFRecord(paths).Repeat(epochs).Map(
      [parser](Tuple r) -> Result<Tuple> {
        INFLOW_ASSIGN_OR_RETURN(
            ParsedFeatures p, parser.ParseSingle(r[0].flat<std::string>()[0]));
        return Decode(std::move(p));
      },
      {.num_parallel_calls = 2});
}

// Asks for a record's header ahead of its parse, as ExampleParser's
// batch parse does: after a shuffle the records of a batch are scattered
// over the shuffle buffer's megabytes (DecodeRawToFloat asks for the
// image bytes ahead itself).
constexpr int64_t kAhead = 2;
void Prefetch(const std::string& record) {
  if (record.empty()) return;
  __builtin_prefetch(record.data());
  __builtin_prefetch(record.data() + record.size() - 1);
}

// A batch of records parsed in place (ExampleView: the bytes stay in the
// records) and its images decoded straight into the batch's float tensor.
Result<Tuple> ParseAndDecodeBatch(const Tensor& records) {
  const auto r = records.flat<std::string>();
  const int64_t n = static_cast<int64_t>(r.size());
  std::vector<std::string_view> raw(r.size());
  Tensor labels(DType::kInt64, TensorShape({n}));
  INFLOW_ASSIGN_OR_RETURN(std::span<int64_t> label,
                          labels.mutable_flat<int64_t>());
  thread_local ExampleView view;
  for (int64_t i = 0; i < n; ++i) {
    if (i + kAhead < n) Prefetch(r[i + kAhead]);
    INFLOW_RETURN_IF_ERROR(view.Parse(r[i]));
    const FeatureView* image = view.Find("image_raw");
    const FeatureView* l = view.Find("label");
    if (image == nullptr || l == nullptr ||
        image->kind() != FeatureKind::kBytes || image->size() != 1 ||
        l->kind() != FeatureKind::kInt64 || l->size() != 1) {
      return InvalidArgumentError("record " + std::to_string(i) +
                                  " of the batch is not an image Example");
    }
    image->ForEachBytes([&](std::string_view v) { raw[i] = v; });
    l->CopyInt64s(&label[i]);
  }
  INFLOW_ASSIGN_OR_RETURN(Tensor images, DecodeRawToFloat(raw, 1.0f / 255));
  return Tuple{std::move(images), std::move(labels)};
}

// The shards' records, `epochs` times, shuffled(10000) and batched(128):
// the start of the forms that parse batches of records.
data::Dataset RecordBatches(const std::vector<std::string>& paths, int epochs) {
  return data::Dataset::TFRecord(paths)
      .Repeat(epochs)
      .Shuffle(kCapacity, 1)
      .Batch(kBatchSize, true);
}

data::Dataset Batched(const std::vector<std::string>& paths, int epochs) {
  return RecordBatches(paths, epochs)
      .Map([](Tuple r) { return ParseAndDecodeBatch(r[0]); },
           {.num_parallel_calls = 2})
      .Prefetch(2);
}

// The records batched, parsed on the map's workers while they are hot,
// and the rows shuffled and batched again (the rows' path: each row
// copied into the shuffle's slots and out into the batch).
data::Dataset Rows(const std::vector<std::string>& paths, int epochs) {
  return data::Dataset::TFRecord(paths)
      .Repeat(epochs)
      .Batch(kBatchSize)
      .Map([](Tuple r) { return ParseAndDecodeBatch(r[0]); },
           {.num_parallel_calls = 2})
      .Unbatch()
      .Shuffle(kCapacity, 1)
      .Batch(kBatchSize, true);
}

// The files read two at a time on threads of their own (a parallel
// interleave, tf.data's way to read files at once), in batches of records
// unbatched into a shuffle of records (strings moved, not copied), then
// batched and parsed as dataset_batched's.
data::Dataset Files(const std::vector<std::string>& paths, int epochs) {
  return data::Dataset::FromTensorSlices({Tensor::FromVector(paths)})
      .Repeat(epochs)
      .Interleave(
          [](Tuple f) -> Result<data::Dataset> {
            return data::Dataset::TFRecord({f[0].flat<std::string>()[0]})
                .Batch(kBatchSize);
          },
          {.cycle_length = 2, .num_parallel_calls = 2})
      .Unbatch()
      .Shuffle(kCapacity, 1)
      .Batch(kBatchSize, true)
      .Map([](Tuple r) { return ParseAndDecodeBatch(r[0]); },
           {.num_parallel_calls = 2})
      .Prefetch(2);
}

// The batched form with no thread of its own: every stage runs in the
// consumer's calls of Next(), which converts each batch into memory its
// own core used last.
data::Dataset Inline(const std::vector<std::string>& paths, int epochs) {
  return RecordBatches(paths, epochs).Map([](Tuple r) {
    return ParseAndDecodeBatch(r[0]);
  });
}

// The batched form split between two threads where a batch is small: the
// records read, shuffled and batched on a prefetch thread, and handed
// over as batches of records (about 110 KB); the parse and the
// conversion into floats in the consumer's Next() calls, into memory its
// own core used last.
data::Dataset Split(const std::vector<std::string>& paths, int epochs) {
  return RecordBatches(paths, epochs).Prefetch(2).Map([](Tuple r) {
    return ParseAndDecodeBatch(r[0]);
  });
}

struct Timed {
  double samples_per_s = 0;
  double cpu_ns_per_sample = 0;
};

Timed TimeDataset(const data::Dataset& ds) {
  const double t0 = WallSeconds(), c0 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  data::Iterator it = OrDie(ds.MakeIterator());
  size_t samples = 0;
  double checksum = 0;
  for (;;) {
    Result<Tuple> b = it.Next();
    if (IsOutOfRange(b.status())) break;
    OrDie(b.status());
    checksum += ConsumeBatch((*b)[0].data<float>(), (*b)[1].data<int64_t>(),
                             kBatchSize);
    samples += kBatchSize;
  }
  const double wall = WallSeconds() - t0;
  const double cpu = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
  benchmark::DoNotOptimize(checksum);
  return {samples / wall, cpu / samples * 1e9};
}

Timed TimePipeline(const std::vector<std::string>& paths, int epochs) {
  const double t0 = WallSeconds(), c0 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  const LoopResult r = RunPipelineBuilder(paths, epochs, 2, 0);
  const double wall = WallSeconds() - t0;
  const double cpu = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
  benchmark::DoNotOptimize(r.checksum);
  return {r.samples / wall, cpu / static_cast<double>(r.samples) * 1e9};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// The tf.data side's JSON line, or "" and `reason`.
std::string RunTfData(const std::vector<std::string>& paths, int epochs,
                      int rounds, std::string* reason) {
  const char* python = std::getenv("INFLOW_TF_PYTHON");
  std::string cmd =
      std::string(python != nullptr && *python != 0 ? python
                                                    : INFLOW_VENV_PYTHON) +
      " " INFLOW_TF_DATA_SCRIPT " --epochs " + std::to_string(epochs) +
      " --rounds " + std::to_string(rounds) + " --state-after " +
      std::to_string(kStateElements);
  for (const std::string& p : paths) cmd += " " + p;
  cmd += " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) {
    *reason = "cannot run the tf.data script";
    return "";
  }
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  const int rc = ::pclose(pipe);
  const size_t at = out.rfind("{\"tf_data\": ");
  if (rc != 0 || at == std::string::npos) {
    std::string tail = out.substr(out.size() > 300 ? out.size() - 300 : 0);
    std::replace(tail.begin(), tail.end(), '"', '\'');
    std::replace(tail.begin(), tail.end(), '\n', ' ');
    *reason = "the tf.data script failed (exit status " +
              std::to_string(WIFEXITED(rc) ? WEXITSTATUS(rc) : rc) +
              "): " + tail;
    return "";
  }
  std::string line = out.substr(at);
  return line.substr(0, line.find('\n'));
}

// A number member of a flat JSON line ("" when absent or null).
std::string Member(const std::string& line, const std::string& name) {
  const size_t at = line.find("\"" + name + "\": ");
  if (at == std::string::npos) return "";
  size_t from = at + name.size() + 4;
  size_t to = line.find_first_of(",}", from);
  std::string v = line.substr(from, to - from);
  return v == "null" ? "" : v;
}

size_t InflowStateBytes(const std::vector<std::string>& paths,
                        const ExampleParser& parser) {
  data::Iterator it =
      OrDie(PerExample(paths, 1, parser).Shuffle(kCapacity, 1).MakeIterator());
  for (int k = 0; k < kStateElements; ++k) OrDie(it.Next().status());
  return OrDie(it.Save()).size();
}

// --only=stages: the batched form's prefixes, each a full pass over the
// shards: CPU ns per record of TFRecord alone, then with shuffle(10000),
// batch(128), the parse+decode map on the calling thread, the map on 2
// threads, and the whole form (prefetch too); a stage's own cost is its
// line minus the one above. INFLOW_BENCH_STAGE=NAME runs that one alone
// (for perf).
int Stages(const std::vector<std::string>& paths, int epochs) {
  using data::Dataset;
  const std::vector<std::pair<const char*, Dataset>> prefixes = {
      {"tfrecord", Dataset::TFRecord(paths).Repeat(epochs)},
      {"+shuffle",
       Dataset::TFRecord(paths).Repeat(epochs).Shuffle(kCapacity, 1)},
      {"+batch", Dataset::TFRecord(paths)
                     .Repeat(epochs)
                     .Shuffle(kCapacity, 1)
                     .Batch(kBatchSize, true)},
      {"+map", Dataset::TFRecord(paths)
                   .Repeat(epochs)
                   .Shuffle(kCapacity, 1)
                   .Batch(kBatchSize, true)
                   .Map([](Tuple r) { return ParseAndDecodeBatch(r[0]); })},
      {"+map/2", Dataset::TFRecord(paths)
                     .Repeat(epochs)
                     .Shuffle(kCapacity, 1)
                     .Batch(kBatchSize, true)
                     .Map([](Tuple r) { return ParseAndDecodeBatch(r[0]); },
                          {.num_parallel_calls = 2})},
      {"+batch+pf", Dataset::TFRecord(paths)
                        .Repeat(epochs)
                        .Shuffle(kCapacity, 1)
                        .Batch(kBatchSize, true)
                        .Prefetch(2)},
      {"+prefetch", Batched(paths, epochs)},
  };
  const char* one = std::getenv("INFLOW_BENCH_STAGE");  // just that one
  for (const auto& [name, ds] : prefixes) {
    if (one != nullptr && name != std::string(one)) continue;
    const double c0 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
    const double t0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
    data::Iterator it = OrDie(ds.MakeIterator());
    size_t records = 0;
    for (;;) {
      Result<Tuple> b = it.Next();
      if (IsOutOfRange(b.status())) break;
      OrDie(b.status());
      const int64_t d0 = (*b)[0].shape().rank() ? (*b)[0].shape().dim(0) : 1;
      records += static_cast<size_t>(d0);
    }
    const double cpu = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
    const double own = CpuSeconds(CLOCK_THREAD_CPUTIME_ID) - t0;
    std::fprintf(stderr,
                 "bench_dataset: %-10s %7.0f CPU ns per record (%.0f on the "
                 "consumer's thread)\n",
                 name, cpu / records * 1e9, own / records * 1e9);
  }
  return 0;
}

int Main(bool smoke, int rounds, int epochs, const std::string& only) {
  const Images images = LoadFashionMnist(kDatasetDir, smoke ? 6000 : 0);
  const Shards shards(images, 4);
  const std::vector<std::string>& paths = shards.paths();
  const ExampleParser parser = OrDie(ExampleParser::Create(Features()));
  if (smoke) rounds = 1;
  if (only == "stages") return Stages(paths, epochs);

  std::vector<std::string> names = {"dataset_per_example", "dataset_batched",
                                    "dataset_rows",        "dataset_inline",
                                    "dataset_split",       "dataset_files",
                                    "queue_pipeline"};
  if (!only.empty()) {
    if (std::find(names.begin(), names.end(), only) == names.end()) {
      std::fprintf(stderr, "bench_dataset: no form '%s'\n", only.c_str());
      return 2;
    }
    names = {only};
  }
  std::map<std::string, std::vector<double>> rates, cpu;
  for (int r = 0; r < rounds; ++r) {
    for (size_t k = 0; k < names.size(); ++k) {
      const std::string& name = names[(k + r) % names.size()];
      Timed t;
      if (name == "dataset_per_example") {
        t = TimeDataset(PerExample(paths, epochs, parser)
                            .Shuffle(kCapacity, 1)
                            .Batch(kBatchSize, true)
                            .Prefetch(2));
      } else if (name == "dataset_batched") {
        t = TimeDataset(Batched(paths, epochs));
      } else if (name == "dataset_split") {
        t = TimeDataset(Split(paths, epochs));
      } else if (name == "dataset_inline") {
        t = TimeDataset(Inline(paths, epochs));
      } else if (name == "dataset_files") {
        t = TimeDataset(Files(paths, epochs));
      } else if (name == "dataset_rows") {
        t = TimeDataset(Rows(paths, epochs));
      } else {
        t = TimePipeline(paths, epochs);
      }
      rates[name].push_back(t.samples_per_s);
      cpu[name].push_back(t.cpu_ns_per_sample);
      std::fprintf(stderr,
                   "bench_dataset: round %d: %-20s %10.0f samples/s, %6.0f "
                   "CPU ns/sample\n",
                   r, name.c_str(), t.samples_per_s, t.cpu_ns_per_sample);
    }
  }
  std::map<std::string, double> med, cpu_med;
  for (const std::string& n : names) {
    med[n] = Median(rates[n]);
    cpu_med[n] = Median(cpu[n]);
  }
  if (!only.empty()) return 0;  // --only: the figures on stderr
  // The best of the Dataset forms (every form but the queue Pipeline).
  const auto best_dataset = [&](auto figure) {
    double best = 0;
    for (const std::string& n : names) {
      if (n != "queue_pipeline") best = std::max(best, figure(n));
    }
    return best;
  };
  const double inflow =
      best_dataset([&](const std::string& n) { return med[n]; });
  const size_t state_bytes = InflowStateBytes(paths, parser);

  std::string reason;
  const std::string tf = RunTfData(paths, epochs, rounds, &reason);
  const std::string tf_rate = Member(tf, "tf_data");
  const std::string tf_ckpt = Member(tf, "checkpoint_bytes");
  std::string tf_ratio = "null";
  if (!tf_rate.empty() && std::atof(tf_rate.c_str()) > 0) {
    char b[32];
    std::snprintf(b, sizeof(b), "%.3f", inflow / std::atof(tf_rate.c_str()));
    tf_ratio = b;
  }
  auto num = [](double v) {
    char b[32];
    std::snprintf(b, sizeof(b), "%.1f", v);
    return std::string(b);
  };
  std::string line = "{\"bench\": \"dataset\", \"samples_per_s\": {";
  for (const std::string& n : names)
    line += "\"" + n + "\": " + num(med[n]) + ", ";
  // Objects hold numbers only: tf.data's entries are left out without it.
  if (!tf_rate.empty()) line += "\"tf_data\": " + tf_rate;
  while (line.back() == ' ' || line.back() == ',') line.pop_back();
  line += "}, \"cpu_ns_per_sample\": {";
  for (size_t k = 0; k < names.size(); ++k) {
    line += (k ? ", \"" : "\"") + names[k] + "\": " + num(cpu_med[names[k]]);
  }
  // Against the Pipeline: each round's best Dataset form over the
  // Pipeline in the same round (seconds apart), the median over the rounds
  // (steadier than a ratio of medians on a host whose speed moves).
  std::vector<double> per_round;
  for (int r = 0; r < rounds; ++r) {
    const double best =
        best_dataset([&](const std::string& n) { return rates[n][r]; });
    per_round.push_back(best / rates["queue_pipeline"][r]);
  }
  for (int r = 0; r < rounds; ++r) {
    std::fprintf(stderr,
                 "bench_dataset: round %d: the best Dataset form over the "
                 "queue Pipeline %.3f\n",
                 r, per_round[r]);
  }
  char ratio[32];
  std::snprintf(ratio, sizeof(ratio), "%.3f", Median(per_round));
  line +=
      "}, \"ratio_vs_queue_pipeline\": " + std::string(ratio) +
      ", \"ratio_vs_tf_data\": " + tf_ratio +
      ", \"checkpoint_bytes\": {\"inflow\": " + std::to_string(state_bytes) +
      (tf_ckpt.empty() ? "" : ", \"tf_data\": " + tf_ckpt) +
      "}, \"rounds\": " + std::to_string(rounds) + ", ";
  if (!reason.empty()) line += "\"tf_data_reason\": \"" + reason + "\", ";
  line += "\"kernels\": " +
          KernelsJson({{"crc32c", crc32c::internal::KernelName(
                                      crc32c::internal::SelectedKernel())},
                       {"convert", internal::ConvertKernelName(
                                       internal::SelectedConvertKernel())}}) +
          "}";
  std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace
}  // namespace inflow::bench

int main(int argc, char** argv) {
  bool smoke = false;
  int rounds = 3, epochs = 2;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--smoke") smoke = true;
    if (a.rfind("--rounds=", 0) == 0) rounds = std::atoi(a.c_str() + 9);
    if (a.rfind("--epochs=", 0) == 0) epochs = std::atoi(a.c_str() + 9);
    if (a.rfind("--only=", 0) == 0) only = a.substr(7);
  }
  return inflow::bench::Main(smoke, std::max(1, rounds), std::max(1, epochs),
                             only);
}
