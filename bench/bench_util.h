// Copyright 2026 The inflow Authors.
//
// Helpers shared by the benchmark programs.

#ifndef INFLOW_BENCH_BENCH_UTIL_H_
#define INFLOW_BENCH_BENCH_UTIL_H_

#include <time.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace inflow::bench {

// The median of `values` (the mean of the middle two for an even count);
// 0 if there are none.
inline double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : (values[m - 1] + values[m]) / 2;
}

// Whether the command line has --smoke (which it then loses, so that the
// benchmark library does not see it): a run of a second or two at tiny
// sizes that only checks that the program works and prints its JSON line
// (ctest bench_<name>_smoke; no figure from it means anything).
inline bool TakeSmokeFlag(int* argc, char** argv) {
  bool smoke = false;
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      smoke = true;
    } else {
      argv[kept++] = argv[i];
    }
  }
  *argc = kept;
  argv[kept] = nullptr;
  return smoke;
}

// The arguments for benchmark::Initialize: argv, and in smoke mode a
// minimum time of 1 ms per benchmark (over what a benchmark sets itself
// only where it checks `smoke` too).
class BenchArgs {
 public:
  BenchArgs(int argc, char** argv, bool smoke) : args_(argv, argv + argc) {
    if (smoke) args_.push_back(min_time_.data());
    args_.push_back(nullptr);
    argc_ = static_cast<int>(args_.size()) - 1;
  }
  int* argc() { return &argc_; }
  char** argv() { return args_.data(); }

 private:
  std::string min_time_ = "--benchmark_min_time=0.001";
  std::vector<char*> args_;
  int argc_;
};

// The "kernels" member of the JSON line: which kernel each SIMD routine
// the benchmark exercises ran, e.g. {"crc32c": "vpclmul512"}.
inline std::string KernelsJson(
    std::initializer_list<std::pair<std::string_view, std::string_view>>
        kernels) {
  std::string s = "{";
  for (const auto& [routine, kernel] : kernels) {
    if (s.size() > 1) s += ", ";
    s.append("\"").append(routine).append("\": \"").append(kernel).append("\"");
  }
  return s + "}";
}

// Seconds of `clock` (CLOCK_THREAD_CPUTIME_ID, CLOCK_PROCESS_CPUTIME_ID,
// ...) so far.
inline double CpuSeconds(clockid_t clock) {
  timespec t;
  ::clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
// The calling thread's CPU seconds so far.
inline double ThreadCpuSeconds() { return CpuSeconds(CLOCK_THREAD_CPUTIME_ID); }

}  // namespace inflow::bench

#endif  // INFLOW_BENCH_BENCH_UTIL_H_
