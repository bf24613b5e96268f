// Copyright 2026 The inflow Authors.
//
// Replays queue-operation sequences recorded on TensorFlow's own queues
// (tests/py/queue_tf_oracle.py writes them, one JSON object per line) on
// inflow's queues, with the same timeouts, and compares every result: the
// status code of each call, and the dtype, shape and values of every tensor
// a dequeue returns, Size() and IsClosed().
//
// Usage: queue_tf_replay [--jobs=N] [--rsq-order=exact|multiset]
//                        [--max-reports=N] [--hang-ms=N] FILE.jsonl...
//
// Prints the first mismatch of each sequence (seed, op index, expected vs.
// got, and the ops that led there), then one JSON summary line. Exit code:
// 0 when everything matched, 1 on any mismatch, 2 on bad input or usage,
// 3 when a call hangs past its timeout (reported with seed and op index).
//
// --rsq-order=multiset compares RandomShuffleQueue dequeues by what they
// return as a whole instead of TF's exact order: per call the status code,
// the number of components and of rows; per sequence, that everything
// dequeued is the same multiset as TF's; and that replaying the sequence
// again with the same seeds gives the same results (seed determinism).
// Sequences recorded with "order": "multiset" (both seeds 0, so TF and
// inflow each seed randomly) are always compared that way.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "inflow/core/dtype.h"
#include "inflow/core/status.h"
#include "inflow/core/tensor.h"
#include "inflow/core/tensor_shape.h"
#include "inflow/queue/queue.h"
#include "inflow/queue/queue_options.h"

#include "nlohmann/json.hpp"
#include "queue_tf_sequence.h"

namespace inflow {
namespace {

using nlohmann::json;
using queue_tf::CodeName;
using queue_tf::ExpectSummary;
using queue_tf::OpSummary;
using queue_tf::ParseSequence;
using queue_tf::RowKey;
using queue_tf::RowKeys;
using queue_tf::Sequence;
using queue_tf::StatusText;
using queue_tf::TupleFromJson;

struct Flags {
  int jobs = 8;
  bool rsq_multiset = false;
  int max_reports = 20;
  // A sequence still running after this long is reported as a hang.
  int64_t hang_ms = 60'000;
  std::vector<std::string> files;
};

// What replaying one sequence found.
struct Outcome {
  int64_t ops = 0;
  bool mismatch = false;
  std::string report;  // empty when everything matched
};

// What one worker is replaying, for the hang watchdog.
struct Progress {
  std::atomic<int64_t> seed{0};
  std::atomic<int> op{-1};
  std::atomic<int64_t> since_ms{0};  // steady clock; 0 = idle
};

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Replayer {
 public:
  Replayer(const Sequence& seq, bool rsq_multiset, Progress* progress)
      : seq_(seq),
        multiset_((rsq_multiset || seq.multiset_order) &&
                  seq.kind == QueueKind::kRandomShuffle),
        progress_(progress) {}

  // Replays the whole sequence; the first mismatch ends it.
  Outcome Run() {
    Outcome out;
    auto queue = CreateQueue(seq_.kind, seq_.options);
    if (!queue.ok()) {
      Fail(out, -1, "queue creation", "OK", StatusText(queue.status()));
      return out;
    }
    queue_ = *queue;
    for (size_t i = 0; i < seq_.ops.size(); ++i) {
      ++out.ops;
      progress_->op = static_cast<int>(i);
      if (!Step(out, static_cast<int>(i), seq_.ops[i])) return out;
    }
    progress_->op = static_cast<int>(seq_.ops.size());
    if (seq_.remaining && !CheckRemaining(out)) return out;
    if (multiset_) {
      std::vector<std::string> a = tf_dequeued_, b = got_dequeued_;
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a != b) {
        Fail(out, static_cast<int>(seq_.ops.size()),
             "end of sequence: everything dequeued, as a multiset",
             std::to_string(a.size()) + " elements", Join(b, a));
      }
    }
    return out;
  }

  // Every result inflow produced, in order (for the determinism check).
  const std::vector<std::string>& transcript() const { return transcript_; }

