#include "properties/task/generator.h"

#include <string>
#include <vector>

#include "properties/generators.h"
#include "statecheck/hooks/fail_points.h"

namespace statecheck::properties::task {

rc::Gen<Op> GenOp(const GenState& state) {
  return rc::gen::exec([state] {
    const bool power_loss = state.power_loss;
    const int formats = state.format_switches ? 1 : 0;
    const int crashes = state.crashes ? 1 : 0;
    Op op;
    op.type = PickWeighted<OpType>(
        {{4, OpType::kAppend},
         {5, OpType::kProcess},
         {2, OpType::kAdvanceClock},  // C5's time interval.
         {2, OpType::kCommit},
         {2 * crashes, OpType::kCrash},
         {2, OpType::kRestart},
         {power_loss ? 3 * crashes : 0, OpType::kFaultyCommit},
         {power_loss ? crashes : 0, OpType::kFaultyRestore},
         {3 * formats, OpType::kRestartAs},
         // A damaged file matters most beside legacy stores (U5).
         {(state.legacy ? 3 : 1) * formats, OpType::kDamageFile},
         {state.legacy ? 4 * formats * crashes : 0, OpType::kFaultyUpgrade},
         {power_loss ? crashes : 0, OpType::kDamageLog},
         {power_loss ? crashes : 0, OpType::kDamageStore},
         {1, OpType::kFaultyRead},
         // A close's marker is the current format's: not drawn where the case starts legacy,
         // whose draws go to the upgrade steps (the sweep closes faultily there after upgrading).
         {formats ? 0 : crashes, OpType::kFaultyClose}});
    switch (op.type) {
      case OpType::kAppend: {
        const int n = *UniformInRange<int>(1, 4);
        for (int i = 0; i < n; ++i) {
          std::string key = *rc::gen::elementOf(std::vector<std::string>{"a", "b", "ab", "c"});
          std::optional<std::string> value;
          if (*UniformInRange<int>(0, 5) > 0) {
            value = *rc::gen::elementOf(std::vector<std::string>{"1", "22", "x"});
          }
          op.records.emplace_back(std::move(key), std::move(value));
        }
        break;
      }
      case OpType::kProcess:
        op.n = *UniformInRange<int64_t>(1, 8);
        break;
      case OpType::kAdvanceClock:
        op.n = *rc::gen::elementOf(std::vector<int64_t>{1, 60, 200});
        break;
      case OpType::kFaultyCommit: {
        std::vector<std::string> points = {"fsync",
                                           "fsync",
                                           "fsync",
                                           "statecheck/fs/append/*",
                                           "statecheck/fs/open/*",
                                           "statecheck/fs/read/*",
                                           "statecheck/fs/rename/*",
                                           "statecheck/fs/delete/*",
                                           "statecheck/fs/truncate/*"};
        for (const EngineFailPoint& p : EngineFailPoints()) {
          if (p.name != kFailTaskRestoreBatch && p.name != kFailTaskUpgradeBeforeDelete &&
              p.name != kFailTaskUpgradeBeforeImport &&
              p.name != kFailStoreBeforeFlush &&  // An upgrade's import alone flushes and waits.
              p.name != kFailStoreIterate &&  // A commit never iterates ...
              p.name != kFailStoreOpenMarker &&
              p.name != kFailStoreCloseMarker &&  // ... nor opens or closes a store ...
              (state.compaction ||                // ... nor compacts, unless the case does.
               (p.name != kFailLogCompactBeforeSync && p.name != kFailLogCompactBeforeRename &&
                p.name != kFailLogCompactBeforeDirSync && p.name != kFailLogCompactBeforeDelete))) {
            // The named steps: twice; a compaction's, which a commit reaches only when it
            // compacts a changelog with something to remove (the multi-segment step only when
            // it has several closed segments), four times.
            const bool compaction_step = p.name.starts_with("statecheck/log/compact/");
            points.insert(points.end(), compaction_step ? 4 : 2, std::string(p.name));
          }
        }
        points.insert(points.end(), 2, kFullDisk);
        // A commit that compacts renames and deletes the log's files: a few a partition (its
        // compacted file, the segments it replaces), aimed at directly (n small, below).
        if (state.compaction) {
          points.insert(points.end(), {"statecheck/fs/rename/log", "statecheck/fs/delete/log"});
        }
        op.point = *rc::gen::elementOf(points);
        // A commit makes up to about a dozen fsyncs (log partitions, the commit decision, each
        // store's flush); a larger n lets the commit succeed. A full disk leaves room for none to
        // all of a commit's writes: half the time within its log records (the first few hundred
        // bytes), else anywhere up to its stores' table files and MANIFEST edits (a few KiB).
        op.n = op.point == kFullDisk ? *UniformInRange<int64_t>(0, *rc::gen::element(600, 4000))
               : op.point.ends_with("/log") ? *UniformInRange<int64_t>(1, 4)
               : op.point.rfind("statecheck/fs/", 0) == 0 || op.point == "fsync"
                   ? *UniformInRange<int64_t>(1, 16)
                   : 1;
        op.k = *UniformInRange<int64_t>(0, 5);
        op.error = op.point == kFullDisk
                       ? faults::FaultSpec::Error::kNoSpace
                       : *rc::gen::elementOf(std::vector<faults::FaultSpec::Error>{
                             faults::FaultSpec::Error::kIO, faults::FaultSpec::Error::kNoSpace,
                             faults::FaultSpec::Error::kShortWrite});
        op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        // Half the failures are followed by a crash, half by the process going on (F8).
        op.keep_going = *rc::gen::arbitrary<bool>();
        break;
      }
      case OpType::kFaultyRestore:
        // Where a start can fail: the restore's own point, or any file operation of the log's
        // and the stores' recovery.
        op.point = *rc::gen::elementOf(std::vector<std::string>{
            std::string(kFailTaskRestoreBatch), std::string(kFailTaskRestoreBatch),
            std::string(kFailStoreOpenMarker), "fsync", "statecheck/fs/open/*",
            "statecheck/fs/read/*", "statecheck/fs/append/*", "statecheck/fs/delete/*",
            "statecheck/fs/truncate/*"});
        op.n = op.point == kFailTaskRestoreBatch  ? 1
               : op.point == kFailStoreOpenMarker ? *UniformInRange<int64_t>(1, 2)
                                                  : *UniformInRange<int64_t>(1, 12);
        op.error = *rc::gen::elementOf(std::vector<faults::FaultSpec::Error>{
            faults::FaultSpec::Error::kIO, faults::FaultSpec::Error::kNoSpace});
        op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      case OpType::kFaultyRead: {
        // Where a read can fail: a step of its iterator, a Get, a read of a table file — the
        // last only where RocksDB runs no background work (the power-loss configurations): a
        // compaction that met the fault would fail the task's later writes at random.
        std::vector<std::string> points = {std::string(kFailStoreIterate),
                                           std::string(kFailStoreIterate),
                                           std::string(kFailStoreGet)};
        if (power_loss) points.emplace_back("statecheck/fs/read/*");
        op.point = *rc::gen::elementOf(points);
        op.n = *UniformInRange<int64_t>(1, op.point == kFailStoreIterate ? 8 : 4);
        break;
      }
      case OpType::kFaultyClose:
        // The first or the second store the close closes loses its marker (or, past them, none).
        op.point = kFailStoreCloseMarker;
        op.n = *UniformInRange<int64_t>(1, 3);
        break;
      case OpType::kRestartAs:
      case OpType::kDamageFile:
        // Without crashes every switch starts after a clean close.
        op.clean = state.crashes ? *rc::gen::arbitrary<bool>() : true;
        op.format = *rc::gen::element(StateFormat::kLegacy, StateFormat::kCurrent);
        if (op.type == OpType::kDamageFile) {
          op.file = *rc::gen::elementOf(
              std::vector<std::string>(std::begin(kLegacyFiles), std::end(kLegacyFiles)));
          // A negative offset (skipped with a warning, SPEC U) is the subtlest damage: thrice.
          std::vector<std::string> damages(std::begin(kDamages), std::end(kDamages));
          damages.insert(damages.end(), {"negative", "negative"});
          op.damage = *rc::gen::elementOf(damages);
        }
        op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      case OpType::kFaultyUpgrade:
        // Where an upgrade can fail: a store opened in the current format before its import,
        // between the imports and the deletion of the files, any operation on the legacy
        // files, or the n-th fsync (the imports' flushes).
        // Each step an upgrade can crash at as often as the others (U2): reading the files,
        // a store opened but not yet imported, importing them (fsyncs, the stores' files),
        // before deleting them, deleting them.
        op.point = *rc::gen::elementOf(std::vector<std::string>{
            std::string(kFailTaskUpgradeBeforeImport), std::string(kFailTaskUpgradeBeforeImport),
            std::string(kFailTaskUpgradeBeforeDelete), std::string(kFailTaskUpgradeBeforeDelete),
            std::string(kFailStoreBeforeFlush), "fsync", "statecheck/fs/open/*", "statecheck/fs/append/*",
            "statecheck/fs/delete/checkpoint", "statecheck/fs/delete/checkpoint",
            "statecheck/fs/delete/checkpoint", "statecheck/fs/read/checkpoint",
            "statecheck/fs/read/checkpoint", "statecheck/fs/read/checkpoint"});
        // The legacy files are three (.checkpoint and two .position files): their points fail at
        // one of their first three reaches, or they would seldom fail at all.
        // The before-import point is reached once per store (two import: kv and counts).
        op.n = op.point == kFailTaskUpgradeBeforeDelete   ? 1
               : op.point == kFailTaskUpgradeBeforeImport || op.point == kFailStoreBeforeFlush
                   ? *UniformInRange<int64_t>(1, 2)
               : op.point.find("/checkpoint") != std::string::npos
                   ? *UniformInRange<int64_t>(1, 3)
                   : *UniformInRange<int64_t>(1, 12);
        op.format = *rc::gen::element(StateFormat::kLegacy, StateFormat::kCurrent);
        op.error = *rc::gen::elementOf(std::vector<faults::FaultSpec::Error>{
            faults::FaultSpec::Error::kIO, faults::FaultSpec::Error::kNoSpace});
        op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      case OpType::kCrash:
        if (power_loss) op.tear_seed = *rc::gen::arbitrary<uint64_t>();
        break;
      case OpType::kDamageLog:
      case OpType::kDamageStore:
        op.damage = *rc::gen::elementOf(
            std::vector<std::string>(std::begin(kLogDamages), std::end(kLogDamages)));
        op.n = *rc::gen::inRange<int64_t>(0, int64_t{1} << 40);
        break;
      default:
        break;
    }
    return op;
  });
}

}  // namespace statecheck::properties::task
