// What the CLI adds around a command's result: the smartctl-style envelope of every JSON document
// (report/envelope.hpp), passed through here because the CLI sees the other areas only through app.
#pragma once
#include <nlohmann/json.hpp>

#include "report/envelope.hpp"

namespace ds::app {

using report::Invocation;
using report::Message;

inline void add_envelope(nlohmann::json& doc, const Invocation& inv) { report::add_envelope(doc, inv); }

}  // namespace ds::app
