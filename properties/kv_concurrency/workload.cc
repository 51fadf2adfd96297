// Recording a concurrency history (history.h): one writer and N interactive-query readers run
// for real against a store, every call stamped with a logical clock at its invocation and its
// response; what the writer writes, what the readers ask and the commit/rollback choices all
// come from the seed.
#include <algorithm>
#include <atomic>
#include <iterator>
#include <latch>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "properties/harness_rocksdb.h"
#include "properties/kv_concurrency/history.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"

namespace statecheck::properties::kv_concurrency {

size_t MaxRangeRecords(const WorkloadOptions& o) { return static_cast<size_t>(o.keys) * 4 + 16; }

void DrainInto(KeyValueIterator& it, size_t limit, Event* ev) {
  while (ev->status.ok() && it.HasNext()) {
    if (ev->records.size() >= limit) {
      ev->status = Status::Aborted("the iterator returned more than " + std::to_string(limit) +
                                   " records over a key set of fewer");
      return;
    }
    KeyValue kv;
    ev->status = it.Next(&kv);
    if (ev->status.ok()) ev->records.push_back(std::move(kv));
  }
}

namespace {

// The logical clock every thread stamps its events with. Relaxed on purpose (see the header):
// a fetch_add on one location is still totally ordered, and on x86 a locked RMW, so a call that
// returned before another was invoked gets the smaller stamp; but TSan sees no synchronization.
class LogicalClock {
 public:
  int64_t Tick() { return next_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> next_{1};
};

// Deterministic on every platform, unlike the <random> distributions.
uint64_t Uniform(std::mt19937_64& rng, uint64_t n) { return n == 0 ? 0 : rng() % n; }
bool Chance(std::mt19937_64& rng, double p) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53 < p;
}

std::string ValueFor(int64_t epoch, const std::string& key) {
  // Appended piece by piece: "e" + std::to_string(...) trips gcc 12's -Wrestrict at -O3 (a false
  // positive, GCC bug 105329).
  std::string value = "e";
  value += std::to_string(epoch);
  value += ':';
  value += key;
  return value;
}

void RunReader(QueryView& view, int thread, const std::vector<std::string>& keys,
               const WorkloadOptions& o, LogicalClock& clock, std::latch& start,
               const std::atomic<bool>& writer_done, std::vector<Event>* out) {
  std::mt19937_64 rng(o.seed + 0x9E3779B97F4A7C15ULL * static_cast<uint64_t>(thread));
  start.arrive_and_wait();
  for (int n = 0; o.max_reads_per_reader == 0 || n < o.max_reads_per_reader; ++n) {
    // Acquire pairs with the writer's release only once it is done; until then it reads the
    // initial value and orders nothing.
    if (writer_done.load(std::memory_order_acquire)) break;
    Event ev;
    ev.thread = thread;
    const uint64_t pick = Uniform(rng, 100);
    if (pick < 40) {
      ev.kind = EventKind::kGet;
      ev.key = keys[Uniform(rng, keys.size())];
      ev.invoke = clock.Tick();
      ev.status = view.Get(ev.key, &ev.value);
      ev.response = clock.Tick();
    } else {
      ev.kind = EventKind::kRange;
      ev.reverse = pick >= 85 || (pick >= 55 && pick < 60);
      const bool all = pick < 60;  // 40..54 All, 55..59 ReverseAll, 60..84 Range, 85.. Reverse.
      if (!all) {
        uint64_t a = Uniform(rng, keys.size()), b = Uniform(rng, keys.size());
        if (a > b) std::swap(a, b);
        if (!Chance(rng, 0.125)) ev.from = keys[a];
        if (!Chance(rng, 0.125)) ev.to = keys[b];
      }
      std::unique_ptr<KeyValueIterator> it;
      ev.invoke = clock.Tick();
      if (all) {
        ev.status = ev.reverse ? view.ReverseAll(&it) : view.All(&it);
      } else {
        std::optional<std::string_view> from, to;
        if (ev.from) from = *ev.from;
        if (ev.to) to = *ev.to;
        ev.status = ev.reverse ? view.ReverseRange(from, to, &it) : view.Range(from, to, &it);
      }
      if (ev.status.ok()) {
        DrainInto(*it, MaxRangeRecords(o), &ev);
        it->Close();
      }
      ev.response = clock.Tick();
    }
    ev.position = view.LastReadPosition();
    out->push_back(std::move(ev));
    // Spreads the reads over the writer's whole run: spinning readers would starve the writer
    // of CPU and spend their read budget on the first few epochs.
    if (o.reader_pause_us > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(Uniform(rng, o.reader_pause_us + 1)));
    }
  }
}

Status RunWriter(KeyValueStore& store, const WorkloadOptions& o,
                 const std::vector<std::string>& keys, LogicalClock& clock,
                 std::vector<Event>* out) {
  const bool read_committed = store.isolation() == IsolationLevel::kReadCommitted;
  std::mt19937_64 rng(o.seed);
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  const size_t max_writes = std::min<size_t>(o.max_writes_per_epoch, keys.size());
  for (int64_t e = 1; e <= o.epochs; ++e) {
    const RecordContext context{o.partition, e};
    const size_t n = 1 + Uniform(rng, max_writes);
    for (size_t i = 0; i < n; ++i) std::swap(order[i], order[i + Uniform(rng, keys.size() - i)]);
    for (size_t i = 0; i < n; ++i) {
      Event ev;
      ev.epoch = e;
      ev.key = keys[order[i]];
      ev.position = {{o.partition, e}};
      if (Chance(rng, o.delete_probability)) {
        ev.kind = EventKind::kDelete;
        std::optional<std::string> old;
        ev.invoke = clock.Tick();
        ev.status = store.Delete(ev.key, &old, &context);
        ev.response = clock.Tick();
      } else {
        ev.kind = EventKind::kPut;
        ev.value = ValueFor(e, ev.key);
        ev.invoke = clock.Tick();
        ev.status = store.Put(ev.key, *ev.value, &context);
        ev.response = clock.Tick();
      }
      out->push_back(ev);
      if (!ev.status.ok()) return ev.status;
      // Leaves the epoch open a little longer, so that readers run while it is uncommitted.
      std::this_thread::yield();
    }
    Event end;
    end.epoch = e;
    if (read_committed && Chance(rng, o.rollback_probability)) {
      end.kind = EventKind::kRollback;
      end.invoke = clock.Tick();
      end.status = store.Rollback();
      end.response = clock.Tick();
    } else {
      end.kind = EventKind::kCommit;
      end.invoke = clock.Tick();
      end.status = store.Commit({{o.changelog, e}});
      end.response = clock.Tick();
      if (end.status.ok()) end.position = store.CommittedPosition();
    }
    out->push_back(end);
    if (!end.status.ok()) return end.status;
  }
  return Status::Ok();
}

}  // namespace

