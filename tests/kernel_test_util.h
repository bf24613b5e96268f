// Copyright 2026 The inflow Authors.
//
// Helpers for the tests that run every kernel of a routine (CRC-32C, varint
// decoding) the CPU supports: which kernels that is, the CPU's flags, and
// setting the environment variables the kernel choice reads.

#ifndef INFLOW_TESTS_KERNEL_TEST_UTIL_H_
#define INFLOW_TESTS_KERNEL_TEST_UTIL_H_

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace inflow::testing {

// The kernels of `all` this CPU runs (a test must run them all), and a
// line on stdout naming those it cannot, so that a run on such a CPU says
// what it left out.
template <typename Kernel, typename Supported, typename Name>
std::vector<Kernel> RunnableKernels(std::string_view test,
                                    std::span<const Kernel> all,
                                    Supported supported, Name name) {
  std::vector<Kernel> runnable;
  std::string missing;
  for (Kernel k : all) {
    if (supported(k)) {
      runnable.push_back(k);
    } else {
      missing.append(missing.empty() ? "" : ", ").append(name(k));
    }
  }
  if (!missing.empty()) {
    std::cout << "[ NOT RUN  ] " << test << ": this CPU lacks the kernels "
              << missing << "\n";
  }
  return runnable;
}

// The CPU's feature flags from /proc/cpuinfo (empty where there is none).
inline std::set<std::string> CpuFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line.substr(line.find(':') + 1));
    std::set<std::string> flags;
    for (std::string w; words >> w;) flags.insert(w);
    return flags;
  }
  return {};
}

// Sets an environment variable for the life of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
  ~ScopedEnv() {
    if (old_.has_value()) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace inflow::testing

#endif  // INFLOW_TESTS_KERNEL_TEST_UTIL_H_
