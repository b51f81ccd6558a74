// `drivescope aam|apm|write-cache|read-ahead TARGET [get | set VALUE | on | off | quiet | fast]`.
#include <cstdio>
#include <memory>
#include <vector>

#include "app/features.hpp"
#include "app/target.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_features(CLI::App& app) {
  struct Opts {
    app::FeatureId id;
    CLI::App* cmd = nullptr;
    std::string target, action, value;
    bool json = false;
    DeviceFlags dev;
  };
  struct Entry {
    app::FeatureId id;
    const char* help;
    const char* actions;
  };
  static const Entry entries[] = {
      {app::FeatureId::aam, "Automatic Acoustic Management: read or set the level (SET FEATURES 42h/C2h)",
       "get | set LEVEL (128..254) | quiet (128) | fast (254) | off"},
      {app::FeatureId::apm, "Advanced Power Management: read or set the level (SET FEATURES 05h/85h)",
       "get | set LEVEL (1..254) | off"},
      {app::FeatureId::write_cache, "the drive's volatile write cache (SET FEATURES 02h/82h)",
       "get | on | off | set on|off"},
      {app::FeatureId::read_ahead, "the drive's read look-ahead (SET FEATURES AAh/55h)", "get | on | off | set on|off"},
  };
  auto all = std::make_shared<std::vector<std::shared_ptr<Opts>>>();
  for (const auto& e : entries) {
    auto o = std::make_shared<Opts>();
    o->id = e.id;
    o->cmd = app.add_subcommand(std::string(app::to_string(e.id)), e.help);
    o->cmd->add_option("target", o->target, "/dev/sdX, /dev/sgN, sim:NAME, sim:MODEL.json")->required();
    o->cmd->add_option("action", o->action, e.actions);
    o->cmd->add_option("value", o->value, "the value for `set`");
    add_json_flag(o->cmd, o->json);
    add_device_options(o->cmd, o->dev);
    all->push_back(o);
  }
  return [all]() -> int {
    for (auto& o : *all) {
      if (!o->cmd->parsed()) continue;
      auto t = app::open_target(o->target, {.device = device_choice(o->dev)});
      if (!t) return emit(t.error(), o->json);
      return emit(app::feature_command(*t, o->id, o->action, o->value), o->json);
    }
    return -1;
  };
}

}  // namespace ds::cli
