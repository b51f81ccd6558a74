// `drivescope serve`: the simulated drive as a network block device in real time. Checks the
// model, finds the nbdkit plugin (src/serve/nbdkit), starts nbdkit with it and stops it again on
// SIGINT/SIGTERM. docs/serve.md. The CLI prints; nothing here does.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "drivescope/expected.hpp"

namespace ds::app {

struct ServeRequest {
  std::string model;              // sim:NAME, NAME or a model file (never a device)
  std::string socket;             // Unix socket to listen on (default: a new one in a private directory)
  std::optional<unsigned> port;   // TCP port on 127.0.0.1 instead of a socket
  bool read_only = false;
  double speed = 1.0;             // drive seconds per real second
  std::optional<double> max_wait_ms;  // serve::ServeOptions::max_wait_ms (unset: the plugin's default)
  bool realtime = false;          // time requests on SCHED_FIFO threads (serve::ServeOptions::realtime)
  std::string log;                // the request log (every request's real and simulated times), at exit
  // nbdkit filters in front of the drive, outermost first (nbdkit --filter=NAME), and their
  // KEY=VALUE parameters: nbdkit's own `error` and `delay` filters make a served drive fail or
  // stall on purpose (docs/serve.md).
  std::vector<std::string> filters;
  std::vector<std::string> filter_params;
};

struct ServeSession {
  pid_t pid = -1;                 // nbdkit
  std::string uri;                // nbd+unix:///?socket=PATH or nbd://127.0.0.1:PORT
  std::string text;               // what is served and how to attach it, for the user
  std::string socket;             // empty when on a port
  std::string private_dir;        // ours to remove at the end (pid file, default socket)
  bool own_socket = false;        // the socket is in private_dir
};

// Where the plugin is: $DRIVESCOPE_NBDKIT_PLUGIN, else next to the executable (the build tree),
// else the install's libdir (relative to the executable, then the configured prefix).
Expected<std::string> find_nbdkit_plugin();

// A filter name or parameter that nbdkit would misread, or a parameter that would override the
// plugin's own (model, speed, ...): the usage error, else nullopt.
std::optional<Error> check_filters(const ServeRequest& r);

// Checks the model (a malformed one is refused with the loader's message), blocks SIGINT and
// SIGTERM for serve_wait, starts nbdkit and returns once it listens.
Expected<ServeSession> serve_start(const ServeRequest& r);
// Serves until SIGINT or SIGTERM (then stops nbdkit and returns kExitOk) or until nbdkit ends by
// itself (an error).
Expected<int> serve_wait(ServeSession& s);

}  // namespace ds::app
