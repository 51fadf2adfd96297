// The persistent transactional key-value store on RocksDB (KIP-892, SPEC T2–T11).
//
// Under effective READ_COMMITTED, writes go to an in-memory transaction buffer (a sorted map,
// key → value or delete, in an arena) that the writer reads through; Commit writes the buffer, the
// changelog offsets and the committed position in one WriteBatch. Under READ_UNCOMMITTED, writes go
// straight to RocksDB, and Commit writes the offsets and position alone.
//
// Durability (SPEC C1, C7; KIP-892's "Atomic Checkpointing"). Without the WAL (Kafka Streams'
// setting) a commit's batch goes to the memtables and is not flushed: the committed data is
// durable in the changelog, and the store becomes durable when RocksDB flushes — when a memtable
// fills, when more than `max_unflushed_bytes` have been committed since the last flush (a
// background flush the commit starts and does not wait for), at a clean close, and at the
// commit that imports a legacy store's offsets (U1). atomic_flush flushes the data and the
// metadata together, so what is on disk is always one whole commit; after a crash the store holds
// some commit between its last flush and its last, and its task's restore replays the changelog
// from that commit's offset + 1. DurableOffset says which commit a crash can go back to at the
// least. A background flush that fails is reported by the store's next call (FailedPrecondition:
// abandon the store and open it again). With the WAL, a commit is one synced WAL write, durable
// at once.
//
// Why a sorted map and not KIP-892's WriteBatchWithIndex (bench/kv_store_bench, BM_Buffer):
// the map buffers a write in 0.25x the time, commits 10,000 writes in 0.27x (it hands RocksDB
// one sorted record per key, which RocksDB puts into its memtable 4x faster: BM_Commit/
// raw_memtable_*), iterates 0.26x, and a writer iterator can copy just its range, where a
// WriteBatchWithIndex iterator is invalidated by the writer's own later writes (T5). The map
// keeps its bytes in an arena and its index holds nothing to destroy (engine/store/
// write_buffer.h): against a std::map of strings it buffers a write in 0.76x the time, copies
// itself into the commit's batch in 0.52x and clears in 0.12x (engine/write_buffer_bench).

// Open iterators end when the store closes (HasNext false), as Kafka's RocksDBStore closes them.
//
// On disk, in the store's directory: the data (column family "default"), and the store's own
// metadata in column family "statecheck.meta": changelog offsets, the committed position, the
// format version and the open-status marker (set while open, cleared on clean close).
//
// Formats (SPEC U). A current-format store ("format" = 1) keeps its offsets and position as
// above. A legacy-format store ("format" = 0; options.format = kLegacy) keeps neither, nor the
// open-status marker: its task keeps them in `.checkpoint` and `<store>.position` files, and a
// commit only makes the data durable. A store with no format mark but with data is legacy too
// (written by something that did not mark it).
//   * Opened current over a legacy store: usable at once; the store stays legacy on disk until
//     its first commit (or ImportLegacy), which writes the offsets, the position and the
//     current-format mark in one atomic batch (U1, U2).
//   * Opened legacy over a current store: the store writes nothing and refuses every call but
//     Close and Abandon; its owner must wipe it (DestroyRocksDBStore) and open it again (U3).
#ifndef STATECHECK_ROCKSDB_STORE_H_
#define STATECHECK_ROCKSDB_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "statecheck/key_value_store.h"
#include "statecheck/logger.h"
#include "statecheck/state_config.h"
#include "statecheck/status.h"

namespace rocksdb {
class Env;
struct Options;
}  // namespace rocksdb

