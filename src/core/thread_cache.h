// Copyright 2026 The inflow Authors.
//
// ThreadCache<T, Release>: one T per thread, made on first use and handed
// to Release (which owns it then) when the thread ends. Get() returns null
// from then on: a thread-local destructor that runs later (a tensor freed
// at thread exit) must not make a new one that nothing would release.
// The pointer and the flag are trivially destructible, so readable to the
// thread's very end; they share one thread-local object, so that a Get()
// in a dynamically loaded library (an op library) looks its address up
// once.

#ifndef INFLOW_SRC_CORE_THREAD_CACHE_H_
#define INFLOW_SRC_CORE_THREAD_CACHE_H_

namespace inflow::internal {

template <typename T, void (*Release)(T*)>
class ThreadCache {
 public:
  static T* Get() {
    Slot& slot = slot_;
    if (slot.object != nullptr) [[likely]] {
      return slot.object;
    }
    if (slot.gone) return nullptr;
    owner_.Touch();
    slot.object = new T();
    return slot.object;
  }

 private:
  struct Slot {
    T* object = nullptr;
    bool gone = false;
  };
  struct Owner {
    ~Owner() {
      Slot& slot = slot_;
      slot.gone = true;
      T* object = slot.object;
      slot.object = nullptr;
      if (object != nullptr) Release(object);
    }
    void Touch() {}  // makes the thread register the destructor
  };
  static inline thread_local Slot slot_;
  static inline thread_local Owner owner_;
};

}  // namespace inflow::internal

#endif  // INFLOW_SRC_CORE_THREAD_CACHE_H_
