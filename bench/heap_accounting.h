// Heap accounting for the benchmark programs (window_store_bench, kv_store_bench).
//
// heap_accounting.cc replaces the global operator new/delete (every overload), so every operator
// new/delete of the program, its libraries' included (librocksdb's in kv_store_bench), goes
// through it. Between StartHeapCounting() and StopHeapCounting() it tracks the net usable bytes
// allocated: malloc_usable_size of every block allocated minus every block freed. When it is not
// counting the cost is one relaxed load, so the timed benchmarks are not skewed.
//
// A program links heap_accounting.cc exactly once (bench/CMakeLists.txt adds it to each
// executable's sources): the replacement operators must be defined once per program.
#ifndef STATECHECK_BENCH_HEAP_ACCOUNTING_H_
#define STATECHECK_BENCH_HEAP_ACCOUNTING_H_

#include <cstdint>

namespace statecheck::bench {

// Resets the count to 0, then starts counting.
void StartHeapCounting();

// Stops counting; the count keeps its value until the next StartHeapCounting().
void StopHeapCounting();

// Net usable bytes allocated through operator new/delete while counting.
int64_t CountedHeapBytes();

}  // namespace statecheck::bench

#endif  // STATECHECK_BENCH_HEAP_ACCOUNTING_H_
