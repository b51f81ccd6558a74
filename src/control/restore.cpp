#include "control/restore.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace ds::control {

namespace fs = std::filesystem;

bool process_alive(long pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

namespace {

Expected<bool> ensure_dir(const fs::path& d) {
  std::error_code ec;
  fs::create_directories(d, ec);
  if (ec) return make_error(fmt::format("cannot create state directory {}: {}", d.string(), ec.message()), ec.value());
  if (::access(d.c_str(), W_OK) != 0)
    return make_error(fmt::format("state directory {} is not writable", d.string()), errno);
  return true;
}

}  // namespace

nlohmann::json state_to_json(const RestoreState& s) {
  nlohmann::json j{{"format", kStateFormat},     {"target", s.target}, {"kind", s.kind},
                   {"device_path", s.device_path}, {"block_name", s.block_name},
                   {"pid", s.pid},                {"status", s.status}};
  j["settings"] = nlohmann::json::array();
  for (const auto& st : s.settings)
    j["settings"].push_back({{"feature", std::string(to_string(st.feature))},
                             {"original", value_to_json(st.feature, st.original)},
                             {"status", st.status},
                             {"message", st.message}});
  return j;
}

Expected<RestoreState> state_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("format", "") != kStateFormat)
    return make_error(std::string("not a drivescope state file (format ") + kStateFormat + " expected)");
  RestoreState s;
  auto str = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
  s.target = str("target");
  s.kind = str("kind");
  s.device_path = str("device_path");
  s.block_name = str("block_name");
  s.status = str("status");
  s.pid = j.contains("pid") && j["pid"].is_number_integer() ? j["pid"].get<long>() : 0;
  if (s.target.empty()) return make_error("state file: no target");
  if (!j.contains("settings") || !j["settings"].is_array()) return make_error("state file: no settings list");
  for (const auto& e : j["settings"]) {
    if (!e.is_object() || !e.contains("feature") || !e["feature"].is_string())
      return make_error("state file: a setting without a feature name");
    auto f = parse_feature_id(e["feature"].get<std::string>());
    if (!f) return make_error("state file: unknown feature '" + e["feature"].get<std::string>() + "'");
    if (!e.contains("original")) return make_error("state file: a setting without its original value");
    auto v = value_from_json(*f, e["original"]);
    if (!v) return make_error("state file: " + v.error().message);
    SavedSetting ss{*f, *v, e.value("status", "pending"), e.value("message", "")};
    s.settings.push_back(std::move(ss));
  }
  return s;
}

