#include "app/build_info.hpp"

#include <fmt/format.h>
#include <scsi/sg_lib.h>

#include "app/identify.hpp"
#include "ds_build_info.hpp"  // generated: DS_GIT_DESCRIBE, DS_ATASMART_VERSION, DS_LIBAIO_VERSION

namespace ds::app {

namespace {

std::string compiler() {
#if defined(__clang__)
  return fmt::format("clang {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("GCC {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

std::string or_unknown(std::string s) { return s.empty() ? "unknown" : s; }

}  // namespace

BuildInfo build_info() {
  BuildInfo b;
  b.version = version();
  b.commit = or_unknown(DS_GIT_DESCRIBE);
  b.compiler = compiler();
  // libsgutils2 says its own version at run time (the library loaded, not the headers); the
  // others only at build time: libatasmart by pkg-config, libaio by its Debian package (it has
  // neither a version call nor a .pc file), fmt and nlohmann-json by their headers.
  b.libraries = {
      {"libsgutils2", or_unknown(sg_lib_version())},
      {"libatasmart", or_unknown(DS_ATASMART_VERSION)},
      {"libaio", or_unknown(DS_LIBAIO_VERSION)},
      {"fmt", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100)},
      {"nlohmann-json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR,
                                    NLOHMANN_JSON_VERSION_PATCH)},
  };
  return b;
}

nlohmann::json build_info_json(const BuildInfo& b) {
  nlohmann::json libs = nlohmann::json::object();
  for (const auto& [name, v] : b.libraries) libs[name] = v;
  return {{"version", b.version}, {"commit", b.commit}, {"compiler", b.compiler}, {"libraries", libs}};
}

std::string build_info_text(const BuildInfo& b) {
  std::string s = fmt::format("drivescope {} (commit {})\ncompiler: {}\n", b.version, b.commit, b.compiler);
  for (const auto& [name, v] : b.libraries) s += fmt::format("{}: {}\n", name, v);
  return s;
}

}  // namespace ds::app
