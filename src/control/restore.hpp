// Putting a drive's settings back. Every feature drivescope changes (AAM, APM, write cache,
// look-ahead, I/O scheduler, host queue depth) goes through a RestoreStack, which reads and
// records the original value BEFORE the change, writes it to a state file (atomic write + fsync),
// and puts everything back when it is destroyed or asked to: normal end, error return, exception
// unwinding. SIGINT/SIGTERM are turned into a flag by SignalGuard so the run loops unwind
// normally; a second signal restores from the state file on a fresh handle and exits at once
// (control/signals.hpp). After a SIGKILL or a crash, `drivescope restore` reads the state file
// (app/restore.hpp: restore_state_file, restore_command). See docs/features.md.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/features.hpp"
#include "drivescope/expected.hpp"

namespace ds::control {

inline constexpr const char* kStateFormat = "drivescope-restore-state/1";

struct SavedSetting {
  FeatureId feature = FeatureId::aam;
  FeatureValue original;
  std::string status = "pending";  // pending | restored | unverified | failed
  std::string message;
};

struct RestoreState {
  std::string target;       // the spec as typed (sim:NAME, /dev/sdX)
  std::string kind;         // target.kind
  std::string device_path;  // where commands go (/dev/sdX, /dev/sgN); empty for sim
  std::string block_name;   // sysfs name (sda); empty for sim
  long pid = 0;             // the process that made the changes
  std::string status = "active";  // active | restored | failed
  std::vector<SavedSetting> settings;  // in the order they were first changed
};

nlohmann::json state_to_json(const RestoreState& s);
Expected<RestoreState> state_from_json(const nlohmann::json& j);
Expected<RestoreState> read_state_file(const std::filesystem::path& p);
// Write to a temporary file in the same directory, fsync it, rename over `p`, fsync the directory:
// a crash leaves either the old or the new file, never half of one.
Expected<bool> write_state_file(const std::filesystem::path& p, const RestoreState& s);

// The state directory: $DRIVESCOPE_STATE_DIR, else /run/drivescope when it can be created,
// else $XDG_RUNTIME_DIR/drivescope, else /tmp/drivescope-UID. Created (mode 0700) if missing.
Expected<std::filesystem::path> state_dir();
// state-<block name or sanitised spec>.json
std::string state_file_name(const std::string& target_spec, const std::string& block_name);
// The command that puts back what the state file `file` records: `drivescope restore TARGET
// --state-dir DIR` (the directory always named: a file outside the default one is otherwise not
// found). Quoted for a POSIX shell when needed.
std::string restore_command_line(const std::string& target, const std::filesystem::path& file);
// A process of that id is running (or exists and is not ours to signal).
bool process_alive(long pid);

// Where a run that changed this drive's settings may have left its state file: the file's name in
// $DRIVESCOPE_STATE_DIR when it is set, else in each default state directory (state_dir's
// candidates) that exists. Nothing is created: a read-only command only looks.
std::vector<std::filesystem::path> state_file_candidates(const std::string& target_spec, const std::string& block_name);
// An error, naming the `drivescope restore` command to run, when `file` records settings an
// earlier run changed and did not put back (or another live process is changing them); true when
// there is no such file or it records a finished run.
Expected<bool> check_no_leftover(const std::filesystem::path& file);

class RestoreStack {
 public:
  // `file`: where to keep the state (nullopt: in-process only, e.g. a simulated drive with no
  // state dir asked for). `keep_file`: after a successful restore, keep the file marked
  // "restored" (tests and audits) instead of removing it.
  RestoreStack(FeatureControl& fc, RestoreState header, std::optional<std::filesystem::path> file,
               bool keep_file = false);
  ~RestoreStack();  // restore_all() if anything is still changed; never throws
  RestoreStack(const RestoreStack&) = delete;
  RestoreStack& operator=(const RestoreStack&) = delete;

  // Refuse to start when an earlier run left an active state file for this device (its changes
  // would be recorded as "original"), or another live process holds it.
  Expected<bool> check_no_leftover() const;
  // Record the current value of `f` (first time only; an unreadable value is an error and nothing
  // is changed), write the state file, then change it and read it back.
  Expected<SetResult> change(FeatureId f, const FeatureValue& v);
  // Put every recorded feature back (last changed first). Idempotent. Returns the messages.
  std::vector<std::string> restore_all();
  bool all_restored() const;
  const RestoreState& state() const { return state_; }
  const std::optional<std::filesystem::path>& file() const { return file_; }

 private:
  FeatureControl& fc_;
  RestoreState state_;
  std::optional<std::filesystem::path> file_;
  bool keep_file_;
  bool done_ = false;
};

}  // namespace ds::control
