// Small helpers shared by the app-level tests (reports, progress, binary runs).
#pragma once
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace apptest {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline bool has(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

}  // namespace apptest
