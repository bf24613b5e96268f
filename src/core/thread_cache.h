// Copyright 2026 The inflow Authors.
//
// ThreadCache<T, Release>: one T per thread, made on first use and handed
// to Release (which owns it then) when the thread ends. Get() returns null
// from then on: a thread-local destructor that runs later (a tensor freed
// at thread exit) must not make a new one that nothing would release.
// The pointer and the flag are trivially destructible, so readable to the
// thread's very end.

#ifndef INFLOW_SRC_CORE_THREAD_CACHE_H_
#define INFLOW_SRC_CORE_THREAD_CACHE_H_

namespace inflow::internal {

template <typename T, void (*Release)(T*)>
class ThreadCache {
 public:
  static T* Get() {
    if (gone_) return nullptr;
    if (object_ == nullptr) {
      owner_.Touch();
      object_ = new T();
    }
    return object_;
  }

 private:
  struct Owner {
    ~Owner() {
      gone_ = true;
      T* object = object_;
      object_ = nullptr;
      if (object != nullptr) Release(object);
    }
    void Touch() {}  // makes the thread register the destructor
  };
  static inline thread_local T* object_ = nullptr;
  static inline thread_local bool gone_ = false;
  static inline thread_local Owner owner_;
};

}  // namespace inflow::internal

#endif  // INFLOW_SRC_CORE_THREAD_CACHE_H_
