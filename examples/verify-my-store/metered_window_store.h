// "My" window store: a store that meters what its callers do (puts, deletes, reads) around the
// window store it is given — the kind of wrapper a team writes over a library's store, and must
// still keep every rule of the interface (statecheck/window_store.h). Its second variant has a
// bug planted on purpose: it forgets a delete within retention (a null value must remove the
// record, rule W4).
#ifndef VERIFY_MY_STORE_METERED_WINDOW_STORE_H_
#define VERIFY_MY_STORE_METERED_WINDOW_STORE_H_

#include <cstdint>
#include <memory>

#include "statecheck/in_memory_window_store.h"  // WindowStoreOptions
#include "statecheck/window_store.h"

namespace my_store {

struct Meter {
  int64_t puts = 0, deletes = 0, reads = 0;
};

// Makes a metered store over the engine's in-memory window store (statecheck::
// NewInMemoryWindowStore), counting into `*meter` (not owned; null: not counted). With
// `forget_deletes`, the planted bug: a delete within retention is counted and then dropped.
statecheck::Status NewMeteredWindowStore(const statecheck::WindowStoreOptions& options,
                                         Meter* meter, bool forget_deletes,
                                         std::unique_ptr<statecheck::WindowStore>* out);

}  // namespace my_store

#endif  // VERIFY_MY_STORE_METERED_WINDOW_STORE_H_
