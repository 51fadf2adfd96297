#include "properties/task/property.h"

#include <rapidcheck.h>
#include <rocksdb/env.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "faults/fail_points.h"
#include "faults/fault_fs.h"
#include "model/state_config_model.h"
#include "model/task_model.h"
#include "properties/evidence.h"
#include "properties/fault_tally.h"
#include "properties/generators.h"
#include "properties/harness_rocksdb.h"
#include "properties/kit/family.h"
#include "properties/kit/json_lines.h"
#include "properties/rapidcheck_runner.h"
#include "properties/task/generator.h"
#include "properties/task/sut.h"
#include "statecheck/hooks/fail_points.h"
#include "statecheck/log.h"
#include "statecheck/offset_checkpoint.h"
#include "statecheck/rocksdb_store.h"
#include "statecheck/task.h"

namespace statecheck::properties::task {

// rapidcheck shows a case's drawn configuration as its setup's JSON (the first line of a
// counterexample).
void showValue(const Config& config, std::ostream& os) { os << SetupJson(config.setup).dump(); }

namespace {

// T1: the engine's row against the table's, in each format the configuration runs in. Held, or
// the T1 finding.
CheckResult CheckT1Rows(const Config& config) {
  std::vector<std::map<std::string, std::string>> variants = {config.streams_config};
  if (config.format_switches) {
    for (StateFormat f : {StateFormat::kLegacy, StateFormat::kCurrent}) {
      variants.push_back(config.streams_config);
      variants.back()[std::string(kStateFormatConfig)] = StateFormatName(f);
    }
  }
  for (const auto& props : variants) {
    StateConfig resolved;
    if (const Status s = ResolveStateConfig(props, &resolved); !s.ok()) {
      return Finding("T1", "configuration: " + s.ToString());
    }
    model::T1Row row;
    std::string problem;
    if (!model::ExpectedT1Row(props, &row, &problem)) {
      return Finding("T1", "configuration: T1 has no row for " + problem);
    }
    // Checks: T1 — each format's resolved configuration against T1's table row
    if (CheckResult diff = model::CompareT1Row(props, resolved, row)) return diff;
  }
  return std::nullopt;
}

struct Family {
  using Vocabulary = task::Vocabulary;
  using Model = GenState;
  using Sut = task::Sut;
  // A start's finding is the Sut's own (Sut::Started: C2).
  static constexpr std::string_view kStartRule = "C2";

