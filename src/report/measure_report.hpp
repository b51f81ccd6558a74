// Writers of the measurement results (src/tests): the JSON objects that go under a document's
// "tests" key and the text a command prints. The measurement library returns values; what a
// value is called, how it is rounded and how a withheld figure is said live here.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/actuators.hpp"
#include "tests/bench.hpp"
#include "tests/ncq_verdict.hpp"
#include "tests/patterns.hpp"
#include "tests/queue.hpp"
#include "tests/rmw.hpp"
#include "tests/smr.hpp"
#include "tests/withheld.hpp"

namespace ds::report {

nlohmann::json bench_to_json(const measure::BenchResult& r);  // the object that goes under "tests"
std::string bench_to_text(const measure::BenchResult& r);

nlohmann::json queue_to_json(const measure::QueueResult& r);
std::string queue_to_text(const measure::QueueResult& r);
// The queue verdict in a few words: "yes (confidence 99.9 %)", "no: parallel service", ...
std::string reorder_verdict_text(const measure::ReorderVerdict& v);
// What the verdict rests on, one sentence with the numbers (why it is null, where it is).
std::string reorder_evidence_text(const measure::ReorderVerdict& v);
// The depth-1 against deepest-depth comparison (measure::reorder_comparison's numbers) in words.
std::string reorder_comparison_text(const std::vector<std::pair<const char*, double>>& numbers);

// `drivescope ncq`'s verdict (tests/ncq_verdict.hpp) in one summary ("claimed, enabled, not
// effective") and one plain sentence ("NCQ claimed (depth 32) and enabled by the host (depth
// 31), but the drive serves reads in arrival order").
std::string ncq_summary(const measure::NcqClaim& c, const measure::NcqHost& h,
                        const std::optional<measure::QueueResult>& q);
std::string ncq_sentence(const measure::NcqClaim& c, const measure::NcqHost& h,
                         const std::optional<measure::QueueResult>& q);

nlohmann::json patterns_to_json(const measure::PatternsResult& r);  // goes under tests.patterns
std::string patterns_to_text(const measure::PatternsResult& r);

nlohmann::json rmw_to_json(const measure::RmwResult& r);
std::string rmw_to_text(const measure::RmwResult& r);

nlohmann::json actuators_to_json(const measure::ActuatorsResult& r);
std::string actuators_to_text(const measure::ActuatorsResult& r);

nlohmann::json smr_probe_to_json(const measure::SmrProbeResult& r);

// Why a figure is null, in words (report/withheld_text.cpp).
std::string withheld_text(const measure::Withheld& w);
// A test's `withheld` array: figure, reason code, numbers.
nlohmann::json withheld_json(const std::vector<measure::Withheld>& w);
// A test's notes as printed and under `notes`: the withheld figures' reasons first, in words.
std::vector<std::string> notes_with_withheld(const std::vector<std::string>& notes,
                                             const std::vector<measure::Withheld>& w);

}  // namespace ds::report
