// Copyright 2026 The inflow Authors.
//
// bench_custom_ops: what a custom op (docs/custom_ops.md) costs against the
// same computation as a plain map function, and the word2vec example's
// words/s against the same algorithm in NumPy, in one run.
//
//   dataset_map   Dataset::Range(n) -> Map(x + 1): a plain MapFn against
//                 the BenchAddOne op of an op library (custom_ops_lib.cc,
//                 loaded with LoadOpLibrary) through OpMapFn; ns per
//                 element;
//   pipeline_map  a text file's lines through a Pipeline (1 reader,
//                 read_batch 256, batch 256) mapped to their lengths: a
//                 plain MapFunction over each chunk against ops run on
//                 each record through OpPipelineMap: BenchLength (makes
//                 its output tensor and sets it, SetOutput) and
//                 BenchLengthInto (writes into AllocateOutput's); the
//                 BenchLengths op over each chunk (OpMapUnit::kChunk, the
//                 plain function's unit); and BenchLength's step built in
//                 (plain_tensors: a plain function over each chunk that
//                 makes a scalar tensor per record, as the kernel does, the
//                 SetOutput form's "same built-in step"); ns per record;
//   map_call      the same map functions alone, called on one chunk of 256
//                 of those lines over and over (no reader, no queues):
//                 what each form costs per record by itself, ns;
//   word2vec      the words of /usr/share/common-licenses (repeated to
//                 --words), trained for 1 epoch (dim 64, window 5, 5
//                 negatives, batch 256): the example's op library
//                 (examples/word2vec/word2vec_ops.cc) driven from C++, as
//                 train_word2vec does, against bench/py/word2vec_numpy.py
//                 (the same algorithm, vectorized per batch of pairs, in
//                 the project's venv); words/s.
//
// Each round runs every form once (the pipeline forms twice, in one order
// and back, a figure being the two runs' mean); a figure is its median
// over --rounds.
// The last stdout line:
//   {"bench": "custom_ops", "ns_per_call": {"dataset_map_plain": ..,
//    "dataset_map_op": .., "pipeline_map_plain": .., "pipeline_map_op": ..,
//    "pipeline_map_op_allocate": .., "pipeline_map_op_chunk": ..,
//    "pipeline_map_plain_tensors": ..},
//    "overhead_ratio": {"dataset_map": x, "pipeline_map": y,
//    "pipeline_map_allocate": y2, "pipeline_map_chunk": z,
//    "pipeline_map_vs_same_step": the SetOutput op over plain_tensors},
//    "cpu_ns_per_record": {the pipeline forms' process CPU time},
//    "cpu_overhead_ratio": {the pipeline ratios of CPU time},
//    "map_call_ns_per_record": {"plain": .., "op": .., "op_allocate": ..,
//    "op_chunk": .., "plain_tensors": ..},
//    "words_per_s": {"word2vec_op": a, "word2vec_numpy": b},
//    "ratio_op_vs_numpy": c, "kernels": {}}
// overhead_ratio is the op's time over the plain function's, the median
// over the rounds of the two forms' ratio in the same round (the goal:
// <= 1.1); the pipeline forms' CPU time (all threads) is less moved than
// their wall time by a busy host. Without NumPy (INFLOW_NUMPY_PYTHON a Python
// that fails) word2vec_numpy and ratio_op_vs_numpy are null and "numpy_reason"
// says why. --smoke: tiny sizes, one round. --rounds=N, --words=N (the corpus),
// --lines=N (pipeline_map's file, 2,000,000 lines unless given),
// --only=PREFIX (the forms whose names begin with it; the others null).

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "inflow/data/dataset.h"
#include "inflow/input/pipeline.h"
#include "inflow/ops/op.h"
#include "inflow/ops/op_library.h"

#include "bench_util.h"

