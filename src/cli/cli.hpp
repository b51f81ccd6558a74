// Shared pieces of the command line. Each subcommand lives in its own cmd_*.cpp and registers
// itself with add_*(); main.cpp runs the one that was parsed. Parsing and printing only.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "app/identify.hpp"
#include "tests/common.hpp"

namespace ds::cli {

// A parsed subcommand's action; returns the process exit code.
using Action = std::function<int()>;

// Prints a Report (JSON or text) or an error; returns the exit code. A JSON document gets the
// envelope of report/envelope.hpp (json_format_version, the drivescope block with the argv given
// to remember_argv, its exit status and messages) and is printed pretty, or on one line after
// --json=c.
int emit(const Expected<app::Report>& r, bool json);
void remember_argv(int argc, char** argv);

// A usage error (exit 2) found before any command ran (CLI11's parse, an unknown command): with
// `--json` or `--json=c` anywhere on the command line the error is also a document on stdout, as
// a failed command's, so a script reading stdout never gets nothing. Returns kExitUsage.
int usage_error_document(const std::string& message);
// A command's own usage check that failed: "drivescope COMMAND: MESSAGE" on stderr, the document
// as above; returns kExitUsage.
int refuse_usage(const std::string& command, const std::string& message);

// The --json flag of every command: `--json` (pretty) or `--json=c` (one compact line per
// document, as smartctl's --json=c). Sets `json`; the style is the process's.
CLI::Option* add_json_flag(CLI::App* c, bool& json, const std::string& help = "one JSON document on stdout");
void set_json_compact(bool compact);

// --prom FILE (identify, bench): emit() as usual, then the document's metrics written atomically
// for node_exporter's textfile collector (app/prom_file.hpp). A file that cannot be written is an
// error (exit 1 unless the run already failed otherwise); a failed run writes no file.
CLI::Option* add_prom_option(CLI::App* c, std::string& path);
int emit_with_prom(const Expected<app::Report>& r, bool json, const std::string& prom_path,
                   const std::string& command);

// --version on the top level (text); version_command answers `drivescope --version [--json[=c]]`
// before the ordinary parse (the top level has no --json of its own): its exit code, or -1 when
// the command line is something else.
void add_version_flag(CLI::App& app);
int version_command(int argc, char** argv);

// --budget of every command: drive seconds, finite, from kMinBudgetS to kMaxBudgetS. A budget
// of 0, a negative one or NaN used to fall back to the default silently, and 1e12 or inf
// overflowed the nanosecond clocks so that every test did nothing and exited 0.
inline constexpr double kMinBudgetS = 0.01;
inline constexpr double kMaxBudgetS = 7 * 24 * 3600.0;
CLI::Validator budget_validator();
// --seed (a transform: it rewrites the text): a decimal whole number that fits 64 bits. CLI11
// alone takes "-1" as 2^64 - 1 (strtoull) and "010" as 8.
CLI::Validator seed_validator();
// A number from min to max (NaN, inf and trailing text refused; CLI::Range lets NaN through).
CLI::Validator finite_range(double min, double max, const std::string& what);

// What a second SIGINT/SIGTERM does in a command that changes a setting (ab, ncq): restore from
// the state file named in *forced_file (once it is known; empty: nothing changed yet) at once,
// say so, and let the guard end the process.
std::function<void(int)> restore_at_once(const std::string* forced_file);

// -d TYPE and --trace, on every command that opens a target (app::DeviceChoice).
struct DeviceFlags {
  std::string type = "auto";
  bool trace = false;
};
void add_device_options(CLI::App* c, DeviceFlags& f);
app::DeviceChoice device_choice(const DeviceFlags& f);
// One command as --trace shows it: "trace #N CDB .. [NAME] in 512 bytes: good in 0.012 ms", and
// a second line with the sense bytes when there are any.
std::string format_trace(const app::CommandTrace& t);

// --progress auto|json (bench, scan, ab), and the progress function bench and scan hand to the
// measurement: the terminal line (auto, not --quiet, stderr a terminal), JSON lines (json,
// anywhere), or none. end_progress clears the terminal line.
CLI::Option* add_progress_option(CLI::App* c, std::string& mode);
measure::ProgressFn progress_printer(const std::string& mode, bool quiet, std::string command, int test_count,
                                     double budget_s, nlohmann::json extra = nlohmann::json::object());
void end_progress(const std::string& mode, const measure::ProgressFn& p);

// --csv[=TABLE] (identify, bench, ncq, list, scan, ab, compare): emit() writes the document's
// tables as CSV instead of the text (csv_out.cpp says what a table is). The selection is the
// process's, like the JSON style.
struct CsvTable {
  std::string name;  // dotted path in the JSON document: tests.transfer.zones
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
CLI::Option* add_csv_flag(CLI::App* c);
bool csv_requested();
std::vector<CsvTable> csv_tables(const nlohmann::json& doc);
std::string csv_field(std::string_view s);  // quoted when it holds a comma, a quote or a line break
std::string to_csv(const CsvTable& t);
// The tables of doc on stdout as --csv asked; kExitUsage when --csv=NAME names no table of it.
int print_csv(const nlohmann::json& doc);

Action add_identify(CLI::App& app);
Action add_list(CLI::App& app);
Action add_scan(CLI::App& app);  // every drive: identity, SMART health, standby respected, --bench
Action add_bench(CLI::App& app);
Action add_features(CLI::App& app);  // aam, apm, write-cache, read-ahead
Action add_ab(CLI::App& app);
Action add_restore(CLI::App& app);
Action add_ncq(CLI::App& app);  // the NCQ/TCQ claimed / enabled / effective verdict
Action add_smr(CLI::App& app);  // shingled or not: what the drive reports, and (--write) a timing probe
Action add_report(CLI::App& app);
Action add_compare(CLI::App& app);
Action add_sim(CLI::App& app);  // sim list / sim show: the simulator's presets
Action add_replay(CLI::App& app);  // a block trace with its timing, DiskSim's demerit
Action add_model(CLI::App& app);   // a drive's twin: measured, written as a simulator model
Action add_decode(CLI::App& app);  // captured pages (IDENTIFY, logs, INQUIRY, VPD, sense) from a file
Action add_serve(CLI::App& app);   // the simulated drive as a block device in real time (nbdkit)

}  // namespace ds::cli
