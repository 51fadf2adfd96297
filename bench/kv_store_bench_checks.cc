// kv_store_bench's checks before any timing: the stores return the same values and ranges, and
// the two buffers agree on gets, ranges and what their commits write.
#include <rocksdb/db.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/utilities/write_batch_with_index.h>
#include <rocksdb/write_batch.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench/kv_store_bench.h"
#include "statecheck/key_value_store.h"

namespace statecheck::bench::kv_store {

// Checks ---------------------------------------------------------------------------------------

// Before any timing: every store returns what was written, and the three BM_Range stores the
// same records.
bool StoresAgree(Fixtures& f) {
  const Workload& w = Workload::Get();
  for (int64_t i = 0; i < 1'000; ++i) {
    const int64_t k = w.LookupKey(i);
    const std::string expected(w.Value(k));
    std::optional<std::string> committed, through_buffer;
    std::string raw;
    if (!f.get_committed.store->Get(w.Key(k), &committed).ok() ||
        !f.get_through_buffer.store->Get(w.Key(k), &through_buffer).ok() ||
        !f.get_raw.db->Get(rocksdb::ReadOptions(), w.Key(k), &raw).ok() || committed != expected ||
        through_buffer != expected || raw != expected) {
      std::fprintf(stderr, "check failed: Get of key %" PRId64 " differs\n", k);
      return false;
    }
  }
  // Read-your-writes: the buffered overwrites win.
  for (int64_t j = 0; j < kGetBuffered; j += 97) {
    const int64_t k = w.OverwrittenKey(j);
    std::optional<std::string> value;
    if (!f.get_through_buffer.store->Get(w.Key(k), &value).ok() ||
        value != std::string(w.Value(k + 1))) {
      std::fprintf(stderr, "check failed: buffered key %" PRId64 " does not read its write\n", k);
      return false;
    }
  }
  int64_t ranges = 0;
  int64_t overwritten_seen = 0;
  for (int64_t i = 0; i < 1'000; ++i, ++ranges) {
    const int64_t start = w.RangeStart(i);
    Drained committed, uncommitted, raw;
    if (!DrainEngine(*f.range_committed.store, start, true, &committed) ||
        !DrainEngine(*f.range_uncommitted.store, start, true, &uncommitted) ||
        !DrainRaw(*f.range_raw.db, start, true, &raw) || committed.records != kRangeLength ||
        committed.kvs != uncommitted.kvs || committed.kvs != raw.kvs) {
      std::fprintf(stderr, "check failed: range from key %" PRId64 " differs\n", start);
      return false;
    }
    for (int64_t r = 0; r < kRangeLength; ++r) {
      if (committed.kvs[r].value != w.Value(start + r)) ++overwritten_seen;
    }
  }
  std::printf(
      "check: the three Get stores agree on 1,000 lookups; the three Range stores on %" PRId64
      " ranges of %" PRId64 " records (%" PRId64 " overwritten records seen)\n",
      ranges, kRangeLength, overwritten_seen);
  return overwritten_seen > 0;
}

// Every record of `db`, in order.
std::vector<KeyValue> Contents(rocksdb::DB& db) {
  std::vector<KeyValue> kvs;
  std::unique_ptr<rocksdb::Iterator> it(db.NewIterator(rocksdb::ReadOptions()));
  for (it->SeekToFirst(); it->Valid(); it->Next()) {
    kvs.push_back(KeyValue{it->key().ToString(), it->value().ToString()});
  }
  Check(it->status(), "Iterator");
  return kvs;
}

// Before any timing: BM_Buffer's two buffers hold the same 9,000 entries, agree on every get
// (buffered keys read their last write, the lookup keys the database's value) and on the
// ranges, and their commits leave the same records.
bool BuffersAgree(Fixtures& f) {
  const Workload& w = Workload::Get();
  rocksdb::DB& db = *f.buffer_db.db;
  rocksdb::WriteBatchWithIndex& wbwi = *f.buffer_wbwi;
  int64_t index_entries = 0;
  {
    std::unique_ptr<rocksdb::WBWIIterator> it(wbwi.NewIterator());
    for (it->SeekToFirst(); it->Valid(); it->Next()) ++index_entries;
  }
  if (static_cast<int64_t>(f.buffer_map.size()) != kBufferDistinct ||
      index_entries != kBufferDistinct ||
      wbwi.GetWriteBatch()->Count() != static_cast<uint32_t>(kBufferWrites)) {
    std::fprintf(stderr,
                 "check failed: map entries %zu, index entries %" PRId64 ", batch records %u\n",
                 f.buffer_map.size(), index_entries, wbwi.GetWriteBatch()->Count());
    return false;
  }
  const rocksdb::ReadOptions ro;
  std::optional<std::string> from_map, from_wbwi;
  for (const auto& [key, value] : f.buffer_map) {
    if (!GetThroughWbwi(db, wbwi, ro, key, &from_wbwi) || from_wbwi != value) {
      std::fprintf(stderr, "check failed: buffered key %s differs\n", key.c_str());
      return false;
    }
  }
  for (int64_t i = 0; i < 1'000; ++i) {
    const int64_t k = w.BufferLookupKey(i);
    const std::string expected(w.Value(k));
    if (!GetThroughMap(db, f.buffer_map, ro, w.Key(k), &from_map) ||
        !GetThroughWbwi(db, wbwi, ro, w.Key(k), &from_wbwi) || from_map != expected ||
        from_wbwi != expected) {
      std::fprintf(stderr, "check failed: get through to key %" PRId64 " differs\n", k);
      return false;
    }
  }
  int64_t buffered_seen = 0;
  for (int64_t i = 0; i < 1'000; ++i) {
    const int64_t start = w.BufferRangeStart(i);
    Drained map, wbwi_drained;
    if (!DrainMap(db, f.buffer_map, start, true, &map) ||
        !DrainWbwi(db, wbwi, start, true, &wbwi_drained) || map.records != kRangeLength ||
        map.kvs != wbwi_drained.kvs) {
      std::fprintf(stderr, "check failed: buffered range from key %" PRId64 " differs\n", start);
      return false;
    }
    for (const KeyValue& kv : map.kvs) buffered_seen += f.buffer_map.count(kv.key);
  }
  RawStore map_commit, wbwi_commit;
  rocksdb::WriteBatch batch;
  BuildBatch(f.buffer_map, &batch);
  Check(map_commit.db->Write(RawStore::NoWal(), &batch), "DB::Write");
  Check(wbwi_commit.db->Write(RawStore::NoWal(), wbwi.GetWriteBatch()), "DB::Write");
  if (Contents(*map_commit.db) != Contents(*wbwi_commit.db)) {
    std::fprintf(stderr, "check failed: the two commits leave different records\n");
    return false;
  }
  std::printf("check: map and wbwi buffers agree on %" PRId64 " entries (%" PRId64
              " writes), 1,000 gets through, 1,000 ranges (%" PRId64
              " buffered records seen) and their commits\n",
              kBufferDistinct, kBufferWrites, buffered_seen);
  return buffered_seen > 0;
}

}  // namespace statecheck::bench::kv_store