namespace inflow::bench {
namespace {

namespace fs = std::filesystem;

double Now() { return CpuSeconds(CLOCK_MONOTONIC); }

[[noreturn]] void Die(const Status& s) {
  std::fprintf(stderr, "bench_custom_ops: %s\n", s.ToString().c_str());
  std::exit(1);
}

template <typename T>
T OrDie(Result<T> r) {
  if (!r.ok()) Die(r.status());
  return *std::move(r);
}

// ns per element of Range(n).Map(fn), drained.
double DatasetMap(const data::MapFn& fn, int64_t n) {
  data::Iterator it = OrDie(data::Dataset::Range(n).Map(fn).MakeIterator());
  const double start = Now();
  int64_t sum = 0;
  for (Result<Tuple> e = it.Next(); e.ok(); e = it.Next()) {
    sum += (*e)[0].flat<int64_t>()[0];
  }
  const double seconds = Now() - start;
  if (sum != n * (n + 1) / 2) Die(InternalError("dataset_map: wrong sum"));
  return 1e9 * seconds / static_cast<double>(n);
}

// Wall and process CPU ns (every thread's: the readers', the map's, the
// batching's) per record of `file`'s lines through a Pipeline mapped by
// `map`.
struct PerRecord {
  double wall_ns = 0;
  double cpu_ns = 0;
};
PerRecord PipelineMap(const MapFunction& map, const std::string& file,
                      int64_t lines, int round) {
  PipelineOptions o;
  o.files = {file};
  o.num_epochs = 1;
  o.shuffle_files = false;
  o.format = RecordFormat::kTextLine;
  o.read_batch = 256;
  o.map = map;
  o.batching.batch_size = 256;
  o.batching.allow_smaller_final_batch = true;
  o.name = "bench_custom_ops_" + std::to_string(round);
  const double start = Now();
  const double cpu_start = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  std::shared_ptr<Pipeline> p = OrDie(Pipeline::Create(o));
  int64_t records = 0;
  Result<Tuple> b = p->Next();
  for (; b.ok(); b = p->Next()) records += (*b)[0].dim_size(0);
  const double seconds = Now() - start;
  const double cpu_seconds = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
  if (!IsOutOfRange(b.status())) Die(b.status());
  p->Close().IgnoreError();
  if (records != lines) Die(InternalError("pipeline_map: records lost"));
  const double n = static_cast<double>(records);
  return {1e9 * seconds / n, 1e9 * cpu_seconds / n};
}

// Ns per record of `map` alone, called `calls` times on `chunk`.
double MapCall(const MapFunction& map, const Tuple& chunk, int calls) {
  const int64_t n = chunk[0].dim_size(0);
  int64_t sum = 0;
  const double start = Now();
  for (int c = 0; c < calls; ++c) {
    Result<Tuple> out = map.fn(chunk);
    if (!out.ok()) Die(out.status());
    sum += (*out)[0].flat<int64_t>()[c % n];
  }
  const double seconds = Now() - start;
  if (sum < 0) Die(InternalError("map_call: negative length"));
  return 1e9 * seconds / static_cast<double>(n * calls);
}

// Words/s of one epoch of word2vec with the example's ops.
double Word2vecOp(const std::string& corpus) {
  // From the corpus's reading on, as the NumPy script's figure.
  const double start = Now();
  auto skipgram =
      OrDie(ops::Op::Create("SkipgramWord2vec", {{"filename", corpus},
                                                 {"batch_size", 256},
                                                 {"window_size", 5},
                                                 {"min_count", 5},
                                                 {"epochs", 1}}));
  Result<Tuple> batch = skipgram->Run({});
  if (!batch.ok()) Die(batch.status());
  const int64_t vocab = (*batch)[0].num_elements();
  std::vector<int64_t> counts;
  for (int32_t n : (*batch)[1].flat<int32_t>()) counts.push_back(n);
  auto train =
      OrDie(ops::Op::Create("NegTrainWord2vec", {{"vocab_count", counts},
                                                 {"num_negative_samples", 5}}));
  constexpr int64_t kDim = 64;
  Tensor w_in(DType::kFloat32, TensorShape({vocab, kDim}));
  Tensor w_out(DType::kFloat32, TensorShape({vocab, kDim}));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> init(-0.5f / kDim, 0.5f / kDim);
  // The span, not the Result holding it, outlives the loop's range.
  const std::span<float> w_in_values = *w_in.mutable_flat<float>();
  for (float& x : w_in_values) x = init(rng);
  const int64_t words_per_epoch = (*batch)[2].flat<int64_t>()[0];
  for (; batch.ok(); batch = skipgram->Run({})) {
    const double progress =
        static_cast<double>((*batch)[4].flat<int64_t>()[0]) /
        static_cast<double>(words_per_epoch);
    const float lr = static_cast<float>(0.2 * std::max(1e-4, 1 - progress));
    OrDie(train->Run(
        {w_in, w_out, (*batch)[5], (*batch)[6], Tensor::Scalar<float>(lr)}));
  }
  if (!IsOutOfRange(batch.status())) Die(batch.status());
  return static_cast<double>(words_per_epoch) / (Now() - start);
}

// Words/s of the NumPy script, or -1 with *reason.
double Word2vecNumpy(const std::string& corpus, std::string* reason) {
  const char* python = std::getenv("INFLOW_NUMPY_PYTHON");
  const std::string cmd =
      std::string(python != nullptr && *python != 0 ? python
                                                    : INFLOW_VENV_PYTHON) +
      " " INFLOW_WORD2VEC_NUMPY_SCRIPT " " + corpus + " 2>&1";
  std::FILE* pipe = ::popen(cmd.c_str(), "r");
  if (pipe == nullptr) {
    *reason = "cannot run the NumPy script";
    return -1;
  }
  std::string out;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof(buf), pipe)) out.append(buf, n);
  const int rc = ::pclose(pipe);
  const std::string key = "{\"words_per_s\": ";
  const size_t at = out.rfind(key);
  if (rc != 0 || at == std::string::npos) {
    std::string tail = out.substr(out.size() > 200 ? out.size() - 200 : 0);
    std::replace(tail.begin(), tail.end(), '"', '\'');
    std::replace(tail.begin(), tail.end(), '\n', ' ');
    std::replace(tail.begin(), tail.end(), '\\', '/');
    *reason = "the NumPy script failed: " + tail;
    return -1;
  }
  return std::atof(out.c_str() + at + key.size());
}