Status RunWorkload(KeyValueStore& store, const WorkloadOptions& options, History* history) {
  const WorkloadOptions& o = options;
  if (o.epochs < 0 || o.readers < 0 || o.keys < 1 || o.max_writes_per_epoch < 1 ||
      o.max_reads_per_reader < 0) {
    return Status::InvalidArgument(
        "WorkloadOptions: epochs, readers and max_reads_per_reader must be >= 0, keys and "
        "max_writes_per_epoch >= 1");
  }
  history->isolation = store.isolation();
  history->seed = o.seed;
  history->readers = o.readers;
  history->events.clear();

  std::vector<std::string> keys;
  for (int i = 0; i < o.keys; ++i) keys.push_back("k" + std::to_string(i));
  std::sort(keys.begin(), keys.end());  // Range bounds are picked as from <= to.

  LogicalClock clock;
  std::vector<std::shared_ptr<QueryView>> views;  // Made here: NewQueryView is a writer call.
  for (int r = 0; r < o.readers; ++r) views.push_back(store.NewQueryView());
  std::vector<std::vector<Event>> reader_events(o.readers);
  std::atomic<bool> writer_done{false};
  std::latch start(o.readers + 1);
  std::vector<std::thread> readers;
  for (int r = 0; r < o.readers; ++r) {
    readers.emplace_back([&, r] {
      RunReader(*views[r], r + 1, keys, o, clock, start, writer_done, &reader_events[r]);
    });
  }
  std::vector<Event> events;
  start.arrive_and_wait();
  const Status result = RunWriter(store, o, keys, clock, &events);
  writer_done.store(true, std::memory_order_release);
  for (auto& t : readers) t.join();

  for (auto& per_reader : reader_events) {
    std::move(per_reader.begin(), per_reader.end(), std::back_inserter(events));
  }
  std::stable_sort(events.begin(), events.end(),
                   [](const Event& a, const Event& b) { return a.invoke < b.invoke; });
  history->events = std::move(events);
  return result;
}

StoreFactory EngineKvConcurrencyStoreFactory() {
  return [](const std::string& directory, IsolationLevel isolation,
            std::unique_ptr<KeyValueStore>* store) {
    RocksDBStoreOptions o;
    o.name = "kv";
    o.directory = directory;
    o.isolation = isolation;
    o.logger = NullLogger();
    o.env = KvScratchEnv();  // Its scratch directory's, as the kv_store family's stores.
    o.config_setter = HarnessRocksDBConfig();
    std::unique_ptr<RocksDBStore> s;
    STATECHECK_RETURN_IF_ERROR(OpenRocksDBStore(o, &s));
    *store = std::move(s);
    return Status::Ok();
  };
}

}  // namespace statecheck::properties::kv_concurrency
