// Copyright 2026 The inflow Authors.
//
// CpuPause: one spin-wait hint to the CPU (x86 PAUSE, Arm YIELD; nothing
// elsewhere), for loops that wait for another thread a few cycles away.

#ifndef INFLOW_QUEUE_CPU_PAUSE_H_
#define INFLOW_QUEUE_CPU_PAUSE_H_

namespace inflow::internal {

inline void CpuPause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace inflow::internal

#endif  // INFLOW_QUEUE_CPU_PAUSE_H_
