#include "app/restore.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>

#include "probe/sysfs.hpp"

namespace ds::app {

namespace fs = std::filesystem;
using control::process_alive;

RestoreFileResult restore_state_file(const fs::path& file, bool keep_file, const fs::path& root) {
  RestoreFileResult res;
  res.file = file;
  auto s = read_state_file(file);
  if (!s) {
    res.messages.push_back(s.error().message);
    return res;
  }
  res.state = *s;
  std::error_code ec;
  if (s->status == "restored") {
    res.ok = true;
    res.messages.push_back(fmt::format("{}: already restored by process {}", s->target, s->pid));
    if (!keep_file) fs::remove(file, ec);
    return res;
  }
  if (s->kind == "sim") {
    res.ok = true;
    res.messages.push_back(fmt::format(
        "{}: a simulated drive; its settings lived in process {} and ended with it — nothing to put back",
        s->target, s->pid));
    if (!keep_file) fs::remove(file, ec);
    return res;
  }
  const std::string path = !s->device_path.empty() ? s->device_path
                           : !s->block_name.empty() ? "/dev/" + s->block_name
                                                    : s->target;
  auto t = open_target(path, {.root = root.string()});
  if (!t) {
    res.messages.push_back(fmt::format("{}: cannot open {}: {}", s->target, path, t.error().message));
    return res;
  }
  const std::string block = !s->block_name.empty() ? s->block_name : t->block_name;
  FeatureControl fc(t->device.get(), block, root);
  // The device now holds the changed values and the file the originals: set each one back
  // (not through a RestoreStack, which would record the changed values as originals).
  for (const auto& st : s->settings) {
    auto r = fc.set(st.feature, st.original);
    SavedSetting out = st;
    if (!r) {
      out.status = "failed";
      out.message = r.error().message;
    } else {
      out.status = r->verification == Verification::verified       ? "restored"
                   : r->verification == Verification::not_reported ? "unverified"
                                                                   : "failed";
      out.message = r->message;
    }
    res.messages.push_back(fmt::format("{}: restore {} to {}: {}", s->target, to_string(st.feature),
                                       describe_value(st.feature, st.original), out.message));
    res.state.settings[static_cast<std::size_t>(&st - s->settings.data())] = out;
  }
  res.ok = true;
  for (const auto& st : res.state.settings) res.ok = res.ok && st.status != "failed";
  res.state.status = res.ok ? "restored" : "failed";
  if (res.ok && !keep_file) fs::remove(file, ec);
  else if (auto w = write_state_file(file, res.state); !w) res.messages.push_back(w.error().message);
  return res;
}

Expected<Report> restore_command(const std::string& target, const fs::path& dir, const fs::path& root) {
  Report rep;
  rep.json["drivescope"] = {{"version", version()}};
  rep.json["restore"] = {{"state_dir", dir.string()}, {"files", nlohmann::json::array()}};
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("state-", 0) == 0 && n.size() > 11 && n.substr(n.size() - 5) == ".json") files.push_back(e.path());
  }
  if (ec) return make_error(fmt::format("cannot list {}: {}", dir.string(), ec.message()));
  std::sort(files.begin(), files.end());
  std::string want_block;
  if (!target.empty() && target.rfind("sim:", 0) != 0) {
    auto b = sysfs::resolve_disk_name(target, root);
    if (b) want_block = *b;
  }
  int handled = 0;
  bool all_ok = true;
  for (const auto& f : files) {
    auto s = read_state_file(f);
    if (!s) {
      rep.warnings.push_back(s.error().message);
      all_ok = false;
      continue;
    }
    if (!target.empty() && s->target != target && s->device_path != target &&
        (want_block.empty() || s->block_name != want_block))
      continue;
    ++handled;
    nlohmann::json fj{{"file", f.string()}, {"target", s->target}, {"pid", s->pid}};
    if (s->status == "active" && s->pid != static_cast<long>(::getpid()) && process_alive(s->pid)) {
      fj["result"] = "skipped";
      fj["message"] = fmt::format("process {} is still running and will restore its own changes", s->pid);
      rep.text += fmt::format("{}: skipped: {}\n", s->target, fj["message"].get<std::string>());
      rep.json["restore"]["files"].push_back(fj);
      continue;
    }
    auto r = restore_state_file(f, false, root);
    fj["result"] = r.ok ? "restored" : "failed";
    fj["messages"] = r.messages;
    fj["settings"] = state_to_json(r.state)["settings"];
    for (const auto& m : r.messages) rep.text += m + "\n";
    all_ok = all_ok && r.ok;
    rep.json["restore"]["files"].push_back(fj);
  }
  if (handled == 0)
    rep.text += target.empty() ? fmt::format("nothing to restore (no state files in {})\n", dir.string())
                               : fmt::format("nothing to restore for {} (no state file in {})\n", target, dir.string());
  rep.json["restore"]["ok"] = all_ok;
  if (!all_ok) rep.exit_code = kExitFailure;
  return rep;
}

}  // namespace ds::app
