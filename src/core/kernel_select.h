// Copyright 2026 The inflow Authors.
//
// Internal: choosing among the implementations ("kernels") of one routine
// that need different CPU features, such as the CRC-32C's or the packed
// varint decoder's (docs/PERFORMANCE.md, "Kernels"). By default each
// routine runs the best kernel the CPU has. Two environment variables,
// read once per routine on its first use, change that:
//
//   INFLOW_KERNELS=portable|sse4.2|avx2|avx512
//       the highest instruction-set level any kernel may need, e.g. avx2
//       to run what a CPU without AVX-512 would run;
//   INFLOW_<ROUTINE>_KERNEL=<kernel name>, e.g. INFLOW_CRC32C_KERNEL=sse42
//       one routine's kernel by name (over INFLOW_KERNELS).
//
// A name that is unknown, or a kernel this CPU cannot run, is reported on
// stderr and ignored.

#ifndef INFLOW_CORE_KERNEL_SELECT_H_
#define INFLOW_CORE_KERNEL_SELECT_H_

#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

namespace inflow::internal {

// Instruction-set levels, lowest first. A kernel's level is the highest of
// the features it needs (BMI2 counts as AVX2: they came together).
enum class IsaLevel { kPortable = 0, kSse42 = 1, kAvx2 = 2, kAvx512 = 3 };

// Whether this CPU has AVX-512F, or AVX2 (asked once each); false off
// x86-64. The kernels that need only these ask here; those needing more
// features ask for each.
inline bool CpuHasAvx512F() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool has =
      (__builtin_cpu_init(), __builtin_cpu_supports("avx512f") != 0);
  return has;
#else
  return false;
#endif
}

inline bool CpuHasAvx2() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool has =
      (__builtin_cpu_init(), __builtin_cpu_supports("avx2") != 0);
  return has;
#else
  return false;
#endif
}

struct KernelInfo {
  std::string_view name;
  IsaLevel level;
  bool supported;  // this CPU (and OS) run it
};

// The level INFLOW_KERNELS allows (kAvx512, the highest, when it is unset
// or not a level name; the latter is reported on stderr).
inline IsaLevel KernelLevelLimit() {
  const char* env = std::getenv("INFLOW_KERNELS");
  if (env == nullptr || *env == '\0') return IsaLevel::kAvx512;
  const std::string_view v(env);
  if (v == "portable") return IsaLevel::kPortable;
  if (v == "sse4.2" || v == "sse42") return IsaLevel::kSse42;
  if (v == "avx2") return IsaLevel::kAvx2;
  if (v == "avx512") return IsaLevel::kAvx512;
  std::fprintf(stderr,
               "inflow: INFLOW_KERNELS=%s is not portable, sse4.2, avx2 or "
               "avx512; ignored\n",
               env);
  return IsaLevel::kAvx512;
}

// The index in `kernels` (best first; the last one portable and always
// supported) of the kernel to run: the one `env_var` names if this CPU
// runs it, else the first supported one within KernelLevelLimit().
inline size_t SelectKernel(const char* env_var,
                           std::span<const KernelInfo> kernels) {
  if (const char* env = std::getenv(env_var); env != nullptr && *env != 0) {
    for (size_t i = 0; i < kernels.size(); ++i) {
      if (kernels[i].name != env) continue;
      if (kernels[i].supported) return i;
      std::fprintf(stderr, "inflow: %s=%s: this CPU cannot run it; ignored\n",
                   env_var, env);
      break;
    }
    bool known = false;
    for (const KernelInfo& k : kernels) known = known || k.name == env;
    if (!known) {
      std::string names;
      for (const KernelInfo& k : kernels) {
        names.append(names.empty() ? "" : ", ").append(k.name);
      }
      std::fprintf(stderr, "inflow: %s=%s is not one of %s; ignored\n", env_var,
                   env, names.c_str());
    }
  }
  const IsaLevel limit = KernelLevelLimit();
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].supported && kernels[i].level <= limit) return i;
  }
  return kernels.size() - 1;
}

// The kernel of `all` (a routine's kernels, best first, the last portable)
// that SelectKernel picks, given `info`, which describes one kernel.
template <typename Kernel, size_t N, typename InfoFn>
Kernel SelectKernelOf(const char* env_var, const Kernel (&all)[N],
                      InfoFn info) {
  KernelInfo infos[N];
  for (size_t i = 0; i < N; ++i) infos[i] = info(all[i]);
  return all[SelectKernel(env_var, infos)];
}

}  // namespace inflow::internal

#endif  // INFLOW_CORE_KERNEL_SELECT_H_
