// Withheld figures (tests/withheld.hpp) as the report layer writes them: every reason has its own
// sentence quoting its numbers, the JSON carries the code and the numbers, and the schema lists
// exactly the reasons there are.
#include <doctest/doctest.h>

#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "report/measure_report.hpp"
#include "tests/result_keys.hpp"
#include "tests/withheld.hpp"

using ds::measure::Withheld;
using ds::measure::WithheldReason;

TEST_CASE("withheld: every reason has a sentence of its own, never its code") {
  std::set<std::string> sentences;
  for (WithheldReason r : ds::measure::all_withheld_reasons()) {
    const std::string name = ds::measure::withheld_reason_name(r);
    INFO(name);
    const std::string text = ds::report::withheld_text({"x", r, {}});
    CHECK(text != name);
    CHECK(text.size() > 20);
    CHECK(sentences.insert(text).second);
  }
}

TEST_CASE("withheld: the sentence quotes the numbers, the JSON keeps them with the code") {
  const Withheld w{ds::measure::key::transfer::surfaces_estimate, WithheldReason::surfaces_one_place,
                   {{"votes", 1}, {"told", 4}, {"period", 8}}};
  const std::string text = ds::report::withheld_text(w);
  CHECK(text.find("(1 of 4 votes)") != std::string::npos);
  CHECK(text.find("period of 8 tracks") != std::string::npos);
  const auto j = ds::report::withheld_json({w, {"burst_mb_s", WithheldReason::burst_unresolved,
                                               {{"largest_kib", 64}, {"rate_mb_s", 151.23456}, {"high_mb_s", 0}}}});
  REQUIRE(j.size() == 2);
  CHECK(j[0]["figure"] == "surfaces_estimate");
  CHECK(j[0]["reason"] == "surfaces_one_place");
  CHECK(j[0]["numbers"]["votes"].is_number_integer());
  CHECK(j[0]["numbers"]["period"] == 8);
  CHECK(j[1]["numbers"]["rate_mb_s"] == doctest::Approx(151.2346));
  // A burst with no upper bound says so instead of printing 0.
  CHECK(ds::report::withheld_text({"burst_mb_s", WithheldReason::burst_unresolved, {{"high_mb_s", 0}}})
            .find("unbounded") != std::string::npos);
  // The notes say the withheld figures first.
  const auto notes = ds::report::notes_with_withheld({"how a figure was found"}, {w});
  REQUIRE(notes.size() == 2);
  CHECK(notes[0] == text);
}

TEST_CASE("withheld: the output schema lists exactly the reasons there are") {
  std::ifstream in(std::string(DS_SOURCE_DIR) + "/docs/schema/drivescope-output.schema.json");
  REQUIRE(in);
  const auto schema = nlohmann::json::parse(in);
  std::set<std::string> listed, known;
  for (const auto& r : schema.at("$defs").at("withheld").at("properties").at("reason").at("enum"))
    listed.insert(r.get<std::string>());
  for (WithheldReason r : ds::measure::all_withheld_reasons()) known.insert(ds::measure::withheld_reason_name(r));
  CHECK(listed == known);
}

TEST_CASE("withheld: docs/methods.md names every reason") {
  std::ifstream in(std::string(DS_SOURCE_DIR) + "/docs/methods.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (WithheldReason r : ds::measure::all_withheld_reasons()) {
    const std::string name = std::string("`") + ds::measure::withheld_reason_name(r) + "`";
    CHECK_MESSAGE(doc.find(name) != std::string::npos, name << " is not in docs/methods.md, \"Withheld figures\"");
  }
}
