// The replacement global operator new/delete behind bench/heap_accounting.h.
#include "bench/heap_accounting.h"

#include <malloc.h>
#include <stdlib.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

std::atomic<bool> g_count_heap{false};
std::atomic<int64_t> g_heap_bytes{0};

void CountAllocation(void* p) {
  if (g_count_heap.load(std::memory_order_relaxed)) {
    g_heap_bytes.fetch_add(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  }
}

// Returns nullptr when out of memory and no new_handler is installed.
void* Allocate(std::size_t size) {
  if (size == 0) size = 1;
  for (;;) {
    void* p = std::malloc(size);
    if (p != nullptr) {
      CountAllocation(p);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) return nullptr;
    handler();
  }
}

void* AllocateAligned(std::size_t size, std::align_val_t align) {
  if (size == 0) size = 1;
  const std::size_t alignment = std::max(static_cast<std::size_t>(align), sizeof(void*));
  for (;;) {
    void* p = nullptr;
    if (posix_memalign(&p, alignment, size) == 0) {
      CountAllocation(p);
      return p;
    }
    std::new_handler handler = std::get_new_handler();
    if (handler == nullptr) return nullptr;
    handler();
  }
}

void Deallocate(void* p) noexcept {
  if (p == nullptr) return;
  if (g_count_heap.load(std::memory_order_relaxed)) {
    g_heap_bytes.fetch_sub(static_cast<int64_t>(malloc_usable_size(p)), std::memory_order_relaxed);
  }
  std::free(p);
}

void* AllocateOrThrow(std::size_t size) {
  void* p = Allocate(size);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* AllocateAlignedOrThrow(std::size_t size, std::align_val_t align) {
  void* p = AllocateAligned(size, align);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t size) { return AllocateOrThrow(size); }
void* operator new[](std::size_t size) { return AllocateOrThrow(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  return AllocateAlignedOrThrow(size, align);
}
void* operator new[](std::size_t size, std::align_val_t align) {
  return AllocateAlignedOrThrow(size, align);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return Allocate(size);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  try {
    return AllocateAligned(size, align);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t size, std::align_val_t align, const std::nothrow_t&) noexcept {
  try {
    return AllocateAligned(size, align);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { Deallocate(p); }
void operator delete[](void* p) noexcept { Deallocate(p); }
void operator delete(void* p, std::size_t) noexcept { Deallocate(p); }
void operator delete[](void* p, std::size_t) noexcept { Deallocate(p); }
void operator delete(void* p, std::align_val_t) noexcept { Deallocate(p); }
void operator delete[](void* p, std::align_val_t) noexcept { Deallocate(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { Deallocate(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { Deallocate(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { Deallocate(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { Deallocate(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { Deallocate(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { Deallocate(p); }

namespace statecheck::bench {

void StartHeapCounting() {
  g_heap_bytes.store(0);
  g_count_heap.store(true);
}

void StopHeapCounting() { g_count_heap.store(false); }

int64_t CountedHeapBytes() { return g_heap_bytes.load(); }

}  // namespace statecheck::bench
