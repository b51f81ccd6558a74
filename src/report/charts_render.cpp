// Running gnuplot on the chart sources of charts.cpp: finding it, rendering each script with a
// time limit, and writing the data, scripts and images (split from charts.cpp, which builds the
// sources).
#include "report/charts.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ds::report {

std::string find_gnuplot() {
  if (const char* e = std::getenv("DRIVESCOPE_GNUPLOT"); e && *e) return e;
  const char* path = std::getenv("PATH");
  std::string p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::stringstream ss(p);
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (dir.empty()) continue;
    std::string cand = dir + "/gnuplot";
    if (::access(cand.c_str(), X_OK) == 0) return cand;
  }
  return {};
}

RenderOutcome run_gnuplot(const std::string& gnuplot, const std::string& dir, const std::string& script_file,
                          bool png, double timeout_s) {
  RenderOutcome r;
  if (gnuplot.empty()) { r.message = "gnuplot not found"; return r; }
  if (::access(gnuplot.c_str(), X_OK) != 0) { r.message = fmt::format("{}: not an executable", gnuplot); return r; }
  int pipefd[2];
  if (::pipe2(pipefd, O_CLOEXEC) != 0) { r.message = "pipe failed"; return r; }
  // Arguments are built before fork: the child only calls async-signal-safe functions.
  std::string e_arg = "fmt='png'";
  std::vector<char*> argv{const_cast<char*>("gnuplot")};
  if (png) { argv.push_back(const_cast<char*>("-e")); argv.push_back(e_arg.data()); }
  std::string script = script_file;
  argv.push_back(script.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) { ::close(pipefd[0]); ::close(pipefd[1]); r.message = "fork failed"; return r; }
  if (pid == 0) {
    ::setpgid(0, 0);
    int devnull = ::open("/dev/null", O_RDWR);
    if (devnull >= 0) { ::dup2(devnull, 0); ::dup2(devnull, 1); }
    ::dup2(pipefd[1], 2);
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    ::execv(gnuplot.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(pipefd[1]);
  std::string err;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  bool timed_out = false;
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) { timed_out = true; break; }
    pollfd p{pipefd[0], POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) break;
    if (n > 0) {
      char buf[4096];
      ssize_t got = ::read(pipefd[0], buf, sizeof buf);
      if (got <= 0) break;  // EOF: gnuplot closed stderr (it is ending)
      if (err.size() < 16384) err.append(buf, static_cast<std::size_t>(got));
    }
  }
  ::close(pipefd[0]);
  int status = 0;
  if (timed_out) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    r.message = fmt::format("gnuplot did not finish within {:g} s (killed)", timeout_s);
    return r;
  }
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  r.ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!r.ok) {
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) r.message = fmt::format("{}: could not be run", gnuplot);
    else r.message = err.empty() ? fmt::format("gnuplot failed (status {})", status) : err;
  }
  // gnuplot warns on stderr and still succeeds; keep the first line for the user.
  while (!r.message.empty() && (r.message.back() == '\n' || r.message.back() == ' ')) r.message.pop_back();
  return r;
}

Expected<std::vector<WrittenChart>> write_charts(const std::string& dir, const std::vector<ChartSource>& charts,
                                                 const WriteOptions& opt) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) return make_error(fmt::format("{}: cannot create the chart directory ({})", dir, ec.message()));
  auto put = [](const fs::path& p, const std::string& text) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    return static_cast<bool>(f);
  };
  std::vector<WrittenChart> out;
  for (const auto& c : charts) {
    WrittenChart w;
    w.source = c;
    fs::path base = fs::path(dir) / c.name;
    w.dat_path = base.string() + ".dat";
    w.gp_path = base.string() + ".gp";
    w.svg_path = base.string() + ".svg";
    if (!put(w.dat_path, c.data) || !put(w.gp_path, c.script))
      return make_error(fmt::format("{}: cannot write chart files", base.string()));
    if (opt.gnuplot.empty()) {
      w.message = "gnuplot not run";
    } else {
      auto r = run_gnuplot(opt.gnuplot, dir, c.name + ".gp", false, opt.timeout_s);
      std::ifstream f(w.svg_path, std::ios::binary);
      std::stringstream ss;
      if (r.ok && f) ss << f.rdbuf();
      w.svg = ss.str();
      w.svg_ok = r.ok && w.svg.find("<svg") != std::string::npos;
      w.message = r.ok && !w.svg_ok ? "gnuplot wrote no SVG" : r.message;
      if (opt.png && w.svg_ok) {
        auto p = run_gnuplot(opt.gnuplot, dir, c.name + ".gp", true, opt.timeout_s);
        if (p.ok && fs::exists(base.string() + ".png")) w.png_path = base.string() + ".png";
        else if (!p.message.empty()) w.message = p.message;
      }
    }
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace ds::report
