// nbdkit plugin "drivescope": the simulated drive as a network block device in real time
// (docs/serve.md). A thin adapter: nbdkit's callbacks onto serve::RealTimeDrive.
//
//   nbdkit [-r] nbdkit-drivescope-plugin.so [model=]sim:raptor|MODEL.json [speed=X] [seed=N]
//          [max_wait_ms=MS] [log=PATH] [realtime=1]
//
// Thread model PARALLEL: nbdkit calls pread/pwrite from several threads at once, so requests in
// flight together meet in the drive's queue. One drive serves every connection.
#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>

#include "serve/realtime.hpp"

#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL

namespace {

std::string g_spec;
std::string g_log;  // the request log, written when the plugin unloads
// A million requests (40 MB in memory) are far more than any test here sends; the rest are
// served but not recorded.
constexpr std::size_t kLogMax = 1'000'000;
ds::serve::ServeOptions g_opts;
std::unique_ptr<ds::serve::RealTimeDrive> g_drive;

// nbdkit is C: no exception may cross back into it (bad_alloc is the only one expected here).
template <class F>
int guarded(F f) {
  try {
    const int e = f();
    if (e == 0) return 0;
    nbdkit_set_error(e);
    return -1;
  } catch (const std::exception& ex) {
    nbdkit_error("drivescope: %s", ex.what());
    nbdkit_set_error(ENOMEM);
    return -1;
  }
}

int ds_config(const char* key, const char* value) {
  const std::string k = key;
  if (k == "model") {
    g_spec = value;
  } else if (k == "log") {
    g_log = value;
  } else if (k == "realtime") {
    const std::string v = value;
    if (v != "0" && v != "1") {
      nbdkit_error("drivescope: realtime=%s: 0 or 1", value);
      return -1;
    }
    g_opts.realtime = v == "1";
  } else if (k == "speed" || k == "seed" || k == "max_wait_ms") {
    char* end = nullptr;
    errno = 0;
    if (k == "speed") g_opts.speed = std::strtod(value, &end);
    else if (k == "max_wait_ms") g_opts.max_wait_ms = std::strtod(value, &end);
    else g_opts.seed = std::strtoull(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0') {
      nbdkit_error("drivescope: %s=%s is not a number", key, value);
      return -1;
    }
  } else {
    nbdkit_error("drivescope: unknown parameter %s (model, speed, seed, max_wait_ms, log, realtime)", key);
    return -1;
  }
  return 0;
}

int ds_config_complete() {
  if (g_spec.empty()) {
    nbdkit_error("drivescope: which drive? model=sim:NAME or model=PATH.json");
    return -1;
  }
  // Loaded here, before nbdkit serves anything: a malformed model stops the server at once with
  // the model loader's message.
  auto d = ds::serve::RealTimeDrive::open(g_spec, g_opts);
  if (!d) {
    nbdkit_error("%s", d.error().message.c_str());
    return -1;
  }
  g_drive = std::move(*d);
  if (!g_log.empty()) g_drive->keep_log(kLogMax);
  nbdkit_debug("drivescope: %s, %llu bytes, speed %g", g_drive->name().c_str(),
               static_cast<unsigned long long>(g_drive->size_bytes()), g_drive->speed());
  return 0;
}

// One line per request in the order they were answered: real times on the host's
// CLOCK_MONOTONIC, the drive's times from the start of serving (docs/serve.md, "The request log").
void write_log(const std::string& path, const ds::serve::RealTimeDrive& d) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    std::fprintf(stderr, "drivescope: cannot write the request log %s: %s\n", path.c_str(), std::strerror(errno));
    return;
  }
  std::fprintf(f, "# arrived_ns answered_ns drive_submit_ns drive_complete_ns offset length op\n");
  for (const auto& r : d.log())
    std::fprintf(f, "%lld %lld %lld %lld %llu %u %c\n", static_cast<long long>(r.arrived_real_ns),
                 static_cast<long long>(r.answered_real_ns), static_cast<long long>(r.submit_drive_ns),
                 static_cast<long long>(r.complete_drive_ns), static_cast<unsigned long long>(r.offset), r.length,
                 r.write ? 'W' : 'R');
  std::fclose(f);
}

