#include "app/serve.hpp"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <thread>
#include <vector>

#include "app/identify.hpp"
#include "sim/sim.hpp"

namespace ds::app {
namespace {

namespace fs = std::filesystem;

constexpr auto kStartTimeout = std::chrono::seconds(15);
constexpr auto kStopTimeout = std::chrono::seconds(5);

bool is_regular(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string executable_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

Expected<std::string> find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string rest = path ? path : "/usr/bin:/bin";
  std::size_t at = 0;
  while (at <= rest.size()) {
    const std::size_t end = std::min(rest.find(':', at), rest.size());
    const std::string dir = rest.substr(at, end - at);
    const std::string cand = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(cand.c_str(), X_OK) == 0) return cand;
    at = end + 1;
  }
  return make_error(name + " is not installed (Debian: apt install nbdkit); drivescope serve runs the drive in it");
}

// The model as nbdkit's plugin will see it: a file spec made absolute (nbdkit may change
// directory), a preset left as it is. A device or anything but a regular file is refused here:
// serve never opens a real device, not even to read it as a model.
Expected<std::string> model_spec(const std::string& model) {
  std::string rest = model.starts_with("sim:") ? model.substr(4) : model;
  struct stat st {};
  if (!rest.empty() && ::stat(rest.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return make_error(model + " is not a model file: drivescope serve takes a disk model (sim:NAME or a "
                        "model JSON file), never a device");
    return "sim:" + fs::absolute(rest).lexically_normal().string();
  }
  return "sim:" + rest;
}

std::string attach_text(const ServeRequest& r, const ServeSession& s, const sim::SimTarget& t) {
  const auto& info = t.io->info();
  std::string out = fmt::format("drivescope: serving {} ({}), {} bytes ({} sectors of {}){}{}\n",
                                info.name, t.model.name, info.capacity_bytes,
                                info.capacity_bytes / info.logical_block_bytes, info.logical_block_bytes,
                                r.read_only ? ", read-only" : "",
                                r.speed != 1.0 ? fmt::format(", drive clock at {}x real time", r.speed)
                                               : std::string(", in real time"));
  out += fmt::format("  NBD URI:    {}\n", s.uri);
  out += fmt::format("  QEMU:       -drive file={},format=raw,if=none,id=ds0 -device ahci,id=ahci0 "
                     "-device ide-hd,drive=ds0,bus=ahci0.0\n", s.uri);
  out += fmt::format("              (virtio-scsi: -device virtio-scsi-pci,id=scsi0 -device scsi-hd,drive=ds0,bus=scsi0.0)\n");
  if (r.port)
    out += fmt::format("  nbd-client: nbd-client 127.0.0.1 {} /dev/nbd0   (as root, after modprobe nbd)\n", *r.port);
  else
    out += fmt::format("  nbd-client: nbd-client -unix {} /dev/nbd0   (as root, after modprobe nbd)\n", s.socket);
  out += "  stop with Ctrl-C (SIGINT) or SIGTERM\n";
  return out;
}

void block_signals(bool block) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  if (!block) {  // swallow what came while we were stopping, so unblocking does not kill us
    const timespec zero{0, 0};
    while (sigtimedwait(&set, nullptr, &zero) > 0) {
    }
  }
  pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, nullptr);
}

void cleanup(const ServeSession& s) {
  std::error_code ec;
  // A socket of the user's choosing that nbdkit left behind would make the next start fail.
  struct stat st {};
  if (!s.own_socket && !s.socket.empty() && ::lstat(s.socket.c_str(), &st) == 0 && S_ISSOCK(st.st_mode))
    ::unlink(s.socket.c_str());
  if (!s.private_dir.empty()) fs::remove_all(s.private_dir, ec);
}

// nbdkit's end: its exit status as a message, or empty for an ordinary stop on our signal.
std::string describe_exit(int status) {
  if (WIFEXITED(status)) return fmt::format("nbdkit exited with status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return fmt::format("nbdkit was killed by signal {}", WTERMSIG(status));
  return "nbdkit ended";
}

Expected<pid_t> spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) return make_error(std::string("fork: ") + std::strerror(errno), errno);
  if (pid == 0) {
    // Its own process group: a Ctrl-C at the terminal reaches drivescope, which stops nbdkit in
    // order; --exit-with-parent covers drivescope dying without that.
    ::setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, nullptr);
    ::execv(argv[0], argv.data());
    std::fprintf(stderr, "drivescope: cannot run %s: %s\n", argv[0], std::strerror(errno));
    ::_exit(127);
  }
  return pid;
}

}  // namespace

Expected<std::string> find_nbdkit_plugin() {
  if (const char* env = std::getenv("DRIVESCOPE_NBDKIT_PLUGIN"); env && *env) {
    if (is_regular(env)) return std::string(env);
    return make_error(fmt::format("DRIVESCOPE_NBDKIT_PLUGIN={}: no such file", env));
  }
  std::vector<std::string> tried;
  const std::string dir = executable_dir();
  if (!dir.empty()) {
    tried.push_back(dir + "/" DS_NBDKIT_PLUGIN);
    tried.push_back((fs::path(dir) / ".." / DS_PLUGIN_LIBDIR_REL / DS_NBDKIT_PLUGIN).lexically_normal().string());
  }
  tried.push_back(DS_PLUGIN_LIBDIR "/" DS_NBDKIT_PLUGIN);
  for (const auto& p : tried)
    if (is_regular(p)) return p;
  std::string list;
  for (const auto& p : tried) list += (list.empty() ? "" : ", ") + p;
  return make_error("the nbdkit plugin of drivescope serve is not installed (looked for " + list +
                    "; DRIVESCOPE_NBDKIT_PLUGIN names it)");
}

