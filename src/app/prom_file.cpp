#include "app/prom_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "report/prom.hpp"

namespace ds::app {

namespace fs = std::filesystem;

std::string prom_text(const nlohmann::json& doc, int exit_status, const std::string& command) {
  return report::format_prom(report::prom_metrics(doc, exit_status, command));
}

namespace {
fs::path dir_of(const fs::path& target) { return target.parent_path().empty() ? fs::path(".") : target.parent_path(); }
}  // namespace

Expected<std::string> check_prom_path(const std::string& path) {
  const fs::path target(path);
  if (path.empty() || !target.has_filename()) return make_error(fmt::format("--prom {}: not a file name", path));
  const fs::path dir = dir_of(target);
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return make_error(fmt::format("--prom {}: directory {} does not exist", path, dir.string()));
  if (fs::is_directory(target, ec)) return make_error(fmt::format("--prom {}: is a directory, not a file", path));
  // The temporary file is created in the directory, then renamed over the target.
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return make_error(fmt::format("--prom {}: cannot write in {}: {}", path, dir.string(), std::strerror(errno)), errno);
  return path;
}

namespace {

Expected<std::string> write_atomically(const std::string& path, const std::string& text) {
  if (auto ok = check_prom_path(path); !ok) return ok.error();
  const fs::path target(path);
  const fs::path dir = dir_of(target);
  // node_exporter reads only *.prom: a temporary name that does not end so is never collected.
  const fs::path tmp = dir / fmt::format(".{}.{}.tmp", target.filename().string(), ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return make_error(fmt::format("--prom {}: cannot create {}: {}", path, tmp.string(), std::strerror(errno)), errno);
  std::size_t done = 0;
  int err = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      err = n < 0 ? errno : EIO;
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  // fsync before the rename: after a crash the file is the old one or the whole new one.
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && std::rename(tmp.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return make_error(fmt::format("--prom {}: {}", path, std::strerror(err)), err);
  }
  return path;
}

}  // namespace

Expected<std::string> write_prom_file(const std::string& path, const nlohmann::json& doc, int exit_status,
                                      const std::string& command) {
  return write_atomically(path, prom_text(doc, exit_status, command));
}

Expected<std::string> write_prom_file(const std::string& path, const std::vector<PromDoc>& docs,
                                      const std::string& command) {
  std::vector<std::vector<report::PromMetric>> parts;
  for (const auto& d : docs) parts.push_back(report::prom_metrics(*d.doc, d.exit_status, command));
  return write_atomically(path, report::format_prom(report::merge_prom(std::move(parts))));
}

}  // namespace ds::app
