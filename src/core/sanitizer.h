// Copyright 2026 The inflow Authors.
//
// Whether AddressSanitizer instruments this build. The caches that keep
// freed memory for reuse (small tensor blocks, recycled strings) are off
// under it, so that it sees every free.

#ifndef INFLOW_SRC_CORE_SANITIZER_H_
#define INFLOW_SRC_CORE_SANITIZER_H_

namespace inflow::internal {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace inflow::internal

#endif  // INFLOW_SRC_CORE_SANITIZER_H_
