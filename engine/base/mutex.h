// The engine's mutexes: std::mutex and std::shared_mutex carrying Clang's thread-safety
// capability attributes (Abseil's macros), so that `-Wthread-safety` checks every
// ABSL_GUARDED_BY and ABSL_EXCLUSIVE_LOCKS_REQUIRED in the engine at compile time
// (ci/check_engine_with_clang.sh).
//
// Not absl::Mutex: Debian's Abseil is built without ThreadSanitizer, which would then see none
// of its synchronisation and report races on everything it guards; TSan intercepts the
// pthread calls under std's mutexes. libstdc++'s own mutexes carry no annotation, so clang's
// analysis sees nothing through std::lock_guard.
#ifndef STATECHECK_ENGINE_MUTEX_H_
#define STATECHECK_ENGINE_MUTEX_H_

#include <mutex>
#include <shared_mutex>

#include "absl/base/thread_annotations.h"

namespace statecheck::internal {

class ABSL_LOCKABLE Mutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }

 private:
  std::mutex mu_;
};

// A reader-writer mutex: many readers or one writer.
class ABSL_LOCKABLE SharedMutex {
 public:
  void Lock() ABSL_EXCLUSIVE_LOCK_FUNCTION() { mu_.lock(); }
  void Unlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock(); }
  void ReaderLock() ABSL_SHARED_LOCK_FUNCTION() { mu_.lock_shared(); }
  void ReaderUnlock() ABSL_UNLOCK_FUNCTION() { mu_.unlock_shared(); }

 private:
  std::shared_mutex mu_;
};

// Holds `mu` exclusively for its scope.
class ABSL_SCOPED_LOCKABLE MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : plain_(mu) { mu->Lock(); }
  explicit MutexLock(SharedMutex* mu) ABSL_EXCLUSIVE_LOCK_FUNCTION(mu) : shared_(mu) { mu->Lock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;
  ~MutexLock() ABSL_UNLOCK_FUNCTION() {
    if (plain_ != nullptr) plain_->Unlock();
    if (shared_ != nullptr) shared_->Unlock();
  }

 private:
  Mutex* const plain_ = nullptr;
  SharedMutex* const shared_ = nullptr;
};

// Holds `mu` shared for its scope.
class ABSL_SCOPED_LOCKABLE ReaderMutexLock {
 public:
  explicit ReaderMutexLock(SharedMutex* mu) ABSL_SHARED_LOCK_FUNCTION(mu) : mu_(mu) {
    mu->ReaderLock();
  }
  ReaderMutexLock(const ReaderMutexLock&) = delete;
  ReaderMutexLock& operator=(const ReaderMutexLock&) = delete;
  ~ReaderMutexLock() ABSL_UNLOCK_FUNCTION() { mu_->ReaderUnlock(); }

 private:
  SharedMutex* const mu_;
};

}  // namespace statecheck::internal

#endif  // STATECHECK_ENGINE_MUTEX_H_