 private:
  static std::string Join(const std::vector<std::string>& got,
                          const std::vector<std::string>& want) {
    std::ostringstream os;
    os << got.size() << " elements; only in inflow:";
    for (const auto& g : got) {
      if (std::find(want.begin(), want.end(), g) == want.end()) os << " " << g;
    }
    os << "; only in TF:";
    for (const auto& w : want) {
      if (std::find(got.begin(), got.end(), w) == got.end()) os << " " << w;
    }
    return os.str();
  }

  void Fail(Outcome& out, int index, const std::string& what,
            const std::string& expected, const std::string& got) {
    out.mismatch = true;
    std::ostringstream os;
    os << "MISMATCH seed=" << seq_.seed << " kind=" << seq_.kind_name << " op#"
       << index << " " << what << "\n"
       << "  expected (TF): " << expected << "\n"
       << "  got (inflow):  " << got << "\n"
       << "  queue: " << seq_.queue_json << "\n";
    for (int i = 0; i < index && i < static_cast<int>(seq_.ops.size()); ++i) {
      os << "  #" << i << " " << OpSummary(seq_.ops[i]) << " -> "
         << ExpectSummary(seq_.ops[i]["expect"]) << "\n";
    }
    out.report = os.str();
  }

  bool Step(Outcome& out, int index, const json& op) {
    const std::string name = op.at("op").get<std::string>();
    const json& expect = op.at("expect");
    const int want_code = expect.at("code").get<int>();
    CallOptions options;
    options.timeout =
        std::chrono::milliseconds(op.at("timeout_ms").get<int64_t>());
    const std::string what = OpSummary(op);
    auto code_mismatch = [&](const Status& got) {
      Fail(out, index, what, ExpectSummary(expect), StatusText(got));
      return false;
    };

    if (name == "enqueue" || name == "enqueue_many") {
      auto tuple = TupleFromJson(op.at("args"));
      if (!tuple.ok()) {
        Fail(out, index, what, "a valid recorded tuple",
             StatusText(tuple.status()));
        return false;
      }
      Status s = name == "enqueue"
                     ? queue_->Enqueue(std::move(*tuple), options)
                     : queue_->EnqueueMany(std::move(*tuple), options);
      transcript_.push_back(StatusText(s));
      if (static_cast<int>(s.code()) != want_code) return code_mismatch(s);
      return true;
    }
    if (name == "close") {
      Status s = queue_->Close(op.at("cancel").get<bool>(), options);
      transcript_.push_back(StatusText(s));
      if (static_cast<int>(s.code()) != want_code) return code_mismatch(s);
      return true;
    }
    if (name == "size") {
      const int64_t got = queue_->Size();
      transcript_.push_back("size " + std::to_string(got));
      if (want_code != 0 || expect.at("size").get<int64_t>() != got) {
        Fail(out, index, what, ExpectSummary(expect),
             "OK size=" + std::to_string(got));
        return false;
      }
      return true;
    }
    if (name == "is_closed") {
      const bool got = queue_->IsClosed();
      transcript_.push_back(got ? "closed" : "open");
      if (want_code != 0 || expect.at("closed").get<bool>() != got) {
        Fail(out, index, what, ExpectSummary(expect),
             std::string("OK closed=") + (got ? "true" : "false"));
        return false;
      }
      return true;
    }
    if (name == "dequeue" || name == "dequeue_many" ||
        name == "dequeue_up_to") {
      Result<Tuple> got =
          name == "dequeue" ? queue_->Dequeue(options)
          : name == "dequeue_many"
              ? queue_->DequeueMany(op.at("n").get<int64_t>(), options)
              : queue_->DequeueUpTo(op.at("n").get<int64_t>(), options);
      transcript_.push_back(got.ok() ? DebugString(*got)
                                     : StatusText(got.status()));
      if (static_cast<int>(got.status().code()) != want_code) {
        return code_mismatch(got.status());
      }
      if (!got.ok()) return true;
      auto want = TupleFromJson(expect.at("values"));
      if (!want.ok()) {
        Fail(out, index, what, "a valid recorded result",
             StatusText(want.status()));
        return false;
      }
      const bool batched = name != "dequeue";
      if (multiset_)
        return CompareAsMultiset(out, index, what, expect, *want, *got,
                                 batched);
      if (*want != *got) {
        Fail(out, index, what, ExpectSummary(expect),
             "OK " + DebugString(*got));
        return false;
      }
      return true;
    }
    Fail(out, index, what, "a known op", "unknown op '" + name + "'");
    return false;
  }

