// Side-by-side tables of several result documents (drives, or the two arms of an A/B run): one
// table per test, one column per drive, and the best and worst figure of each row marked, as the
// seed reviews colour them (blue best, red worst: methods.md, IOMeter patterns). Which way is
// better is known per figure: rates and IOPS higher, times lower; descriptive figures (rpm,
// zone count, platter estimates) are not ranked.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace ds::report {

enum class Better { higher, lower, none };

// From a JSON key's unit suffix (product.md: _ms lower; _mb_s, iops, rating higher).
Better better_for_key(std::string_view key);

struct CompareRow {
  std::string label;                         // "read mean", "512 B read", "depth 4 IOPS"
  std::string unit;                          // "ms", "MB/s", "IOPS", ""
  Better better = Better::none;
  std::vector<std::optional<double>> values; // one per drive; nullopt: not measured
  int best = -1, worst = -1;                 // column indexes, -1 when not ranked
  bool summary = false;                      // "average over loads", workstation rating
  // The half-width of each value's 95 % interval, as its document carries it; nullopt where the
  // figure has none (a median, a count, a mean over the span). Empty: none at all.
  std::vector<std::optional<double>> half_widths;
};

struct CompareTable {
  std::string test;   // "access", "transfer", ..., "ab"
  std::string title;
  std::vector<CompareRow> rows;
};

struct Comparison {
  std::vector<std::string> drives;  // column heads
  std::vector<CompareTable> tables;
};

// Marks best and worst of a row where the difference is beyond the noise: the best only when
// its 95 % interval lies clear of every other value's interval on the better side, the worst
// likewise on the worse side. A row whose values do not all carry an interval, with fewer than
// two values, or with Better::none stays unmarked; ties mark the first.
void mark_best_worst(CompareRow& row);
// The extremes alone (two or more values, not all equal), for rows whose difference was judged
// already (an A/B figure whose difference's interval excludes 0).
void mark_extremes(CompareRow& row);

// A readable column name for a document: identify.model, else target.name, else the fallback.
std::string drive_name(const nlohmann::json& doc, const std::string& fallback);

// Tables of several documents (each a bench or ab --json document). A single A/B document is
// compared arm against arm (columns "A" and "B").
Comparison compare_documents(const std::vector<nlohmann::json>& docs, const std::vector<std::string>& names);

struct TextStyle {
  bool colour = false;  // ANSI: best bold blue, worst red; otherwise markers '*' best, '!' worst
};
std::string comparison_to_text(const Comparison& c, const TextStyle& style);
nlohmann::json comparison_to_json(const Comparison& c);
// HTML tables (class "best" / "worst" on cells; the page's style colours them blue / red).
std::string comparison_to_html(const Comparison& c);

// Formats a figure for tables: precision by magnitude.
std::string format_value(double v);

// HTML-escapes text.
std::string html_escape(std::string_view s);

}  // namespace ds::report
