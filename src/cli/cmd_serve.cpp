// `drivescope serve MODEL [--socket PATH | --port N] [--read-only] [--speed X] [--max-wait MS]
// [--realtime] [--log FILE] [--filter NAME... --filter-param KEY=VALUE...]`: the simulated drive as a
// network block device in real time, on nbdkit (src/app/serve.hpp, docs/serve.md).
#include <cstdio>
#include <iostream>
#include <memory>

#include "app/identify.hpp"
#include "app/serve.hpp"
#include "cli/cli.hpp"

namespace ds::cli {

Action add_serve(CLI::App& app) {
  auto o = std::make_shared<app::ServeRequest>();
  auto* c = app.add_subcommand("serve", "serve a simulated drive as a block device (NBD, on nbdkit) in real time");
  c->add_option("model", o->model, "sim:NAME, or a disk model file (never a device)")->required();
  auto* sock = c->add_option("--socket", o->socket, "listen on this Unix socket (default: a new one, printed)");
  auto* port = c->add_option("--port", o->port, "listen on this TCP port of 127.0.0.1 instead")
                   ->check(CLI::Range(1, 65535));
  sock->excludes(port);
  c->add_flag("--read-only", o->read_only, "refuse writes (default: writes are kept, in memory, and read back)");
  c->add_option("--speed", o->speed, "run the drive's clock X times faster than real time (default 1)")
      ->check(finite_range(0.001, 1e6, "speed"));
  c->add_option("--max-wait", o->max_wait_ms, "where the model sets no queue.max_wait_ms: the longest a queued "
                                             "command is passed over, in ms (default 500; 0: plain SPTF)")
      ->check(finite_range(0, 1e6, "max-wait"));
  c->add_flag("--realtime", o->realtime, "time requests on SCHED_FIFO threads, so that answers are not late on a "
                                         "busy host (root or CAP_SYS_NICE; otherwise a warning at exit)");
  c->add_option("--log", o->log, "at exit, write every request's real and simulated times to this file");
  c->add_option("--filter", o->filters, "put nbdkit's filter NAME in front of the drive (repeatable, outermost "
                                        "first; e.g. error, delay: a drive that fails or stalls on purpose)");
  c->add_option("--filter-param", o->filter_params, "KEY=VALUE for a --filter (repeatable; e.g. error=EIO, "
                                                    "error-pread-rate=100%, delay-read=2s)");
  return [o, c]() -> int {
    if (!c->parsed()) return -1;
    auto s = app::serve_start(*o);
    if (!s) {
      std::fprintf(stderr, "drivescope: %s\n", s.error().message.c_str());
      return s.error().code == app::kUsageErrorCode ? app::kExitUsage : app::kExitFailure;
    }
    std::cout << s->text << std::flush;
    auto rc = app::serve_wait(*s);
    if (!rc) {
      std::fprintf(stderr, "drivescope: %s\n", rc.error().message.c_str());
      return app::kExitFailure;
    }
    std::fprintf(stderr, "drivescope: stopped serving\n");
    return *rc;
  };
}

}  // namespace ds::cli