std::optional<Error> check_filters(const ServeRequest& r) {
  // nbdkit takes a filter by name (it finds nbdkit-NAME-filter.so) and every KEY=VALUE after the
  // plugin as a parameter of the plugin or of a filter: a word with a '=' or a '/' in a name, or a
  // parameter named like the plugin's, would change what the drive is, not put a filter before it.
  static constexpr std::string_view kPluginKeys[] = {"model", "speed", "log", "realtime", "max_wait_ms"};
  auto word = [](std::string_view w) {
    return !w.empty() && std::all_of(w.begin(), w.end(), [](unsigned char c) {
      return std::islower(c) || std::isdigit(c) || c == '-' || c == '_';
    });
  };
  for (const auto& f : r.filters)
    if (!word(f))
      return usage_error(fmt::format("--filter {}: an nbdkit filter's name (error, delay, ...), lower-case "
                                     "letters, digits, '-' and '_'", f));
  if (!r.filter_params.empty() && r.filters.empty())
    return usage_error("--filter-param without a --filter");
  for (const auto& p : r.filter_params) {
    const auto eq = p.find('=');
    const std::string_view key = std::string_view(p).substr(0, eq);
    if (eq == std::string::npos || !word(key) || p.find('\n') != std::string::npos)
      return usage_error(fmt::format("--filter-param {}: give KEY=VALUE (e.g. error-rate=10%)", p));
    if (std::find(std::begin(kPluginKeys), std::end(kPluginKeys), key) != std::end(kPluginKeys))
      return usage_error(fmt::format("--filter-param {}: '{}' is the drive's own parameter, not a filter's", p, key));
  }
  return std::nullopt;
}

Expected<ServeSession> serve_start(const ServeRequest& r) {
  if (auto bad = check_filters(r)) return *bad;
  auto spec = model_spec(r.model);
  if (!spec) return spec.error();
  // The model is loaded here first, so that a malformed one is refused with the loader's message
  // before anything starts (the plugin loads it again, the same way).
  auto t = sim::open(*spec);
  if (!t) return t.error();
  auto nbdkit = find_in_path("nbdkit");
  if (!nbdkit) return nbdkit.error();
  auto plugin = find_nbdkit_plugin();
  if (!plugin) return plugin.error();

  ServeSession s;
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/drivescope-serve.XXXXXX";
  if (!::mkdtemp(templ.data())) return make_error("creating a directory in " + templ + ": " + std::strerror(errno), errno);
  s.private_dir = templ;
  const std::string pidfile = s.private_dir + "/nbdkit.pid";
  // -t: nbdkit serves up to 16 requests of a connection at once by default, fewer than a queued
  // model holds (32); with 64 the client decides how many reach the drive (QEMU: 16).
  std::vector<std::string> args{*nbdkit, "-f", "--exit-with-parent", "-P", pidfile, "-t", "64"};
  if (r.read_only) args.push_back("-r");
  if (r.port) {
    args.insert(args.end(), {"-i", "127.0.0.1", "-p", std::to_string(*r.port)});
    s.uri = fmt::format("nbd://127.0.0.1:{}", *r.port);
  } else {
    s.own_socket = r.socket.empty();
    s.socket = s.own_socket ? s.private_dir + "/nbd.sock" : fs::absolute(r.socket).string();
    args.insert(args.end(), {"-U", s.socket});
    s.uri = "nbd+unix:///?socket=" + s.socket;
  }
  for (const auto& f : r.filters) args.push_back("--filter=" + f);
  args.insert(args.end(), {*plugin, "model=" + *spec, fmt::format("speed={}", r.speed)});
  // Absolute: nbdkit may change directory.
  if (!r.log.empty()) args.push_back("log=" + fs::absolute(r.log).string());
  if (r.realtime) args.push_back("realtime=1");
  if (r.max_wait_ms) args.push_back(fmt::format("max_wait_ms={}", *r.max_wait_ms));
  args.insert(args.end(), r.filter_params.begin(), r.filter_params.end());

  block_signals(true);
  auto pid = spawn(args);
  if (!pid) {
    block_signals(false);
    cleanup(s);
    return pid.error();
  }
  s.pid = *pid;
  // nbdkit writes its pid file once it listens.
  const auto until = std::chrono::steady_clock::now() + kStartTimeout;
  for (;;) {
    int status = 0;
    if (::waitpid(s.pid, &status, WNOHANG) == s.pid) {
      block_signals(false);
      cleanup(s);
      return make_error(describe_exit(status) + " before serving (its message is above)");
    }
    struct stat st {};
    if (::stat(pidfile.c_str(), &st) == 0 && st.st_size > 0) break;
    if (std::chrono::steady_clock::now() > until) {
      ::kill(s.pid, SIGKILL);
      ::waitpid(s.pid, &status, 0);
      block_signals(false);
      cleanup(s);
      return make_error("nbdkit did not start listening within 15 s");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  s.text = attach_text(r, s, *t);
  return s;
}

Expected<int> serve_wait(ServeSession& s) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGCHLD);
  const timespec tick{0, 200'000'000};
  int status = 0;
  for (;;) {
    const int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM) break;
    if (::waitpid(s.pid, &status, WNOHANG) == s.pid) {  // nbdkit ended by itself
      block_signals(false);
      cleanup(s);
      return make_error(describe_exit(status) + " while serving");
    }
  }
  ::kill(s.pid, SIGTERM);
  const auto until = std::chrono::steady_clock::now() + kStopTimeout;
  while (::waitpid(s.pid, &status, WNOHANG) != s.pid) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(s.pid, SIGKILL);
      ::waitpid(s.pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  block_signals(false);
  cleanup(s);
  return kExitOk;
}

}  // namespace ds::app