  // Closes the queue with cancel and dequeues everything left, one element
  // at a time, as the recording did on TF's queue; then expects
  // OUT_OF_RANGE.
  bool CheckRemaining(Outcome& out) {
    const int index = static_cast<int>(seq_.ops.size());
    const json& want = *seq_.remaining;
    Status closed = queue_->Close(/*cancel_pending_enqueues=*/true);
    if (!closed.ok()) {
      Fail(out, index, "final close(cancel=true)", "OK", StatusText(closed));
      return false;
    }
    CallOptions options;
    options.timeout = std::chrono::milliseconds(2000);
    for (size_t i = 0; i <= want.size(); ++i) {
      const std::string what = "final drain: dequeue #" + std::to_string(i) +
                               " of " + std::to_string(want.size()) +
                               " elements TF still held";
      Result<Tuple> got = queue_->Dequeue(options);
      transcript_.push_back(got.ok() ? DebugString(*got)
                                     : StatusText(got.status()));
      if (i == want.size()) {
        if (got.ok() || !IsOutOfRange(got.status())) {
          Fail(out, index, what, "OUT_OF_RANGE (nothing left)",
               got.ok() ? "OK " + DebugString(*got) : StatusText(got.status()));
          return false;
        }
        break;
      }
      auto element = TupleFromJson(want[i]);
      if (!element.ok()) {
        Fail(out, index, what, "a valid recorded element",
             StatusText(element.status()));
        return false;
      }
      if (!got.ok()) {
        Fail(out, index, what, "OK " + DebugString(*element),
             StatusText(got.status()));
        return false;
      }
      if (multiset_) {
        tf_dequeued_.push_back(RowKey(*element, 0, false));
        got_dequeued_.push_back(RowKey(*got, 0, false));
      } else if (*element != *got) {
        Fail(out, index, what, "OK " + DebugString(*element),
             "OK " + DebugString(*got));
        return false;
      }
    }
    return true;
  }

  // RandomShuffleQueue without TF's exact order: the same number of rows,
  // each row an element the queue holds, the same multiset in the end.
  bool CompareAsMultiset(Outcome& out, int index, const std::string& what,
                         const json& expect, const Tuple& want,
                         const Tuple& got, bool batched) {
    std::vector<std::string> want_rows = RowKeys(want, batched);
    std::vector<std::string> got_rows = RowKeys(got, batched);
    if (want.size() != got.size() || want_rows.size() != got_rows.size()) {
      Fail(out, index, what, ExpectSummary(expect), "OK " + DebugString(got));
      return false;
    }
    tf_dequeued_.insert(tf_dequeued_.end(), want_rows.begin(), want_rows.end());
    got_dequeued_.insert(got_dequeued_.end(), got_rows.begin(), got_rows.end());
    return true;
  }

  const Sequence& seq_;
  const bool multiset_;
  Progress* const progress_;
  std::shared_ptr<QueueInterface> queue_;
  std::vector<std::string> tf_dequeued_;
  std::vector<std::string> got_dequeued_;
  std::vector<std::string> transcript_;
};

Outcome ReplayOne(const Sequence& seq, bool rsq_multiset, Progress& progress) {
  progress.seed = seq.seed;
  progress.since_ms = NowMs();
  Replayer first(seq, rsq_multiset, &progress);
  Outcome out = first.Run();
  if (out.mismatch || !rsq_multiset || seq.multiset_order ||
      seq.kind != QueueKind::kRandomShuffle) {
    return out;
  }
  // Seed determinism: the same seeds and calls give the same results.
  Replayer second(seq, rsq_multiset, &progress);
  second.Run();
  if (first.transcript() != second.transcript()) {
    out.mismatch = true;
    out.report = "MISMATCH seed=" + std::to_string(seq.seed) +
                 " kind=random_shuffle: a second replay with the same seeds "
                 "gave different results\n";
  }
  return out;
}

int Usage() {
  std::cerr << "usage: queue_tf_replay [--jobs=N] [--rsq-order=exact|multiset]"
               " [--max-reports=N] [--hang-ms=N] FILE.jsonl...\n";
  return 2;
}

int Main(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    auto value = [&](std::string_view prefix) -> std::optional<std::string> {
      if (arg.substr(0, prefix.size()) != prefix) return std::nullopt;
      return std::string(arg.substr(prefix.size()));
    };
    if (auto v = value("--jobs=")) {
      flags.jobs = std::max(1, std::atoi(v->c_str()));
    } else if (auto v = value("--hang-ms=")) {
      flags.hang_ms = std::max<int64_t>(1, std::atoll(v->c_str()));
    } else if (auto v = value("--max-reports=")) {
      flags.max_reports = std::atoi(v->c_str());
    } else if (auto v = value("--rsq-order=")) {
      if (*v != "exact" && *v != "multiset") return Usage();
      flags.rsq_multiset = *v == "multiset";
    } else if (arg.substr(0, 2) == "--") {
      return Usage();
    } else {
      flags.files.emplace_back(arg);
    }
  }
  if (flags.files.empty()) return Usage();