Expected<RestoreState> read_state_file(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return make_error("cannot read " + p.string(), errno);
  std::stringstream ss;
  ss << in.rdbuf();
  auto j = nlohmann::json::parse(ss.str(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error(p.string() + ": not valid JSON");
  auto s = state_from_json(j);
  if (!s) return make_error(p.string() + ": " + s.error().message);
  return s;
}

Expected<bool> write_state_file(const fs::path& p, const RestoreState& s) {
  const std::string text = state_to_json(s).dump(2) + "\n";
  const fs::path tmp = p.string() + fmt::format(".tmp.{}", ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return make_error(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(errno)), errno);
  std::size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return make_error(fmt::format("cannot write {}: {}", tmp.string(), std::strerror(e)), e);
    }
    off += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return make_error(fmt::format("cannot sync {}: {}", tmp.string(), std::strerror(e)), e);
  }
  if (::rename(tmp.c_str(), p.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    return make_error(fmt::format("cannot rename to {}: {}", p.string(), std::strerror(e)), e);
  }
  // The rename itself must survive a crash too.
  int dfd = ::open(p.parent_path().empty() ? "." : p.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return true;
}

Expected<fs::path> state_dir() {
  if (const char* e = std::getenv("DRIVESCOPE_STATE_DIR"); e && *e) {
    auto ok = ensure_dir(e);
    if (!ok) return ok.error();
    return fs::path(e);
  }
  std::vector<fs::path> candidates{"/run/drivescope"};
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x) candidates.emplace_back(fs::path(x) / "drivescope");
  candidates.emplace_back(fmt::format("/tmp/drivescope-{}", ::getuid()));
  std::string why;
  for (const auto& c : candidates) {
    auto ok = ensure_dir(c);
    if (ok) {
      ::chmod(c.c_str(), 0700);
      return c;
    }
    why += (why.empty() ? "" : "; ") + ok.error().message;
  }
  return make_error("no usable state directory: " + why);
}

std::string state_file_name(const std::string& target_spec, const std::string& block_name) {
  std::string key = block_name.empty() ? target_spec : block_name;
  for (auto& c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
      c = '_';
  return "state-" + key + ".json";
}

// ---- RestoreStack ----------------------------------------------------------------------------

RestoreStack::RestoreStack(FeatureControl& fc, RestoreState header, std::optional<fs::path> file,
                           bool keep_file)
    : fc_(fc), state_(std::move(header)), file_(std::move(file)), keep_file_(keep_file) {
  state_.pid = static_cast<long>(::getpid());
  state_.status = "active";
}

RestoreStack::~RestoreStack() {
  try {
    restore_all();
  } catch (...) {
    // A destructor must not throw; the state file stays for `drivescope restore`.
  }
}

namespace {

std::string shell_quoted(const std::string& s) {
  const bool plain = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789/._-:+=,@%") == std::string::npos;
  if (plain) return s;
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

}  // namespace

std::string restore_command_line(const std::string& target, const fs::path& file) {
  std::string cmd = "drivescope restore";
  if (!target.empty()) cmd += " " + shell_quoted(target);
  const fs::path dir = file.parent_path();
  if (!dir.empty()) cmd += " --state-dir " + shell_quoted(dir.string());
  return cmd;
}

std::vector<fs::path> state_file_candidates(const std::string& target_spec, const std::string& block_name) {
  const std::string name = state_file_name(target_spec, block_name);
  if (const char* e = std::getenv("DRIVESCOPE_STATE_DIR"); e && *e) return {fs::path(e) / name};
  std::vector<fs::path> dirs{"/run/drivescope"};
  if (const char* x = std::getenv("XDG_RUNTIME_DIR"); x && *x) dirs.emplace_back(fs::path(x) / "drivescope");
  dirs.emplace_back(fmt::format("/tmp/drivescope-{}", ::getuid()));
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& d : dirs)
    if (fs::is_directory(d, ec)) out.push_back(d / name);
  return out;
}

Expected<bool> check_no_leftover(const fs::path& file) {
  std::error_code ec;
  if (!fs::exists(file, ec)) return true;
  auto s = read_state_file(file);
  if (!s) return make_error(fmt::format("{} exists but cannot be read ({}); remove it or run `{}`",
                                        file.string(), s.error().message, restore_command_line("", file)));
  if (s->status != "active") return true;  // a finished run kept for inspection
  if (s->pid != static_cast<long>(::getpid()) && process_alive(s->pid))
    return make_error(fmt::format("drivescope process {} is changing this drive's settings (state file {})",
                                  s->pid, file.string()));
  return make_error(fmt::format(
      "an earlier run (pid {}) changed this drive's settings and did not put them back (state file {}); "
      "run `{}` first",
      s->pid, file.string(), restore_command_line(s->target, file)));
}

Expected<bool> RestoreStack::check_no_leftover() const {
  if (!file_) return true;
  return control::check_no_leftover(*file_);
}

Expected<SetResult> RestoreStack::change(FeatureId f, const FeatureValue& v) {
  bool known = false;
  for (const auto& s : state_.settings) known = known || s.feature == f;
  if (!known) {
    auto cur = fc_.read(f);
    if (!cur) return make_error(fmt::format("cannot record the original {} before changing it: {}",
                                            to_string(f), cur.error().message));
    if (!cur->reported || !cur->value)
      return make_error(fmt::format(
          "cannot record the original {} before changing it: the device does not report it{} — "
          "refusing to change what could not be put back",
          to_string(f), cur->note.empty() ? "" : " (" + cur->note + ")"));
    state_.settings.push_back({f, *cur->value, "pending", ""});
    state_.status = "active";
    done_ = false;
    if (file_) {
      auto w = write_state_file(*file_, state_);
      if (!w) {
        state_.settings.pop_back();
        return make_error("not changing anything: " + w.error().message);
      }
    }
  }
  done_ = false;
  for (auto& s : state_.settings)
    if (s.feature == f) s.status = "pending";
  return fc_.set(f, v);
}

std::vector<std::string> RestoreStack::restore_all() {
  std::vector<std::string> msgs;
  if (done_ || state_.settings.empty()) return msgs;
  bool ok = true;
  for (auto it = state_.settings.rbegin(); it != state_.settings.rend(); ++it) {
    auto r = fc_.set(it->feature, it->original);
    if (!r) {
      it->status = "failed";
      it->message = r.error().message;
      ok = false;
    } else {
      it->status = r->verification == Verification::verified       ? "restored"
                   : r->verification == Verification::not_reported ? "unverified"
                                                                   : "failed";
      it->message = r->message;
      ok = ok && r->verification != Verification::mismatch;
    }
    msgs.push_back(fmt::format("restore {} to {}: {}", to_string(it->feature),
                               describe_value(it->feature, it->original), it->message));
  }
  state_.status = ok ? "restored" : "failed";
  done_ = true;
  if (file_) {
    if (ok && !keep_file_) {
      std::error_code ec;
      fs::remove(*file_, ec);
    } else {
      auto w = write_state_file(*file_, state_);
      if (!w) msgs.push_back(w.error().message);
    }
  }
  return msgs;
}

bool RestoreStack::all_restored() const {
  for (const auto& s : state_.settings)
    if (s.status != "restored" && s.status != "unverified") return false;
  return true;
}

}  // namespace ds::control
