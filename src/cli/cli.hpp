// Shared pieces of the command line. Each subcommand lives in its own cmd_*.cpp and registers
// itself with add_*(); main.cpp runs the one that was parsed. Parsing and printing only.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

#include "app/identify.hpp"

namespace ds::cli {

// A parsed subcommand's action; returns the process exit code.
using Action = std::function<int()>;

// Prints a Report (JSON or text) or an error; returns the exit code.
int emit(const Expected<app::Report>& r, bool json);

// --budget of every command: drive seconds, finite, from kMinBudgetS to kMaxBudgetS. A budget
// of 0, a negative one or NaN used to fall back to the default silently, and 1e12 or inf
// overflowed the nanosecond clocks so that every test did nothing and exited 0.
inline constexpr double kMinBudgetS = 0.01;
inline constexpr double kMaxBudgetS = 7 * 24 * 3600.0;
CLI::Validator budget_validator();
// A number from min to max (NaN, inf and trailing text refused; CLI::Range lets NaN through).
CLI::Validator finite_range(double min, double max, const std::string& what);

// What a second SIGINT/SIGTERM does in a command that changes a setting (ab, ncq): restore from
// the state file named in *forced_file (once it is known; empty: nothing changed yet) at once,
// say so, and let the guard end the process.
std::function<void(int)> restore_at_once(const std::string* forced_file);

Action add_identify(CLI::App& app);
Action add_list(CLI::App& app);
Action add_bench(CLI::App& app);
Action add_features(CLI::App& app);  // aam, apm, write-cache, read-ahead
Action add_ab(CLI::App& app);
Action add_restore(CLI::App& app);
Action add_ncq(CLI::App& app);  // the NCQ/TCQ claimed / enabled / effective verdict
Action add_report(CLI::App& app);
Action add_compare(CLI::App& app);
Action add_sim(CLI::App& app);  // sim list / sim show: the simulator's presets
Action add_replay(CLI::App& app);  // a block trace with its timing, DiskSim's demerit
Action add_serve(CLI::App& app);   // the simulated drive as a block device in real time (nbdkit)

}  // namespace ds::cli