void ds_unload() {
  if (!g_drive) return;
  // What serving added on top of the simulated times, for the figures in docs/serve.md.
  const auto s = g_drive->stats();
  if (s.realtime_errno)
    std::fprintf(stderr, "drivescope: realtime=1 refused (%s): requests were timed at normal priority\n",
                 std::strerror(s.realtime_errno));
  if (s.requests > 0)
    std::fprintf(stderr, "drivescope: served %llu requests, answered on average %.0f us (at most %.0f us) after "
                 "their simulated completion\n", static_cast<unsigned long long>(s.requests), s.mean_late_us,
                 s.max_late_us);
  if (!g_log.empty()) write_log(g_log, *g_drive);
  g_drive.reset();
}

void* ds_open(int /*readonly*/) { return g_drive.get(); }

int64_t ds_get_size(void*) { return static_cast<int64_t>(g_drive->size_bytes()); }
int ds_can_write(void*) { return 1; }
int ds_can_flush(void*) { return 1; }
int ds_is_rotational(void*) { return 1; }
// Every connection sees the same drive and data, and a flush on one covers writes from all.
int ds_can_multi_conn(void*) { return 1; }

int ds_block_size(void*, uint32_t* minimum, uint32_t* preferred, uint32_t* maximum) {
  *minimum = g_drive->logical_block_bytes();
  *preferred = std::max<uint32_t>(4096, g_drive->physical_block_bytes());
  *maximum = 0xffffffff;
  return 0;
}

int ds_pread(void* h, void* buf, uint32_t count, uint64_t offset, uint32_t) {
  auto* d = static_cast<ds::serve::RealTimeDrive*>(h);
  return guarded([&] { return d->read({static_cast<std::byte*>(buf), count}, offset); });
}

int ds_pwrite(void* h, const void* buf, uint32_t count, uint64_t offset, uint32_t) {
  auto* d = static_cast<ds::serve::RealTimeDrive*>(h);
  return guarded([&] { return d->write({static_cast<const std::byte*>(buf), count}, offset); });
}

int ds_flush(void* h, uint32_t) {
  auto* d = static_cast<ds::serve::RealTimeDrive*>(h);
  return guarded([&] { return d->flush(); });
}

nbdkit_plugin make_plugin() {
  nbdkit_plugin p{};
  p.name = "drivescope";
  p.longname = "drivescope simulated drive in real time";
  p.version = DRIVESCOPE_VERSION;
  p.description = "a drivescope disk model (sim:NAME or a model file) served as a block device in real time";
  p.config = ds_config;
  p.config_complete = ds_config_complete;
  p.config_help =
      "model=sim:NAME|PATH.json  (required) the drive: a preset or a model file\n"
      "speed=X                   drive seconds per real second (default 1)\n"
      "seed=N                    overrides the model's noise.seed\n"
      "max_wait_ms=MS            bound on how long a queued command is passed over, where the\n"
      "                          model sets none (default 500; 0: plain SPTF)\n"
      "log=PATH                  write every request's real and simulated times there at exit\n"
      "realtime=1                time requests on SCHED_FIFO threads (root or CAP_SYS_NICE)";
  p.magic_config_key = "model";
  p.unload = ds_unload;
  p.open = ds_open;
  p.get_size = ds_get_size;
  p.can_write = ds_can_write;
  p.can_flush = ds_can_flush;
  p.is_rotational = ds_is_rotational;
  p.can_multi_conn = ds_can_multi_conn;
  p.block_size = ds_block_size;
  p.pread = ds_pread;
  p.pwrite = ds_pwrite;
  p.flush = ds_flush;
  p.errno_is_preserved = 0;
  return p;
}

nbdkit_plugin plugin = make_plugin();

}  // namespace

NBDKIT_REGISTER_PLUGIN(plugin)
