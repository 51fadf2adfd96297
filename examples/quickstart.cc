// The engine as a user links it (the product build: ci/build.sh product): a KIP-428 in-memory
// window store and a KIP-892 transactional key-value store on RocksDB, READ_COMMITTED, with an
// interactive-query reader that sees only what was committed. Exits 0 when every step behaves as
// the headers promise, 1 (saying which step) otherwise; ci/build.sh product runs it.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "statecheck/in_memory_window_store.h"
#include "statecheck/logger.h"
#include "statecheck/rocksdb_store.h"

namespace {

bool Check(bool ok, const char* what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what);
  return ok;
}

}  // namespace

int main() {
  using statecheck::Status;
  bool ok = true;

  statecheck::WindowStoreOptions wo;
  wo.name = "clicks";
  wo.retention_ms = 1000;
  wo.window_size_ms = 100;
  std::unique_ptr<statecheck::WindowStore> windows;
  ok &= Check(statecheck::NewInMemoryWindowStore(wo, &windows).ok(), "window store opens");
  ok &= Check(windows->Put("user-1", "3", 0).ok() && windows->Put("user-1", "5", 2000).ok(),
              "two puts, the second 2 s later");
  std::optional<std::string> v;
  ok &= Check(windows->Fetch("user-1", 2000, &v).ok() && v == "5", "the live window is there");
  ok &= Check(windows->Fetch("user-1", 0, &v).ok() && !v, "the expired window is gone (W6)");

  const std::string dir =
      (std::filesystem::temp_directory_path() / "statecheck-quickstart-kv").string();
  std::filesystem::remove_all(dir);
  statecheck::RocksDBStoreOptions ko;
  ko.name = "counts";
  ko.directory = dir;
  ko.isolation = statecheck::IsolationLevel::kReadCommitted;
  ko.logger = statecheck::NullLogger();
  std::unique_ptr<statecheck::RocksDBStore> kv;
  ok &= Check(statecheck::OpenRocksDBStore(ko, &kv).ok(), "transactional store opens");
  const std::shared_ptr<statecheck::QueryView> iq = kv->NewQueryView();
  ok &= Check(kv->Put("a", "1").ok(), "the writer puts a=1");
  ok &= Check(kv->Get("a", &v).ok() && v == "1", "the writer reads its own write (T5)");
  ok &= Check(iq->Get("a", &v).ok() && !v, "an IQ reader does not see it before commit (T4)");
  ok &= Check(kv->Commit({{"counts-changelog-0", 0}}).ok(), "commit with changelog offset 0");
  ok &= Check(iq->Get("a", &v).ok() && v == "1", "the IQ reader sees it after commit");
  ok &= Check(kv->CommittedOffset("counts-changelog-0") == 0, "the offset is stored with the data");
  kv->Close();
  // Read-only: the store as it is on disk, for a look that must change nothing.
  ko.read_only = true;
  ok &= Check(statecheck::OpenRocksDBStore(ko, &kv).ok() && kv->Get("a", &v).ok() && v == "1",
              "a read-only open sees the commit");
  ok &= Check(!kv->Put("b", "2").ok(), "and refuses writes");
  kv->Close();
  std::filesystem::remove_all(dir);
  std::printf("%s\n", ok ? "quickstart: OK" : "quickstart: FAILED");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
