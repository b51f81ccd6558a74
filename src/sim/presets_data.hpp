// The built-in presets' model files (models/*.json), compiled into the binary by
// cmake/embed_models.cmake: name (the file name without .json) and the file's text.
#pragma once
#include <string_view>
#include <vector>

namespace ds::sim {

struct EmbeddedModel {
  std::string_view name;
  std::string_view json;
};

const std::vector<EmbeddedModel>& embedded_models();

}  // namespace ds::sim
