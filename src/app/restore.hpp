// Putting a drive's settings back after the run that changed them is gone: `drivescope restore`
// reads the state files that src/control's RestoreStack writes (control/restore.hpp), opens each
// device again and sets every feature back. The control area's names are used here as app's
// own (app::RestoreStack, app::SignalGuard, ...). See docs/features.md.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "app/features.hpp"
#include "app/identify.hpp"
#include "control/restore.hpp"
#include "control/signals.hpp"
#include "drivescope/expected.hpp"

namespace ds::app {

using control::check_no_leftover;
using control::kStateFormat;
using control::read_state_file;
using control::restore_command_line;
using control::RestoreStack;
using control::RestoreState;
using control::SavedSetting;
using control::state_dir;
using control::state_file_candidates;
using control::state_file_name;
using control::state_from_json;
using control::state_to_json;
using control::write_state_file;

// control::SignalGuard whose second signal ends the process with kExitInterrupted.
class SignalGuard : public control::SignalGuard {
 public:
  explicit SignalGuard(std::function<void(int)> forced = {})
      : control::SignalGuard(std::move(forced), kExitInterrupted) {}
};

// Restore what one state file records: opens the device it names, puts each feature back, and
// removes the file when everything is back (or marks it "restored" when keep_file). Simulated
// targets only get their file removed: their state lived in the process that wrote it.
struct RestoreFileResult {
  std::filesystem::path file;
  RestoreState state;
  bool ok = false;
  std::vector<std::string> messages;
};
RestoreFileResult restore_state_file(const std::filesystem::path& file, bool keep_file = false,
                                     const std::filesystem::path& root = "/");

// `drivescope restore [TARGET]`: every state file in `dir` (or only TARGET's), skipping those of a
// process that is still running.
Expected<Report> restore_command(const std::string& target, const std::filesystem::path& dir,
                                 const std::filesystem::path& root = "/");


}  // namespace ds::app
