#include <charconv>
#include <cstdint>
#include <cstdio>

#include <fmt/format.h>
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "app/restore.hpp"
#include "app/output.hpp"

namespace ds::cli {

namespace {

std::vector<std::string>& argv_words() {
  static std::vector<std::string> words;
  return words;
}

bool& compact_json() {
  static bool compact = false;
  return compact;
}

// One document, pretty or on one line. Strings from a drive (a model name, a serial) need not be
// valid UTF-8: such bytes become U+FFFD instead of an exception (nlohmann's default).
void print_json(const nlohmann::json& doc) {
  const int indent = compact_json() ? -1 : 2;
  std::cout << doc.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) << "\n" << std::flush;
}

}  // namespace

void set_json_compact(bool compact) { compact_json() = compact; }

void remember_argv(int argc, char** argv) {
  argv_words().assign(argv, argv + argc);
}

CLI::Option* add_json_flag(CLI::App* c, bool& json, const std::string& help) {
  // A flag, not an option with an optional value: `--json c` would take the next word (the
  // target) as the value; a flag's value can only be given as `--json=c`.
  auto style = std::make_shared<std::string>();
  auto* opt = c->add_flag("--json", *style, help + " (--json=c: one compact line)");
  opt->option_text("[=c]");
  opt->check(CLI::Validator(
      [](std::string& v) -> std::string {
        if (v == "true" || v == "c") return {};
        return "--json takes no value (pretty) or =c (one compact line per document), not " + v;
      },
      "", "json style"));
  opt->each([&json, style](const std::string& v) {
    json = true;
    compact_json() = v == "c";
  });
  return opt;
}

int usage_error_document(const std::string& message) {
  // The words as given: CLI11 did not get as far as the command's --json flag.
  bool json = false;
  for (std::size_t i = 1; i < argv_words().size(); ++i) {
    const std::string& w = argv_words()[i];
    if (w == "--") break;
    if (w == "--json" || w == "--json=c") {
      json = true;
      compact_json() = w == "--json=c";
    }
  }
  if (!json) return app::kExitUsage;
  app::Invocation inv{.version = app::version(), .argv = argv_words(), .exit_status = app::kExitUsage};
  inv.messages.push_back({message, "error"});
  nlohmann::json err{{"error", message}};
  app::add_envelope(err, inv);
  print_json(err);
  return app::kExitUsage;
}

int refuse_usage(const std::string& command, const std::string& message) {
  std::fprintf(stderr, "drivescope %s: %s\n", command.c_str(), message.c_str());
  return usage_error_document(message);
}

int emit(const Expected<app::Report>& r, bool json) {
  app::Invocation inv{.version = app::version(), .argv = argv_words()};
  if (!r) {
    inv.exit_status = r.error().code == app::kUsageErrorCode ? app::kExitUsage : app::kExitFailure;
    if (json) {
      nlohmann::json err{{"error", r.error().message}};
      inv.messages.push_back({r.error().message, "error"});
      app::add_envelope(err, inv);
      print_json(err);
    }
    std::fprintf(stderr, "drivescope: %s\n", r.error().message.c_str());
    return inv.exit_status;
  }
  int rc = r->exit_code;
  if (json) {
    nlohmann::json doc = r->json;
    inv.exit_status = r->exit_code;
    for (const auto& w : r->warnings) inv.messages.push_back({w, "warning"});
    app::add_envelope(doc, inv);
    print_json(doc);
  } else if (csv_requested()) {
    if (int c = print_csv(r->json); c != app::kExitOk && rc == app::kExitOk) rc = c;
  } else {
    std::cout << r->text << std::flush;
  }
  // Warnings go to stderr in both modes: the JSON carries them too, but a script that only keeps
  // the exit status must still see why it was not 0.
  for (const auto& w : r->warnings) std::fprintf(stderr, "drivescope: warning: %s\n", w.c_str());
  return rc;
}

CLI::Validator finite_range(double min, double max, const std::string& what) {
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double v = 0;
        const char* end = text.c_str() + text.size();
        auto [p, ec] = std::from_chars(text.c_str(), end, v);
        // !(v >= min) also refuses NaN, which compares false with everything.
        if (ec != std::errc() || p != end || !(v >= min) || !(v <= max))
          return fmt::format("{} is not a valid {}: give a number from {} to {}", text, what, min, max);
        return {};
      },
      fmt::format("NUMBER in [{}, {}]", min, max), what);
}

CLI::Validator seed_validator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        std::uint64_t v = 0;
        const char* end = text.c_str() + text.size();
        auto [p, ec] = std::from_chars(text.c_str(), end, v);
        if (text.empty() || ec != std::errc() || p != end)
          return fmt::format("{} is not a seed: give a whole number from 0 to {}", text, std::uint64_t{UINT64_MAX});
        // Decimal for CLI11 too, which would read "010" as octal (strtoull with base 0).
        text = std::to_string(v);
        return {};
      },
      "", "seed");
}

CLI::Validator budget_validator() {
  return finite_range(kMinBudgetS, kMaxBudgetS, "budget (seconds; at most one week)");
}

std::function<void(int)> restore_at_once(const std::string* forced_file) {
  return [forced_file](int) {
    if (!forced_file->empty()) {
      auto r = app::restore_state_file(*forced_file);
      for (const auto& m : r.messages) std::fprintf(stderr, "drivescope: %s\n", m.c_str());
    }
    std::fprintf(stderr, "drivescope: second signal: stopped at once\n");
  };
}

}  // namespace ds::cli