// The words of every file of /usr/share/common-licenses, repeated until
// there are `words`, at `path`, 12 a line.
Status WriteCorpus(const std::string& path, int64_t words) {
  std::vector<std::string> all;
  std::error_code ec;
  for (const auto& entry :
       fs::directory_iterator("/usr/share/common-licenses", ec)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path());
    for (std::string w; in >> w;) all.push_back(w);
  }
  if (all.empty()) {
    return NotFoundError("no words in /usr/share/common-licenses");
  }
  std::ofstream out(path);
  for (int64_t i = 0; i < words; ++i) {
    out << all[static_cast<size_t>(i) % all.size()]
        << ((i + 1) % 12 == 0 ? '\n' : ' ');
  }
  out << '\n';
  return out ? OkStatus() : DataLossError("cannot write " + path);
}

std::string Number(double x) {
  if (x < 0) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f", x);
  return buf;
}

std::string Ratio(double a, double b) {
  if (a < 0 || b <= 0) return "null";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.3f", a / b);
  return buf;
}

}  // namespace
}  // namespace inflow::bench

int main(int argc, char** argv) {
  using namespace inflow;
  using namespace inflow::bench;
  const bool smoke = TakeSmokeFlag(&argc, argv);
  int rounds = smoke ? 1 : 5;
  int64_t elements = smoke ? 20000 : 2000000;
  int64_t lines = smoke ? 5000 : 2000000;
  int64_t words = smoke ? 20000 : 1000000;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.starts_with("--rounds=")) rounds = std::atoi(a.c_str() + 9);
    if (a.starts_with("--words=")) words = std::atoll(a.c_str() + 8);
    if (a.starts_with("--lines=")) lines = std::atoll(a.c_str() + 8);
    if (a.starts_with("--only=")) only = a.substr(7);
  }

  OrDie(ops::LoadOpLibrary(INFLOW_BENCH_OP_LIBRARY));
  OrDie(ops::LoadOpLibrary(INFLOW_WORD2VEC_OP_LIBRARY));

  const fs::path dir = fs::temp_directory_path() / ("inflow_bench_custom_ops_" +
                                                    std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string text = (dir / "lines.txt").string();
  {
    std::ofstream out(text);
    for (int64_t i = 0; i < lines; ++i) out << std::string(i % 40, 'x') << "\n";
  }
  const std::string corpus = (dir / "corpus.txt").string();
  if (Status s = WriteCorpus(corpus, words); !s.ok()) Die(s);

  const data::MapFn plain_add = [](Tuple e) -> Result<Tuple> {
    return Tuple{Tensor::Scalar<int64_t>(e[0].flat<int64_t>()[0] + 1)};
  };
  const data::MapFn op_add =
      ops::OpMapFn(OrDie(ops::Op::Create("BenchAddOne")));
  MapFunction plain_length;
  plain_length.dtypes = {DType::kInt64};
  plain_length.row_shapes = {PartialShape({})};
  plain_length.names = {"length"};
  plain_length.fn = [](Tuple rows) -> Result<Tuple> {
    const int64_t n = rows[0].dim_size(0);
    Tensor out(DType::kInt64, TensorShape({n}));
    std::span<int64_t> v = *out.mutable_flat<int64_t>();
    std::span<const std::string> s = rows[0].flat<std::string>();
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(s[i].size());
    return Tuple{out};
  };
  // The SetOutput kernel's step built in: a scalar tensor made for each
  // record, as the kernel makes it, and copied into the chunk's output.
  MapFunction plain_length_tensors = plain_length;
  plain_length_tensors.fn = [](Tuple rows) -> Result<Tuple> {
    const int64_t n = rows[0].dim_size(0);
    Tensor out(DType::kInt64, TensorShape({n}));
    std::span<int64_t> v = *out.mutable_flat<int64_t>();
    std::span<const std::string> s = rows[0].flat<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      const Tensor length =
          Tensor::Scalar<int64_t>(static_cast<int64_t>(s[i].size()));
      v[i] = length.flat<int64_t>()[0];
    }
    return Tuple{out};
  };
  const MapFunction op_length =
      OrDie(ops::OpPipelineMap(OrDie(ops::Op::Create("BenchLength"))));
  const MapFunction op_length_into =
      OrDie(ops::OpPipelineMap(OrDie(ops::Op::Create("BenchLengthInto"))));
  const MapFunction op_lengths = OrDie(ops::OpPipelineMap(
      OrDie(ops::Op::Create("BenchLengths")), ops::OpMapUnit::kChunk));

  // map_call's chunk: 256 lines as the Pipeline's reader gives them.
  Tuple chunk = {Tensor(DType::kString, TensorShape({256}))};
  {
    std::span<std::string> s = *chunk[0].mutable_flat<std::string>();
    for (size_t i = 0; i < s.size(); ++i) s[i] = std::string(i % 40, 'x');
  }
  const int calls = smoke ? 100 : 20000;

  std::map<std::string, std::vector<double>> figures;
  std::string numpy_reason;
  // --only=PREFIX runs the forms whose names begin with it (the others'
  // figures are null): a profile of one form.
  auto runs = [&](std::string_view form) { return form.starts_with(only); };
  for (int r = 0; r < rounds; ++r) {
    if (runs("dataset_map_plain")) {
      figures["dataset_map_plain"].push_back(DatasetMap(plain_add, elements));
    }
    if (runs("dataset_map_op")) {
      figures["dataset_map_op"].push_back(DatasetMap(op_add, elements));
    }
    const std::pair<const char*, const MapFunction*> pipeline_forms[] = {
        {"pipeline_map_op", &op_length},
        {"pipeline_map_plain", &plain_length},
        {"pipeline_map_op_allocate", &op_length_into},
        {"pipeline_map_op_chunk", &op_lengths},
        {"pipeline_map_plain_tensors", &plain_length_tensors}};
    constexpr int kForms = std::size(pipeline_forms);
    // Each round starts from the next form (no form always runs first)
    // and runs the forms twice, in that order and then back (A B C C B
    // A): a form's figure is its two runs' mean, so that a host whose
    // speed drifts through the round moves every form's alike.
    PerRecord sum[kForms] = {};
    for (int i = 0; i < 2 * kForms; ++i) {
      const int k = i < kForms ? i : 2 * kForms - 1 - i;
      const int f = (k + r) % kForms;
      const auto& [form, map] = pipeline_forms[f];
      if (!runs(form)) continue;
      const PerRecord t = PipelineMap(*map, text, lines, 2 * kForms * r + i);
      sum[f].wall_ns += t.wall_ns / 2;
      sum[f].cpu_ns += t.cpu_ns / 2;
    }
    for (int f = 0; f < kForms; ++f) {
      const char* form = pipeline_forms[f].first;
      if (!runs(form)) continue;
      figures[form].push_back(sum[f].wall_ns);
      figures[std::string("cpu_") + form].push_back(sum[f].cpu_ns);
    }
    const std::pair<const char*, const MapFunction*> call_forms[] = {
        {"map_call_op", &op_length},
        {"map_call_plain", &plain_length},
        {"map_call_op_allocate", &op_length_into},
        {"map_call_op_chunk", &op_lengths},
        {"map_call_plain_tensors", &plain_length_tensors}};
    for (const auto& [form, map] : call_forms) {
      if (runs(form)) figures[form].push_back(MapCall(*map, chunk, calls));
    }
    if (runs("word2vec_op"))
      figures["word2vec_op"].push_back(Word2vecOp(corpus));
    if (runs("word2vec_numpy") && numpy_reason.empty()) {
      figures["word2vec_numpy"].push_back(Word2vecNumpy(corpus, &numpy_reason));
    }
    // Progress: the round's pipeline ratios, op over plain (wall).
    std::string line;
    const auto last = [&](const char* form) {
      const std::vector<double>& v = figures[form];
      return v.size() == static_cast<size_t>(r) + 1 ? v.back() : -1.0;
    };
    for (const auto& [name, a, b] :
         {std::tuple{"setoutput/plain", "pipeline_map_op",
                     "pipeline_map_plain"},
          std::tuple{"setoutput/same_step", "pipeline_map_op",
                     "pipeline_map_plain_tensors"},
          std::tuple{"allocate/plain", "pipeline_map_op_allocate",
                     "pipeline_map_plain"},
          std::tuple{"chunk/plain", "pipeline_map_op_chunk",
                     "pipeline_map_plain"}}) {
      if (last(a) > 0 && last(b) > 0) {
        line += std::string(" ") + name + " " + Ratio(last(a), last(b));
      }
    }
    std::fprintf(stderr, "bench_custom_ops: round %d/%d%s\n", r + 1, rounds,
                 line.c_str());
  }
  fs::remove_all(dir);

  auto median = [&](const std::string& k) {
    const auto& v = figures[k];
    if (v.empty() ||
        std::any_of(v.begin(), v.end(), [](double x) { return x < 0; })) {
      return -1.0;
    }
    return Median(v);
  };
  // The median over the rounds of a form's figure over another's in the
  // same round (a round runs them minutes apart at most): steadier than a
  // ratio of medians on a host whose speed moves between rounds.
  auto paired = [&](const std::string& a, const std::string& b) {
    const auto& x = figures[a];
    const auto& y = figures[b];
    std::vector<double> ratios;
    for (size_t r = 0; r < x.size() && r < y.size(); ++r) {
      if (x[r] < 0 || y[r] <= 0) return Ratio(-1, 1);  // null
      ratios.push_back(x[r] / y[r]);
    }
    return ratios.empty() ? Ratio(-1, 1) : Ratio(Median(ratios), 1);
  };
  const double dp = median("dataset_map_plain");
  const double dop = median("dataset_map_op");
  const double pp = median("pipeline_map_plain");
  const double pop = median("pipeline_map_op");
  const double pinto = median("pipeline_map_op_allocate");
  const double pchunk = median("pipeline_map_op_chunk");
  const double ptensors = median("pipeline_map_plain_tensors");
  const double cpp = median("cpu_pipeline_map_plain");
  const double cpop = median("cpu_pipeline_map_op");
  const double cpinto = median("cpu_pipeline_map_op_allocate");
  const double cpchunk = median("cpu_pipeline_map_op_chunk");
  const double cptensors = median("cpu_pipeline_map_plain_tensors");
  const double cp = median("map_call_plain");
  const double cop = median("map_call_op");
  const double cinto = median("map_call_op_allocate");
  const double cchunk = median("map_call_op_chunk");
  const double ctensors = median("map_call_plain_tensors");
  const double wop = median("word2vec_op");
  const double wnp = numpy_reason.empty() ? median("word2vec_numpy") : -1;
  std::string line =
      "{\"bench\": \"custom_ops\", \"ns_per_call\": {\"dataset_map_plain\": " +
      Number(dp) + ", \"dataset_map_op\": " + Number(dop) +
      ", \"pipeline_map_plain\": " + Number(pp) +
      ", \"pipeline_map_op\": " + Number(pop) +
      ", \"pipeline_map_op_allocate\": " + Number(pinto) +
      ", \"pipeline_map_op_chunk\": " + Number(pchunk) +
      ", \"pipeline_map_plain_tensors\": " + Number(ptensors) +
      "}, \"overhead_ratio\": {\"dataset_map\": " +
      paired("dataset_map_op", "dataset_map_plain") +
      ", \"pipeline_map\": " + paired("pipeline_map_op", "pipeline_map_plain") +
      ", \"pipeline_map_allocate\": " +
      paired("pipeline_map_op_allocate", "pipeline_map_plain") +
      ", \"pipeline_map_chunk\": " +
      paired("pipeline_map_op_chunk", "pipeline_map_plain") +
      ", \"pipeline_map_vs_same_step\": " +
      paired("pipeline_map_op", "pipeline_map_plain_tensors") +
      "}, \"cpu_ns_per_record\": {\"pipeline_map_plain\": " + Number(cpp) +
      ", \"pipeline_map_op\": " + Number(cpop) +
      ", \"pipeline_map_op_allocate\": " + Number(cpinto) +
      ", \"pipeline_map_op_chunk\": " + Number(cpchunk) +
      ", \"pipeline_map_plain_tensors\": " + Number(cptensors) +
      "}, \"cpu_overhead_ratio\": {\"pipeline_map\": " +
      paired("cpu_pipeline_map_op", "cpu_pipeline_map_plain") +
      ", \"pipeline_map_allocate\": " +
      paired("cpu_pipeline_map_op_allocate", "cpu_pipeline_map_plain") +
      ", \"pipeline_map_chunk\": " +
      paired("cpu_pipeline_map_op_chunk", "cpu_pipeline_map_plain") +
      ", \"pipeline_map_vs_same_step\": " +
      paired("cpu_pipeline_map_op", "cpu_pipeline_map_plain_tensors") +
      "}, \"map_call_ns_per_record\": {\"plain\": " + Number(cp) +
      ", \"op\": " + Number(cop) + ", \"op_allocate\": " + Number(cinto) +
      ", \"op_chunk\": " + Number(cchunk) +
      ", \"plain_tensors\": " + Number(ctensors) +
      "}, \"words_per_s\": {\"word2vec_op\": " + Number(wop) +
      ", \"word2vec_numpy\": " + Number(wnp) +
      "}, \"ratio_op_vs_numpy\": " + Ratio(wop, wnp);
  if (!numpy_reason.empty()) {
    line += ", \"numpy_reason\": \"" + numpy_reason + "\"";
  }
  line += ", \"kernels\": {}}";
  std::printf("%s\n", line.c_str());
  return 0;
}