  std::vector<Sequence> seqs;
  for (const std::string& path : flags.files) {
    std::ifstream in(path);
    if (!in) {
      std::cerr << "cannot open " << path << "\n";
      return 2;
    }
    std::string line;
    int line_no = 0;
    while (std::getline(in, line)) {
      ++line_no;
      if (line.empty()) continue;
      auto seq = ParseSequence(line);
      if (!seq.ok()) {
        std::cerr << path << ":" << line_no << ": " << seq.status() << "\n";
        return 2;
      }
      seqs.push_back(std::move(*seq));
    }
  }

  // Sequences are independent (one queue each) and mostly wait out
  // timeouts, so several run at once; each sequence stays on one thread.
  std::vector<Outcome> outcomes(seqs.size());
  std::atomic<size_t> next{0};
  std::vector<Progress> progress(flags.jobs);
  {
    // A call that ignores its timeout would hang the replay: report which
    // and stop. A sequence normally replays in well under a second.
    std::jthread watchdog([&](std::stop_token stop) {
      while (!stop.stop_requested()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        for (const Progress& p : progress) {
          const int64_t since = p.since_ms;
          if (since != 0 && NowMs() - since > flags.hang_ms) {
            std::cout << "HANG seed=" << p.seed << " op#" << p.op
                      << ": the sequence has run for " << flags.hang_ms
                      << " ms; a call did not return by its timeout"
                      << std::endl;
            std::_Exit(3);
          }
        }
      }
    });
    std::vector<std::jthread> workers;
    for (int w = 0; w < flags.jobs; ++w) {
      workers.emplace_back([&, w] {
        for (size_t i = next++; i < seqs.size(); i = next++) {
          outcomes[i] = ReplayOne(seqs[i], flags.rsq_multiset, progress[w]);
          progress[w].since_ms = 0;
        }
      });
    }
    for (std::jthread& t : workers) t.join();
  }

  std::map<std::string, std::pair<int64_t, int64_t>> per_kind;  // seqs, bad
  int64_t total_ops = 0, mismatched = 0;
  int reported = 0;
  for (size_t i = 0; i < seqs.size(); ++i) {
    auto& [count, bad] = per_kind[seqs[i].kind_name];
    ++count;
    total_ops += outcomes[i].ops;
    if (!outcomes[i].mismatch) continue;
    ++bad;
    ++mismatched;
    if (reported++ < flags.max_reports) std::cout << outcomes[i].report;
  }
  json summary = {{"sequences", seqs.size()},
                  {"ops", total_ops},
                  {"mismatched", mismatched}};
  for (const auto& [kind, counts] : per_kind) {
    summary["kinds"][kind] = {{"sequences", counts.first},
                              {"mismatched", counts.second}};
  }
  std::vector<int64_t> bad_seeds;
  for (size_t i = 0; i < seqs.size(); ++i) {
    if (outcomes[i].mismatch) bad_seeds.push_back(seqs[i].seed);
  }
  summary["mismatched_seeds"] = bad_seeds;
  std::cout << summary.dump() << std::endl;
  return mismatched == 0 ? 0 : 1;
}

}  // namespace
}  // namespace inflow

int main(int argc, char** argv) { return inflow::Main(argc, argv); }