namespace statecheck {

// Kafka Streams' rocksdb.config.setter: called with the store's name and the RocksDB options the
// engine chose, just before the store opens, to tune what the engine leaves to RocksDB (caches,
// table options, threads, the info log). The engine's defaults are RocksDB's, except the info
// log's level, which is ERROR as Kafka Streams sets it. The settings the engine's rules rest on
// are not the setter's to change, and an open whose setter changed one fails with
// InvalidArgument naming it: atomic_flush (T7), avoid_flush_during_shutdown (a crash loses what
// was not committed), create_if_missing, create_missing_column_families, error_if_exists, env
// (all I/O goes through the one given), wal_dir, db_paths and cf_paths (a wipe deletes the store's
// directory, so every file stays in it), and write_buffer_size and disable_auto_compactions
// when RocksDBStoreOptions sets them.
using RocksDBConfigSetter =
    std::function<void(const std::string& store_name, rocksdb::Options* options)>;

struct RocksDBStoreOptions {
  std::string name;
  std::string directory;  // Created if missing.
  IsolationLevel isolation = IsolationLevel::kReadUncommitted;
  // The Env the store does all I/O through (the faults layer wraps one). Null = the default.
  // Not owned; must outlive the store.
  rocksdb::Env* env = nullptr;
  bool use_wal = false;           // Kafka Streams disables RocksDB's WAL: the changelog is the log.
  int64_t write_buffer_size = 0;  // RocksDB's memtable size; 0 = RocksDB's default.
  // Without the WAL: the bytes committed since the last flush (commit batches and direct
  // writes) above which a commit starts a background flush, so that a crash costs at most about
  // this much changelog to replay (C7). -1 = no bound (RocksDB flushes when its memtables fill).
  // 1 MiB: small memtables also keep commits cheap — a commit's sorted batch goes into a
  // skiplist that grows until the flush (bench/kv_store_bench BM_Commit/read_committed/10000:
  // 9.1 ms median at 1 MiB, 15.1 ms at 4 MiB, 25.6 ms at 16 MiB, one sitting).
  int64_t max_unflushed_bytes = 1 << 20;
  // No background compactions, and the flush max_unflushed_bytes starts runs in the commit that
  // starts it: every file write then happens in a call the writer made, so a fault schedule
  // ("fail the n-th fsync") replays exactly. For harnesses; files pile up in L0. (RocksDB's own
  // flush of a full memtable still runs in the background.)
  bool disable_auto_compactions = false;
  std::shared_ptr<Logger> logger;     // Null = StderrLogger().
  RocksDBConfigSetter config_setter;  // Null = none.
  // Opens the store as it is on disk, as a crash or another process left it, and writes nothing:
  // no OPTIONS file, no open-status marker, no flush (RocksDB's read-only open; a WAL is replayed
  // into memory). Reads and views work; Put, PutAll, Delete, PutIfAbsent, Commit, Rollback and
  // ImportLegacy fail with FailedPrecondition, and Close clears no marker. NotFound when there is
  // no store in `directory`; `format` and `legacy_position` are ignored (found_format() says what
  // is there).
  bool read_only = false;
  StateFormat format = StateFormat::kCurrent;
  // Legacy format: the committed position the store starts from (its task reads it from the
  // store's .position file). Ignored in the current format.
  Position legacy_position;
};

class RocksDBStore : public KeyValueStore {
 public:
  // Whether the store was closed cleanly last time (the open-status marker was clear).
  virtual bool was_closed_cleanly() const = 0;
  // The format the store had on disk when it was opened; std::nullopt for a new, empty store.
  virtual std::optional<StateFormat> found_format() const = 0;
  // Upgrade (U1): for a store opened in the current format over a legacy one, with nothing
  // written since: commits `offsets` with `position` as the committed position, marking the
  // store current-format, in one atomic, durable batch. FailedPrecondition otherwise.
  virtual Status ImportLegacy(const ChangelogOffsets& offsets, const Position& position) = 0;
};

// Opens (creating if needed) the store. IOError/Corruption from RocksDB, converted.
Status OpenRocksDBStore(const RocksDBStoreOptions& options, std::unique_ptr<RocksDBStore>* store);

// Deletes the store in `directory` (which must not be open) and the directory: a wipe (T10).
// OK if there is no such directory. `env` null = the default. IOError from RocksDB, converted.
Status DestroyRocksDBStore(const std::string& directory, rocksdb::Env* env);

}  // namespace statecheck

#endif  // STATECHECK_ROCKSDB_STORE_H_
