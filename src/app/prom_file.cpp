#include "app/prom_file.hpp"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>

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

namespace {

// What is at the target path itself (lstat: a symlink is not followed). Only a regular file may
// be replaced: a rename over /dev/null, a FIFO or a symlink would put a file in its place.
std::optional<Error> refuse_non_regular(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    return make_error(fmt::format("--prom {}: {}", path, std::strerror(errno)), errno);
  }
  if (S_ISREG(st.st_mode)) return std::nullopt;
  const char* what = S_ISDIR(st.st_mode) ? "is a directory"
                     : S_ISLNK(st.st_mode) ? "is a symbolic link"
                     : S_ISCHR(st.st_mode) ? "is a character device"
                     : S_ISBLK(st.st_mode) ? "is a block device"
                     : S_ISFIFO(st.st_mode) ? "is a FIFO"
                     : S_ISSOCK(st.st_mode) ? "is a socket"
                                            : "is not a regular file";
  return make_error(fmt::format("--prom {}: {}, not a regular file (only an absent path or a regular file is written)",
                                path, what), EEXIST);
}

}  // namespace

Expected<std::string> check_prom_path(const std::string& path) {
  const fs::path target(path);
  if (path.empty() || !target.has_filename()) return make_error(fmt::format("--prom {}: not a file name", path));
  const fs::path dir = dir_of(target);
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return make_error(fmt::format("--prom {}: directory {} does not exist", path, dir.string()));
  if (auto refused = refuse_non_regular(path)) return *refused;
  // The temporary file is created in the directory, then renamed over the target.
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return make_error(fmt::format("--prom {}: cannot write in {}: {}", path, dir.string(), std::strerror(errno)), errno);
  return path;
}

namespace {

// The finished temporary file onto path, which must still be absent or a regular file: the check
// before the run is repeated here (the run took minutes), and an absent path is taken with
// RENAME_NOREPLACE, so that whatever appeared there meanwhile is not replaced either.
std::optional<Error> replace_regular(const fs::path& tmp, const std::string& path) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (auto refused = refuse_non_regular(path)) return refused;
    struct stat st {};
    const bool absent = ::lstat(path.c_str(), &st) != 0 && errno == ENOENT;
    const int rc = absent ? ::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE)
                          : std::rename(tmp.c_str(), path.c_str());
    if (rc == 0) return std::nullopt;
    // EEXIST: something took the name between lstat and rename; look at it again.
    if (errno != EEXIST) return make_error(fmt::format("--prom {}: {}", path, std::strerror(errno)), errno);
  }
  return make_error(fmt::format("--prom {}: the path keeps changing; not replaced", path), EEXIST);
}

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
  if (err == 0) {
    if (auto refused = replace_regular(tmp, path)) {
      ::unlink(tmp.c_str());
      return *refused;
    }
    return path;
  }
  ::unlink(tmp.c_str());
  return make_error(fmt::format("--prom {}: {}", path, std::strerror(err)), err);
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
