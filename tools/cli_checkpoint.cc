// `statecheck checkpoint read`, `write` and `delete`: legacy offset checkpoint files
// (tools/checkpoint_file.h).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "statecheck/offset_checkpoint.h"
#include "statecheck/status.h"
#include "tools/checkpoint_file.h"
#include "tools/cli.h"

namespace statecheck::cli {
namespace {

// ---------------------------------------------------------------------------------------------
// checkpoint read

// The entries of an offset checkpoint file on stdout and its warnings on stderr (in the JSON
// view, both in the JSON), or its error on stderr.
int CheckpointRead(const std::string& path, bool json) {
  tools::CheckpointFile file;
  const Status s = tools::ReadCheckpointFile(path, &file);
  if (!s.ok()) {
    std::cerr << "statecheck: " << s << "\n";
    return s.code() == Status::Code::kNotFound ? kExitUsage : kExitFailed;
  }
  if (json) {
    std::cout << tools::CheckpointFileJson(file).dump(2) << "\n";
    return kExitOk;
  }
  std::cout << tools::FormatCheckpointEntries(file.entries);
  for (const std::string& w : file.warnings) std::cerr << "statecheck: warning: " << w << "\n";
  return kExitOk;
}

// ---------------------------------------------------------------------------------------------
// checkpoint write, checkpoint delete

// Writes `entries` (none: deletes the file) with the engine's legacy writer, and says what it did.
int CheckpointWrite(const std::string& path, const std::vector<std::string>& entries) {
  CheckpointOffsets offsets;
  for (const std::string& e : entries) {
    if (const Status s = tools::ParseCheckpointEntry(e, &offsets); !s.ok()) {
      return UsageError(s.message());
    }
  }
  const bool existed = std::filesystem::exists(path);
  const Status s = tools::WriteCheckpointFile(path, offsets);
  if (!s.ok()) {
    std::cerr << "statecheck: " << s << "\n";
    return s.code() == Status::Code::kIOError ? kExitFailed : kExitUsage;
  }
  if (!offsets.empty()) {
    std::cout << "wrote " << offsets.size() << " entries to " << path << "\n";
  } else {
    std::cout << (existed ? "deleted " + path : path + ": no such file, nothing to delete")
              << " (no entries: Kafka's OffsetCheckpoint deletes the file)\n";
  }
  return kExitOk;
}

}  // namespace

std::vector<Subcommand> AddCheckpoint(CLI::App& app) {
  auto* checkpoint = app.add_subcommand(
      "checkpoint", "Legacy offset checkpoint files (.checkpoint, <store>.position)");
  checkpoint->require_subcommand(1);
  struct Flags {
    std::string file;
    bool json = false;
    std::vector<std::string> entries;
  };
  auto f = std::make_shared<Flags>();
  auto* read = checkpoint->add_subcommand(
      "read", "Print a checkpoint file's entries; exit 1 if it is damaged, 2 if missing");
  read->add_option("file", f->file, "The checkpoint file")->required();
  read->add_flag("--json", f->json, "JSON instead of text");
  auto* write = checkpoint->add_subcommand(
      "write",
      "Write a checkpoint file as the engine's legacy writer does (Kafka's OffsetCheckpoint: no "
      "entries deletes it)");
  write->add_option("file", f->file, "The checkpoint file")->required();
  write->add_option("entries", f->entries,
                    "TOPIC:PARTITION=OFFSET, e.g. app-kv-changelog-0_0:0=17 (-4: unknown)");
  auto* remove =
      checkpoint->add_subcommand("delete", "Delete a checkpoint file (and fsync its directory)");
  remove->add_option("file", f->file, "The checkpoint file")->required();
  return {{read, [f] { return CheckpointRead(f->file, f->json); }},
          {write, [f] { return CheckpointWrite(f->file, f->entries); }},
          {remove, [f] { return CheckpointWrite(f->file, {}); }}};
}

}  // namespace statecheck::cli