  // T1's row of the configuration, in each format it runs in (a divergence at step 0).
  static std::optional<Finding> Preflight(const Config& config) {
    StateConfig resolved;
    if (const Status r = ResolveStateConfig(config.streams_config, &resolved); !r.ok()) {
      return Finding("T1", "configuration: " + r.ToString());
    }
    return CheckT1Rows(config);
  }
  // Each case's task settings (they shrink too).
  static rc::Gen<Config> GenConfig(const Config& config) {
    return rc::gen::exec([config] {
      Config c = config;
      Setup& s = c.setup;
      // Intervals of 0 and 5 records twice as often as 1 and 2, and two small bounds (a record
      // writes about 5 bytes), the smallest twice: a short campaign must see the bounds force
      // commits (T11, C5), which intervals of 1 or 2 records pre-empt.
      s.commit_interval_records = *rc::gen::elementOf(std::vector<int64_t>{0, 1, 2, 5, 0, 5});
      s.commit_interval_ms = *rc::gen::elementOf(std::vector<int64_t>{-1, 50});
      s.uncommitted_max_bytes =
          *rc::gen::elementOf(std::vector<int64_t>{kDefaultUncommittedMaxBytes, -1, 12, 6, 6});
      s.changelog_compaction = *rc::gen::arbitrary<bool>();
      // Each record written alone, a batch every record or two, or only at commits.
      s.log_batch_bytes =
          *rc::gen::elementOf(std::vector<int64_t>{0, 150, TaskOptions{}.log_batch_bytes});
      // A third of the cases keep one segment a partition; the others roll one at nearly every
      // write or every few records (a changelog record takes 40 to 80 bytes), so that
      // compactions replace several closed segments.
      s.log_segment_bytes =
          *rc::gen::elementOf(std::vector<int64_t>{LogOptions{}.segment_bytes, 100, 400});
      // RocksDB's OPTIONS file, written and parsed back at every open, is about 40% of a case's
      // time and nothing a rule observes: one case in sixteen keeps it, so that faults still land
      // on it between the sweep's runs (docs/traces.md).
      s.rocksdb_options_files = *rc::gen::weightedElement<bool>({{15, false}, {1, true}});
      // A flush after every commit, after a few (a commit writes about 100 bytes to a store),
      // only at a clean close, or the engine's default (which these cases never reach): so that
      // crashes find stores flushed in the middle of a run and stores behind their changelog.
      s.max_unflushed_bytes =
          *rc::gen::elementOf(std::vector<int64_t>{0, 300, -1, TaskOptions{}.store_max_unflushed_bytes});
      return c;
    });
  }
  static Model InitialModel(const Config& config) {
    return GenState{config.power_loss, config.format_switches, config.format_switches,
                    config.crashes, config.setup.changelog_compaction};
  }
  static rc::Gen<Op> GenOp(const Model& state) { return task::GenOp(state); }
  // Shrinking may drop the step that took the task to the legacy format.
  static bool Precondition(const Model& state, const Op& op) {
    return op.type != OpType::kFaultyUpgrade || state.legacy;
  }
  static void Next(Model& state, const Op& op) {
    if (op.type == OpType::kRestartAs || op.type == OpType::kDamageFile ||
        op.type == OpType::kFaultyUpgrade) {
      state.legacy = op.format == StateFormat::kLegacy;
    }
  }
};
static_assert(kit::Family<Family>);

// The task of a case's configuration (its processor replaced by `processor`, for tests) beside
// the task model, in a scratch directory of its own, with no fail point armed.
kit::Start<Family> StartWith(std::function<std::unique_ptr<Processor>()> processor) {
  return [processor](const Config& config, ReplayTarget, std::unique_ptr<Sut>* out) {
    StateConfig resolved;
    STATECHECK_RETURN_IF_ERROR(ResolveStateConfig(config.streams_config, &resolved));
    Config chosen = config;
    if (processor) chosen.processor = processor;
    const std::string dir = ScratchDirectory("task");
    std::filesystem::remove_all(dir);
    faults::FailPoints::Reset();
    auto sut = std::make_unique<Sut>(dir, chosen, resolved);
    sut->Start();  // A finding is the Sut's Started().
    *out = std::move(sut);
    return Status::Ok();
  };
}

}  // namespace

PropertyOutcome CheckMatchesModel(const Config& config, const PropertyParams& params) {
  return kit::CheckProperty<Family>("task/MatchesModel/" + config.label, config, StartWith(nullptr),
                                    params);
}

Status Replay(const kit::Trace<Vocabulary>& trace, TraceReplay* out,
              std::function<std::unique_ptr<Processor>()> processor) {
  return kit::Replay<Family>(trace, ReplayTarget::kBoth, StartWith(std::move(processor)), out);
}

FamilyEntry Entry() {
  FamilyEntry entry;
  for (const Config& config : OptionMatrix()) {
    entry.properties.push_back(
        {"task/MatchesModel/" + config.label, "task", "TaskProperty.MatchesModel",
         [config](const PropertyParams& p) { return CheckMatchesModel(config, p); },
         /*batch_divisor=*/8});
    entry.properties.back().config =
        DescribeStreamsConfig(config.streams_config) + (config.use_wal ? ", WAL" : "") +
        (config.power_loss ? ", crashes lose power" : ", process crashes") +
        (config.format_switches ? ", switching state.format" : "");
  }
  entry.trace_kinds.push_back(kit::TraceKindOf<Family>("task", StartWith(nullptr)));
  return entry;
}

const std::vector<std::string>& FaultSweepConfigs() {
  static const std::vector<std::string> configs = {"alos_ru_powerloss", "eos_rc_powerloss",
                                                   "eos_ru_powerloss", "alos_unset_formats",
                                                   "eos_unset_formats"};
  return configs;
}

FaultSweepOutcome RunFaultSweep(const std::vector<std::string>& points,
                                const std::vector<std::string>& configs) {
  FaultSweepOutcome out;
  auto records = [](std::vector<std::pair<std::string, Json>> kvs) {
    Json a = Json::array();
    for (auto& [k, v] : kvs) a.push_back(Json::array({k, v}));
    return a;
  };
  for (const std::string& config : configs.empty() ? FaultSweepConfigs() : configs) {
    const bool formats = config.ends_with("_formats");
    for (const std::string& point : points) {
      // The scenario as a trace's text, read by the kit's parser as `statecheck replay` reads it.
      std::string text = Json{{"statecheck_trace", kTraceFormatVersion},
                              {"kind", "task"},
                              {"config", config},
                              {"setup",
                               {{"commit_interval_records", 0},
                                {"commit_interval_ms", -1},
                                {"uncommitted_max_bytes", -1},
                                {"changelog_compaction", true},
                                {"log_segment_bytes", 200},
                                {"max_unflushed_bytes", 0}}}}
                             .dump() +
                         "\n";
      auto step = [&text](const Json& j) { text += j.dump() + "\n"; };
      auto fault = [&](const char* op) {
        return Json{{"op", op}, {"point", point}, {"n", 1}, {"error", "EIO"}, {"tear_seed", 0}};
      };
      step({{"op", "append"},
            {"records", records({{"a", "1"}, {"b", "2"}, {"a", nullptr}, {"c", "3"}})}});
      step({{"op", "process"}, {"max_records", 2}});
      step({{"op", "commit"}});
      Json commit = fault("faultyCommit");
      commit["process"] = 2;
      step(commit);
      // The same fault again, and this time the process goes on (F8).
      step({{"op", "append"}, {"records", records({{"e", "5"}})}});
      commit["keep_going"] = true;
      step(commit);
      ++out.keep_going_steps;
      if (&point == &points.front()) {
        // Each damage kind twice per configuration (F6): in a log partition before its first
        // record and further in; in a store's first MANIFEST and another of its files (in the
        // legacy format the .checkpoint, and the .checkpoint or a .position file).
        for (const char* damage : {"flip", "zero"}) {
          for (int64_t at : {int64_t{0}, int64_t{(1 << 24) + 37}}) {
            step({{"op", "damageLog"}, {"damage", damage}, {"at", at}});
            ++out.damage_steps;
          }
          for (int64_t at : {int64_t{0}, int64_t{(1 << 24) + 101}}) {
            step({{"op", "damageStore"}, {"damage", damage}, {"at", at}});
            ++out.damage_steps;
          }
        }
        if (formats) {
          // A legacy at-least-once commit writes .checkpoint, kv.position and counts.position:
          // `at` 1 damages the second of them, a .position file (which the steps above, after
          // their restarts, seldom find).
          step({{"op", "append"}, {"records", records({{"f", "6"}})}});
          step({{"op", "process"}, {"max_records", 1}});
          step({{"op", "commit"}});
          step({{"op", "damageStore"}, {"damage", "zero"}, {"at", 1}});
          ++out.damage_steps;
        }
      }
      step({{"op", "append"}, {"records", records({{"d", "4"}})}});
      step({{"op", "process"}, {"max_records", 1}});
      Json read = fault("faultyRead");  // The reads' points fire here; the task goes on (F8).
      read.erase("tear_seed");          // No crash follows it: it takes none.
      step(read);
      // A close's marker write (F8, L1): fires in a current-format configuration here.
      const Json close = {{"op", "faultyClose"}, {"point", point}, {"n", 1}, {"error", "EIO"}};
      if (point == kFailStoreCloseMarker) step(close);
      step(fault("faultyRestore"));
      if (formats) {  // Started legacy: an upgrade, then a downgrade, a start in legacy.
        Json upgrade = fault("faultyUpgrade");
        upgrade["format"] = "current";
        step(upgrade);
        step({{"op", "process"}, {"max_records", 1}});
        if (point == kFailStoreCloseMarker) step(close);  // Current now: it fires.
        step({{"op", "restartAs"}, {"clean", false}, {"format", "legacy"}, {"tear_seed", 0}});
        step(fault("faultyRestore"));
      }
      ++out.runs;
      kit::Trace<Vocabulary> trace;
      TraceReplay replay;
      Status s = kit::ParseTrace(text, config + ".jsonl", &trace);
      if (s.ok()) s = Replay(trace, &replay);
      if (!s.ok()) {
        out.failures.push_back(config + ", " + point + ": " + s.ToString());
      } else if (replay.diverged) {
        out.failures.push_back(config + ", " + point + ": " + replay.message);
      }
    }
  }
  return out;
}

}  // namespace statecheck::properties::task
